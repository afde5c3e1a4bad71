//! OPRF, VOPRF and POPRF (RFC 9497) on the five suites, as the WebAssembly package's `Oprf*`,
//! `Voprf*` and `Poprf*` classes: clients (`blind`, `blind_batch`, and their states'
//! `finalize`, `finalize_batch`) and servers (key management, `blind_evaluate`,
//! `blind_evaluate_batch`, `evaluate`). The suite is a `PT_SUITE_*` value.

use core::ffi::c_char;

use privacy_tokens::voprf::{
    BlindResult, BlindedElement, EvaluationElement, OprfClient, OprfServer, PoprfClient,
    PoprfServer, Proof, PublicKey, SecretKey, VoprfClient, VoprfServer,
};
use privacy_tokens::{
    Decaf448Shake256, Error, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite,
};
use zeroize::Zeroizing;

use crate::ffi::*;

/// `P256-SHA256` (RFC 9497 §4.3).
pub const PT_SUITE_P256_SHA256: u32 = 1;
/// `P384-SHA384` (RFC 9497 §4.4).
pub const PT_SUITE_P384_SHA384: u32 = 2;
/// `P521-SHA512` (RFC 9497 §4.5).
pub const PT_SUITE_P521_SHA512: u32 = 3;
/// `ristretto255-SHA512` (RFC 9497 §4.1).
pub const PT_SUITE_RISTRETTO255_SHA512: u32 = 4;
/// `decaf448-SHAKE256` (RFC 9497 §4.2).
pub const PT_SUITE_DECAF448_SHAKE256: u32 = 5;

/// The most elements one batch call takes (RFC 9497's batch limit).
const MAX_BATCH: usize = 0xffff;

/// One of the five suites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SuiteId {
    P256,
    P384,
    P521,
    Ristretto255,
    Decaf448,
}

/// The suite of a `PT_SUITE_*` value: `PT_INVALID_ARGUMENT` for another.
fn suite(id: u32) -> R<SuiteId> {
    Ok(match id {
        PT_SUITE_P256_SHA256 => SuiteId::P256,
        PT_SUITE_P384_SHA384 => SuiteId::P384,
        PT_SUITE_P521_SHA512 => SuiteId::P521,
        PT_SUITE_RISTRETTO255_SHA512 => SuiteId::Ristretto255,
        PT_SUITE_DECAF448_SHAKE256 => SuiteId::Decaf448,
        _ => return fail(PT_INVALID_ARGUMENT),
    })
}

/// The RFC 9497 name of a suite (`"P256-SHA256"`, ..., `"decaf448-SHAKE256"`), a static
/// NUL-terminated string; `NULL` for a value that is no `PT_SUITE_*`.
#[no_mangle]
pub extern "C" fn pt_suite_name(suite_id: u32) -> *const c_char {
    match suite(suite_id) {
        Ok(SuiteId::P256) => cstr(c"P256-SHA256"),
        Ok(SuiteId::P384) => cstr(c"P384-SHA384"),
        Ok(SuiteId::P521) => cstr(c"P521-SHA512"),
        Ok(SuiteId::Ristretto255) => cstr(c"ristretto255-SHA512"),
        Ok(SuiteId::Decaf448) => cstr(c"decaf448-SHAKE256"),
        Err(_) => core::ptr::null(),
    }
}

/// An enum with one variant per suite around `$t<S>`.
macro_rules! per_suite {
    ($name:ident, $t:ident) => {
        enum $name {
            P256($t<P256Sha256>),
            P384($t<P384Sha384>),
            P521($t<P521Sha512>),
            Ristretto255($t<Ristretto255Sha512>),
            Decaf448($t<Decaf448Shake256>),
        }
    };
}

/// `$body` with `$x` bound to the variant's value and `$S` to its suite.
macro_rules! each {
    ($e:expr, $name:ident, $x:ident, $S:ident => $body:expr) => {
        match $e {
            $name::P256($x) => {
                #[allow(dead_code)]
                type $S = P256Sha256;
                $body
            }
            $name::P384($x) => {
                #[allow(dead_code)]
                type $S = P384Sha384;
                $body
            }
            $name::P521($x) => {
                #[allow(dead_code)]
                type $S = P521Sha512;
                $body
            }
            $name::Ristretto255($x) => {
                #[allow(dead_code)]
                type $S = Ristretto255Sha512;
                $body
            }
            $name::Decaf448($x) => {
                #[allow(dead_code)]
                type $S = Decaf448Shake256;
                $body
            }
        }
    };
}

/// The `$name` variant of suite `$id` holding `$body?` (an `R`), with `$S` its suite.
macro_rules! build {
    ($id:expr, $name:ident, $S:ident => $body:expr) => {
        match $id {
            SuiteId::P256 => {
                type $S = P256Sha256;
                $name::P256($body?)
            }
            SuiteId::P384 => {
                type $S = P384Sha384;
                $name::P384($body?)
            }
            SuiteId::P521 => {
                type $S = P521Sha512;
                $name::P521($body?)
            }
            SuiteId::Ristretto255 => {
                type $S = Ristretto255Sha512;
                $name::Ristretto255($body?)
            }
            SuiteId::Decaf448 => {
                type $S = Decaf448Shake256;
                $name::Decaf448($body?)
            }
        }
    };
}

/// The `$States` variant of a public key's suite holding `$body?`, with `$x` the key and `$S`
/// its suite.
macro_rules! keyed {
    ($pk:expr, $States:ident, $S:ident, $x:ident => $body:expr) => {
        match $pk {
            PublicKeys::P256($x) => {
                type $S = P256Sha256;
                $States::P256($body?)
            }
            PublicKeys::P384($x) => {
                type $S = P384Sha384;
                $States::P384($body?)
            }
            PublicKeys::P521($x) => {
                type $S = P521Sha512;
                $States::P521($body?)
            }
            PublicKeys::Ristretto255($x) => {
                type $S = Ristretto255Sha512;
                $States::Ristretto255($body?)
            }
            PublicKeys::Decaf448($x) => {
                type $S = Decaf448Shake256;
                $States::Decaf448($body?)
            }
        }
    };
}

/// A client's pending blinds: the clients and their inputs (kept, so that finalizing needs
/// only the server's answer; wiped on drop).
struct Pending<C> {
    clients: Vec<C>,
    inputs: Vec<Zeroizing<Vec<u8>>>,
}

/// The inputs as slices.
fn refs(inputs: &[Zeroizing<Vec<u8>>]) -> Vec<&[u8]> {
    inputs.iter().map(|i| i.as_slice()).collect()
}

type OprfPending<S> = Pending<OprfClient<S>>;
type VoprfPending<S> = (Pending<VoprfClient<S>>, PublicKey<S>);
type PoprfPending<S> = (Pending<PoprfClient<S>>, Vec<u8>);

per_suite!(OprfStates, OprfPending);
per_suite!(VoprfStates, VoprfPending);
per_suite!(PoprfStates, PoprfPending);
per_suite!(PublicKeys, PublicKey);
per_suite!(OprfServers, OprfServer);
per_suite!(VoprfServers, VoprfServer);
per_suite!(PoprfServers, PoprfServer);

/// Blinds each input with `blind`: the blinded elements' encodings and the pending state.
fn pending<C, S: Suite>(
    inputs: &[&[u8]],
    mut blind: impl FnMut(&[u8]) -> privacy_tokens::Result<BlindResult<C, S>>,
) -> R<(Vec<Vec<u8>>, Pending<C>)> {
    if inputs.is_empty() {
        return Err(Error::Batch.into());
    }
    let mut clients = Vec::with_capacity(inputs.len());
    let mut elements = Vec::with_capacity(inputs.len());
    for i in inputs {
        let r = blind(i)?;
        elements.push(r.message.to_bytes().as_ref().to_vec());
        clients.push(r.state);
    }
    let inputs = inputs.iter().map(|i| Zeroizing::new(i.to_vec())).collect();
    Ok((elements, Pending { clients, inputs }))
}

fn decode_blinded<S: Suite>(items: &[&[u8]]) -> R<Vec<BlindedElement<S>>> {
    if items.is_empty() {
        return Err(Error::Batch.into());
    }
    items
        .iter()
        .map(|b| Ok(BlindedElement::<S>::from_bytes(b)?))
        .collect()
}

fn decode_evaluated<S: Suite>(items: &[&[u8]], n: usize) -> R<Vec<EvaluationElement<S>>> {
    if items.len() != n {
        return Err(Error::Batch.into());
    }
    items
        .iter()
        .map(|b| Ok(EvaluationElement::<S>::from_bytes(b)?))
        .collect()
}

/// The outputs, wiped when dropped (after they are copied out).
type Outputs = Vec<Zeroizing<Vec<u8>>>;

fn outputs<O: AsRef<[u8]>>(list: Vec<O>) -> Outputs {
    list.into_iter()
        .map(|o| Zeroizing::new(o.as_ref().to_vec()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The shared shape of the three clients

/// A mode's client: blinds inputs into its pending state.
trait Blinder: Handle {
    type States;
    fn blind_inputs(&self, inputs: &[&[u8]]) -> R<(Vec<Vec<u8>>, Self::States)>;
}

/// A mode's pending state: how many inputs, decoding the server's answer without consuming,
/// and finalizing.
trait Finalizer: Sized {
    fn count(&self) -> usize;
    fn check(&self, evaluated: &[&[u8]], proof: &[u8]) -> R;
    fn finish(self, evaluated: &[&[u8]], proof: &[u8]) -> R<Outputs>;
}

/// A state handle: its one-shot contents.
trait Slot: Handle {
    type States: Finalizer;
    fn slot(&mut self) -> &mut Option<Self::States>;
    fn new(states: Self::States) -> Self;
}

/// `blind` / `blind_batch` of any client: the blinded elements into `single` (one input) or
/// `list` (a batch), the state into `state`.
fn blind_with<C: Blinder, H: Slot<States = C::States>>(
    client: *const C,
    inputs: R<Vec<&[u8]>>,
    single: Option<*mut pt_buffer>,
    list: Option<*mut pt_buffer_list>,
    state: *mut *mut H,
) -> pt_status {
    guard(|| {
        let outputs = [
            single.map_or(core::ptr::null_mut(), |p| p.cast()),
            list.map_or(core::ptr::null_mut(), |p| p.cast()),
            state.cast(),
        ];
        let (one, many, st) = (
            single.map(out_buffer).transpose(),
            list.map(out_list).transpose(),
            out_handle(state),
        );
        let (one, many, st) = (one?, many?, st?);
        distinct(&outputs)?;
        // SAFETY: a live client handle (header contract).
        let c = unsafe { handle(client) }?;
        let (elements, states) = c.blind_inputs(&inputs?)?;
        match (one, many) {
            (Some(o), _) => *o = pt_buffer::new(&elements[0]),
            (None, Some(l)) => *l = pt_buffer_list::new(elements),
            (None, None) => {}
        }
        st.set(H::new(states));
        Ok(())
    })
}

/// `finalize` / `finalize_batch` of any state: decodes before consuming (a malformed answer
/// leaves the state usable), then consumes it whatever the outcome.
fn finalize_with<H: Slot>(
    state: *mut H,
    evaluated: &[&[u8]],
    proof: &[u8],
    single: bool,
) -> R<Outputs> {
    // SAFETY: a live state handle used by no other thread (header contract).
    let h = unsafe { handle_mut(state) }?;
    let slot = h.slot();
    let st = slot.as_ref().ok_or(Fail(PT_STATE_CONSUMED))?;
    if (single && st.count() != 1) || evaluated.len() != st.count() {
        return Err(Error::Batch.into());
    }
    st.check(evaluated, proof)?;
    take_wiped(slot)
        .ok_or(Fail(PT_STATE_CONSUMED))?
        .finish(evaluated, proof)
}

/// The exported `finalize` body: one evaluated element, one output.
///
/// # Safety
/// Pointer arguments as the header states.
unsafe fn finalize_one<H: Slot>(
    state: *mut H,
    evaluated: *const u8,
    evaluated_len: usize,
    proof: *const u8,
    proof_len: usize,
    output: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(output)?;
        // SAFETY: both `(ptr, len)` pairs are readable for the call (header contract).
        let (e, p) = unsafe { (bytes(evaluated, evaluated_len)?, bytes(proof, proof_len)?) };
        let out = finalize_with(state, &[e], p, true)?;
        *o = pt_buffer::new(&out[0]);
        Ok(())
    })
}

/// The exported `finalize_batch` body: one output per evaluated element.
///
/// # Safety
/// Pointer arguments as the header states.
unsafe fn finalize_many<H: Slot>(
    state: *mut H,
    evaluated: *const pt_slice,
    count: usize,
    proof: *const u8,
    proof_len: usize,
    outputs_out: *mut pt_buffer_list,
) -> pt_status {
    guard(|| {
        let o = out_list(outputs_out)?;
        // SAFETY: the slices and the proof are readable for the call (header contract).
        let (e, p) = unsafe {
            (
                slices(evaluated, count, MAX_BATCH)?,
                bytes(proof, proof_len)?,
            )
        };
        *o = pt_buffer_list::new(finalize_with(state, &e, p, false)?);
        Ok(())
    })
}

/// The input of `blind`, as a batch of one.
///
/// # Safety
/// `(input, len)` readable for the call.
unsafe fn one_input<'a>(input: *const u8, len: usize) -> R<Vec<&'a [u8]>> {
    // SAFETY: readable for the call (caller contract).
    Ok(vec![unsafe { bytes(input, len) }?])
}

/// The inputs of `blind_batch`.
///
/// # Safety
/// `(inputs, count)` readable for the call.
unsafe fn batch_inputs<'a>(inputs: *const pt_slice, count: usize) -> R<Vec<&'a [u8]>> {
    // SAFETY: readable for the call (caller contract).
    unsafe { slices(inputs, count, MAX_BATCH) }
}

/// The secret blinds of `pt_oprf_client_blind` / `_blind_batch`, until finalized (one-shot: a
/// second finalize is `PT_STATE_CONSUMED`). `pt_oprf_client_state_free` wipes them. Thread
/// safety: one thread at a time.
pub struct pt_oprf_client_state {
    inner: Option<OprfStates>,
}

/// The secret blinds of `pt_voprf_client_blind` / `_blind_batch`, until finalized.
/// `pt_voprf_client_state_free` wipes them. Thread safety: one thread at a time.
pub struct pt_voprf_client_state {
    inner: Option<VoprfStates>,
}

/// The secret blinds of `pt_poprf_client_blind` / `_blind_batch`, until finalized.
/// `pt_poprf_client_state_free` wipes them. Thread safety: one thread at a time.
pub struct pt_poprf_client_state {
    inner: Option<PoprfStates>,
}

/// [`Slot`] for a state handle.
macro_rules! slot {
    ($name:ident, $States:ident) => {
        impl Slot for $name {
            type States = $States;
            fn slot(&mut self) -> &mut Option<$States> {
                &mut self.inner
            }
            fn new(states: $States) -> Self {
                Self {
                    inner: Some(states),
                }
            }
        }
    };
}

slot!(pt_oprf_client_state, OprfStates);
slot!(pt_voprf_client_state, VoprfStates);
slot!(pt_poprf_client_state, PoprfStates);

// ---------------------------------------------------------------------------------------------
// OPRF

/// The client of the base mode (RFC 9497 §3.3.1): no proof, no server key. Public data,
/// read-only: any number of threads may use it at once.
pub struct pt_oprf_client {
    suite: SuiteId,
}

impl Blinder for pt_oprf_client {
    type States = OprfStates;
    fn blind_inputs(&self, inputs: &[&[u8]]) -> R<(Vec<Vec<u8>>, OprfStates)> {
        let mut rng = rng()?;
        let mut elements = Vec::new();
        let st = build!(self.suite, OprfStates, S => {
            pending(inputs, |i| OprfClient::<S>::blind(i, &mut rng)).map(|(e, p)| {
                elements = e;
                p
            })
        });
        Ok((elements, st))
    }
}

impl Finalizer for OprfStates {
    fn count(&self) -> usize {
        each!(self, OprfStates, p, S => p.clients.len())
    }
    fn check(&self, evaluated: &[&[u8]], _proof: &[u8]) -> R {
        each!(self, OprfStates, p, S => decode_evaluated::<S>(evaluated, p.clients.len()).map(drop))
    }
    fn finish(self, evaluated: &[&[u8]], _proof: &[u8]) -> R<Outputs> {
        each!(self, OprfStates, p, S => {
            let ev = decode_evaluated::<S>(evaluated, p.clients.len())?;
            let Pending { clients, inputs } = p;
            let mut outs = Vec::with_capacity(ev.len());
            for ((c, e), i) in clients.into_iter().zip(&ev).zip(&inputs) {
                outs.push(Zeroizing::new(c.finalize(i, e)?.to_vec()));
            }
            Ok(outs)
        })
    }
}

/// A base-mode client for `suite` (`PT_SUITE_*`; `PT_INVALID_ARGUMENT` for another value).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_client_new(
    suite_id: u32,
    out: *mut *mut pt_oprf_client,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        o.set(pt_oprf_client {
            suite: suite(suite_id)?,
        });
        Ok(())
    })
}

/// Frees an OPRF client.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_client_free(handle: *mut pt_oprf_client) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

/// `Blind(input)`: the blinded element to send, and the state to keep. `PT_INPUT_TOO_LONG`
/// for an input of 65536 bytes or more, `PT_INVALID_INPUT` if it hashes to the identity.
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_client_blind(
    client: *const pt_oprf_client,
    input: *const u8,
    input_len: usize,
    blinded_element: *mut pt_buffer,
    state: *mut *mut pt_oprf_client_state,
) -> pt_status {
    // SAFETY: `(input, input_len)` is readable for the call (header contract).
    let i = unsafe { one_input(input, input_len) };
    blind_with(client, i, Some(blinded_element), None, state)
}

/// `Blind` of each of `count` inputs (1 to 65535, else `PT_BATCH`), for one batched evaluation.
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_client_blind_batch(
    client: *const pt_oprf_client,
    inputs: *const pt_slice,
    count: usize,
    blinded_elements: *mut pt_buffer_list,
    state: *mut *mut pt_oprf_client_state,
) -> pt_status {
    // SAFETY: `(inputs, count)` is readable for the call (header contract).
    let i = unsafe { batch_inputs(inputs, count) };
    blind_with(client, i, None, Some(blinded_elements), state)
}

/// `Finalize` after `pt_oprf_client_blind`: the PRF output (`Nh` bytes, **secret**) from the
/// server's evaluated element. A malformed element leaves the state usable; `PT_BATCH` after
/// `_blind_batch` (use `_finalize_batch`).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_client_state_finalize(
    state: *mut pt_oprf_client_state,
    evaluated_element: *const u8,
    evaluated_element_len: usize,
    output: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        finalize_one(
            state,
            evaluated_element,
            evaluated_element_len,
            core::ptr::null(),
            0,
            output,
        )
    }
}

/// `Finalize` of a batch: one output per input, given one evaluated element per input
/// (`PT_BATCH` for another count).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_client_state_finalize_batch(
    state: *mut pt_oprf_client_state,
    evaluated_elements: *const pt_slice,
    count: usize,
    outputs_out: *mut pt_buffer_list,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        finalize_many(
            state,
            evaluated_elements,
            count,
            core::ptr::null(),
            0,
            outputs_out,
        )
    }
}

/// Frees (and wipes) an OPRF client state.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_client_state_free(handle: *mut pt_oprf_client_state) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

// ---------------------------------------------------------------------------------------------
// VOPRF

/// The client of the verifiable mode (RFC 9497 §3.3.2): checks the server's proof against its
/// public key. Public data, read-only: any number of threads may use it at once.
pub struct pt_voprf_client {
    pk: PublicKeys,
}

fn public_key(suite_id: u32, b: &[u8]) -> R<PublicKeys> {
    Ok(build!(suite(suite_id)?, PublicKeys, S => PublicKey::<S>::from_bytes(b)))
}

impl Blinder for pt_voprf_client {
    type States = VoprfStates;
    fn blind_inputs(&self, inputs: &[&[u8]]) -> R<(Vec<Vec<u8>>, VoprfStates)> {
        let mut rng = rng()?;
        let mut elements = Vec::new();
        let st = keyed!(&self.pk, VoprfStates, S, pk => {
            pending(inputs, |i| VoprfClient::<S>::blind(i, &mut rng)).map(|(e, p)| {
                elements = e;
                (p, *pk)
            })
        });
        Ok((elements, st))
    }
}

impl Finalizer for VoprfStates {
    fn count(&self) -> usize {
        each!(self, VoprfStates, p, S => p.0.clients.len())
    }
    fn check(&self, evaluated: &[&[u8]], proof: &[u8]) -> R {
        each!(self, VoprfStates, p, S => {
            decode_evaluated::<S>(evaluated, p.0.clients.len())?;
            Proof::<S>::from_bytes(proof)?;
            Ok(())
        })
    }
    fn finish(self, evaluated: &[&[u8]], proof: &[u8]) -> R<Outputs> {
        each!(self, VoprfStates, p, S => {
            let (p, pk) = p;
            let ev = decode_evaluated::<S>(evaluated, p.clients.len())?;
            let proof = Proof::<S>::from_bytes(proof)?;
            let Pending { clients, inputs } = p;
            Ok(outputs(VoprfClient::finalize_batch(clients, &refs(&inputs), &ev, &proof, &pk)?))
        })
    }
}

/// A verifiable-mode client for `suite` and the server's serialized public key (decoding codes
/// for a bad key).
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_client_new(
    suite_id: u32,
    public_key_in: *const u8,
    public_key_len: usize,
    out: *mut *mut pt_voprf_client,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(public_key_in, public_key_len)` is readable for the call (header contract).
        let b = unsafe { bytes(public_key_in, public_key_len) }?;
        o.set(pt_voprf_client {
            pk: public_key(suite_id, b)?,
        });
        Ok(())
    })
}

/// Frees a VOPRF client.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_client_free(handle: *mut pt_voprf_client) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

/// `Blind(input)`, as `pt_oprf_client_blind`.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_client_blind(
    client: *const pt_voprf_client,
    input: *const u8,
    input_len: usize,
    blinded_element: *mut pt_buffer,
    state: *mut *mut pt_voprf_client_state,
) -> pt_status {
    // SAFETY: `(input, input_len)` is readable for the call (header contract).
    let i = unsafe { one_input(input, input_len) };
    blind_with(client, i, Some(blinded_element), None, state)
}

/// `Blind` of each input, as `pt_oprf_client_blind_batch`.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_client_blind_batch(
    client: *const pt_voprf_client,
    inputs: *const pt_slice,
    count: usize,
    blinded_elements: *mut pt_buffer_list,
    state: *mut *mut pt_voprf_client_state,
) -> pt_status {
    // SAFETY: `(inputs, count)` is readable for the call (header contract).
    let i = unsafe { batch_inputs(inputs, count) };
    blind_with(client, i, None, Some(blinded_elements), state)
}

/// `Finalize` after `pt_voprf_client_blind`: verifies the proof, then the output (**secret**).
/// `PT_INVALID_PROOF` when the proof fails (the state is then consumed); a malformed element or
/// proof leaves it usable.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_client_state_finalize(
    state: *mut pt_voprf_client_state,
    evaluated_element: *const u8,
    evaluated_element_len: usize,
    proof: *const u8,
    proof_len: usize,
    output: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        finalize_one(
            state,
            evaluated_element,
            evaluated_element_len,
            proof,
            proof_len,
            output,
        )
    }
}

/// `Finalize` of a batch with its one proof.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_client_state_finalize_batch(
    state: *mut pt_voprf_client_state,
    evaluated_elements: *const pt_slice,
    count: usize,
    proof: *const u8,
    proof_len: usize,
    outputs_out: *mut pt_buffer_list,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        finalize_many(
            state,
            evaluated_elements,
            count,
            proof,
            proof_len,
            outputs_out,
        )
    }
}

/// Frees (and wipes) a VOPRF client state.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_client_state_free(handle: *mut pt_voprf_client_state) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

// ---------------------------------------------------------------------------------------------
// POPRF

/// The client of the partially oblivious mode (RFC 9497 §3.3.3): a public `info` both sides
/// know, and the proof checked against the key tweaked by it. Public data, read-only: any number
/// of threads may use it at once.
pub struct pt_poprf_client {
    pk: PublicKeys,
    info: Vec<u8>,
}

impl Blinder for pt_poprf_client {
    type States = PoprfStates;
    fn blind_inputs(&self, inputs: &[&[u8]]) -> R<(Vec<Vec<u8>>, PoprfStates)> {
        let mut rng = rng()?;
        let mut elements = Vec::new();
        let info = &self.info;
        let st = keyed!(&self.pk, PoprfStates, S, pk => {
            pending(inputs, |i| PoprfClient::<S>::blind(i, info, pk, &mut rng)).map(|(e, p)| {
                elements = e;
                (p, info.clone())
            })
        });
        Ok((elements, st))
    }
}

impl Finalizer for PoprfStates {
    fn count(&self) -> usize {
        each!(self, PoprfStates, p, S => p.0.clients.len())
    }
    fn check(&self, evaluated: &[&[u8]], proof: &[u8]) -> R {
        each!(self, PoprfStates, p, S => {
            decode_evaluated::<S>(evaluated, p.0.clients.len())?;
            Proof::<S>::from_bytes(proof)?;
            Ok(())
        })
    }
    fn finish(self, evaluated: &[&[u8]], proof: &[u8]) -> R<Outputs> {
        each!(self, PoprfStates, p, S => {
            let (p, info) = p;
            let ev = decode_evaluated::<S>(evaluated, p.clients.len())?;
            let proof = Proof::<S>::from_bytes(proof)?;
            let Pending { clients, inputs } = p;
            Ok(outputs(PoprfClient::finalize_batch(
                clients,
                &refs(&inputs),
                &info,
                &ev,
                &proof,
            )?))
        })
    }
}

/// A partially oblivious client for `suite`, the server's public key and the public `info`
/// (`PT_INPUT_TOO_LONG` at blind time for an info of 65536 bytes or more).
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_client_new(
    suite_id: u32,
    public_key_in: *const u8,
    public_key_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut *mut pt_poprf_client,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: both `(ptr, len)` pairs are readable for the call (header contract).
        let (k, i) = unsafe {
            (
                bytes(public_key_in, public_key_len)?,
                bytes(info, info_len)?,
            )
        };
        o.set(pt_poprf_client {
            pk: public_key(suite_id, k)?,
            info: i.to_vec(),
        });
        Ok(())
    })
}

/// Frees a POPRF client.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_client_free(handle: *mut pt_poprf_client) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

/// `Blind(input, info)`, as `pt_oprf_client_blind`.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_client_blind(
    client: *const pt_poprf_client,
    input: *const u8,
    input_len: usize,
    blinded_element: *mut pt_buffer,
    state: *mut *mut pt_poprf_client_state,
) -> pt_status {
    // SAFETY: `(input, input_len)` is readable for the call (header contract).
    let i = unsafe { one_input(input, input_len) };
    blind_with(client, i, Some(blinded_element), None, state)
}

/// `Blind` of each input, as `pt_oprf_client_blind_batch`.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_client_blind_batch(
    client: *const pt_poprf_client,
    inputs: *const pt_slice,
    count: usize,
    blinded_elements: *mut pt_buffer_list,
    state: *mut *mut pt_poprf_client_state,
) -> pt_status {
    // SAFETY: `(inputs, count)` is readable for the call (header contract).
    let i = unsafe { batch_inputs(inputs, count) };
    blind_with(client, i, None, Some(blinded_elements), state)
}

/// `Finalize` with the client's `info`, as `pt_voprf_client_state_finalize`.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_client_state_finalize(
    state: *mut pt_poprf_client_state,
    evaluated_element: *const u8,
    evaluated_element_len: usize,
    proof: *const u8,
    proof_len: usize,
    output: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        finalize_one(
            state,
            evaluated_element,
            evaluated_element_len,
            proof,
            proof_len,
            output,
        )
    }
}

/// `Finalize` of a batch, as `pt_voprf_client_state_finalize_batch`.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_client_state_finalize_batch(
    state: *mut pt_poprf_client_state,
    evaluated_elements: *const pt_slice,
    count: usize,
    proof: *const u8,
    proof_len: usize,
    outputs_out: *mut pt_buffer_list,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        finalize_many(
            state,
            evaluated_elements,
            count,
            proof,
            proof_len,
            outputs_out,
        )
    }
}

/// Frees (and wipes) a POPRF client state.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_client_state_free(handle: *mut pt_poprf_client_state) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

// ---------------------------------------------------------------------------------------------
// Servers: key management shared by the three modes

/// A mode's server key management.
trait ServerKeys: Sized + Handle {
    fn generate(suite: SuiteId) -> R<Self>;
    fn from_secret_key(suite: SuiteId, sk: &[u8]) -> R<Self>;
    fn derive(suite: SuiteId, seed: &[u8], info: &[u8]) -> R<Self>;
    fn secret_key(&self) -> Zeroizing<Vec<u8>>;
}

macro_rules! server_keys {
    ($Handle:ident, $Enum:ident, $Lib:ident) => {
        impl ServerKeys for $Handle {
            fn generate(id: SuiteId) -> R<Self> {
                let mut rng = rng()?;
                Ok($Handle {
                    inner: build!(id, $Enum, S => R::Ok($Lib::<S>::new(&mut rng))),
                })
            }
            fn from_secret_key(id: SuiteId, sk: &[u8]) -> R<Self> {
                Ok($Handle {
                    inner: build!(id, $Enum, S =>
                        R::Ok($Lib::from_secret_key(SecretKey::<S>::from_bytes(sk)?))),
                })
            }
            fn derive(id: SuiteId, seed: &[u8], info: &[u8]) -> R<Self> {
                Ok($Handle {
                    inner: build!(id, $Enum, S => R::Ok($Lib::<S>::derive(seed, info)?)),
                })
            }
            fn secret_key(&self) -> Zeroizing<Vec<u8>> {
                each!(&self.inner, $Enum, s, S =>
                    Zeroizing::new(s.secret_key().to_bytes().as_slice().to_vec()))
            }
        }
    };
}

/// `generate`: a server with a fresh random key for `suite`.
fn server_generate<H: ServerKeys>(suite_id: u32, out: *mut *mut H) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        o.set(H::generate(suite(suite_id)?)?);
        Ok(())
    })
}

/// `from_secret_key`: a server from its serialized secret key.
///
/// # Safety
/// `(sk, len)` readable for the call.
unsafe fn server_from_secret_key<H: ServerKeys>(
    suite_id: u32,
    sk: *const u8,
    len: usize,
    out: *mut *mut H,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(sk, len)` is readable for the call (caller contract).
        let b = unsafe { bytes(sk, len) }?;
        o.set(H::from_secret_key(suite(suite_id)?, b)?);
        Ok(())
    })
}

/// `derive`: `DeriveKeyPair(seed, info)` in the server's mode (RFC 9497 §3.2.1).
///
/// # Safety
/// Both `(ptr, len)` pairs readable for the call.
unsafe fn server_derive<H: ServerKeys>(
    suite_id: u32,
    seed: *const u8,
    seed_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut *mut H,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: both pairs are readable for the call (caller contract).
        let (s, i) = unsafe { (bytes(seed, seed_len)?, bytes(info, info_len)?) };
        o.set(H::derive(suite(suite_id)?, s, i)?);
        Ok(())
    })
}

/// One blinded element, decoded for suite `S`.
fn blinded<S: Suite>(b: &[u8]) -> R<BlindedElement<S>> {
    Ok(BlindedElement::<S>::from_bytes(b)?)
}

/// The body of a `blind_evaluate`: `f` on the server and the blinded element, its element
/// (and proof, when `proof` is given) stored.
///
/// # Safety
/// `(b, len)` readable for the call; `server` a live handle.
unsafe fn evaluate_one<H: Handle>(
    server: *const H,
    b: *const u8,
    len: usize,
    element: *mut pt_buffer,
    proof: Option<*mut pt_buffer>,
    f: impl FnOnce(&H, &[u8]) -> R<(Vec<u8>, Vec<u8>)>,
) -> pt_status {
    guard(|| {
        let outputs = [
            element.cast(),
            proof.map_or(core::ptr::null_mut(), |p| p.cast()),
        ];
        let (e, p) = (out_buffer(element), proof.map(out_buffer).transpose());
        let (e, p) = (e?, p?);
        distinct(&outputs)?;
        // SAFETY: a live server handle; `(b, len)` readable (header contract).
        let (s, blind) = unsafe { (handle(server)?, bytes(b, len)?) };
        let (ev, pr) = f(s, blind)?;
        *e = pt_buffer::new(&ev);
        if let Some(p) = p {
            *p = pt_buffer::new(&pr);
        }
        Ok(())
    })
}

/// The body of a `blind_evaluate_batch`, as [`evaluate_one`] for a list of elements.
///
/// # Safety
/// `(items, count)` readable for the call; `server` a live handle.
unsafe fn evaluate_many<H: Handle>(
    server: *const H,
    items: *const pt_slice,
    count: usize,
    elements: *mut pt_buffer_list,
    proof: Option<*mut pt_buffer>,
    f: impl FnOnce(&H, &[&[u8]]) -> R<(Vec<Vec<u8>>, Vec<u8>)>,
) -> pt_status {
    guard(|| {
        let outputs = [
            elements.cast(),
            proof.map_or(core::ptr::null_mut(), |p| p.cast()),
        ];
        let (e, p) = (out_list(elements), proof.map(out_buffer).transpose());
        let (e, p) = (e?, p?);
        distinct(&outputs)?;
        // SAFETY: a live server handle; the slices readable (header contract).
        let (s, list) = unsafe { (handle(server)?, slices(items, count, MAX_BATCH)?) };
        let (ev, pr) = f(s, &list)?;
        *e = pt_buffer_list::new(ev);
        if let Some(p) = p {
            *p = pt_buffer::new(&pr);
        }
        Ok(())
    })
}

/// The body of an `evaluate`: the PRF output (secret) of `f`.
///
/// # Safety
/// `(input, len)` readable for the call; `server` a live handle.
unsafe fn evaluate_direct<H: Handle>(
    server: *const H,
    input: *const u8,
    len: usize,
    output: *mut pt_buffer,
    f: impl FnOnce(&H, &[u8]) -> R<Zeroizing<Vec<u8>>>,
) -> pt_status {
    guard(|| {
        let o = out_buffer(output)?;
        // SAFETY: a live server handle; `(input, len)` readable (header contract).
        let (s, i) = unsafe { (handle(server)?, bytes(input, len)?) };
        *o = pt_buffer::new(&f(s, i)?);
        Ok(())
    })
}

fn element_bytes<E: AsRef<[u8]>>(e: E) -> Vec<u8> {
    e.as_ref().to_vec()
}

// ---------------------------------------------------------------------------------------------
// OPRF server

/// The server of the base mode: `BlindEvaluate` without a proof. Holds the secret key:
/// `pt_oprf_server_free` wipes it. Read-only after creation: any number of threads may use it
/// at once.
pub struct pt_oprf_server {
    inner: OprfServers,
}

server_keys!(pt_oprf_server, OprfServers, OprfServer);

/// A base-mode server with a fresh random key for `suite`.
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_generate(
    suite_id: u32,
    out: *mut *mut pt_oprf_server,
) -> pt_status {
    server_generate(suite_id, out)
}

/// A base-mode server from its serialized secret key (`pt_oprf_server_secret_key`'s bytes).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_from_secret_key(
    suite_id: u32,
    secret_key: *const u8,
    secret_key_len: usize,
    out: *mut *mut pt_oprf_server,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe { server_from_secret_key(suite_id, secret_key, secret_key_len, out) }
}

/// `DeriveKeyPair(seed, info)` in OPRF mode (RFC 9497 §3.2.1).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_derive(
    suite_id: u32,
    seed: *const u8,
    seed_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut *mut pt_oprf_server,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe { server_derive(suite_id, seed, seed_len, info, info_len, out) }
}

/// The secret key's bytes, **secret**.
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_secret_key(
    server: *const pt_oprf_server,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(server, out, |s| Ok(s.secret_key()))
}

/// `BlindEvaluate`: the evaluated element for one blinded element.
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_blind_evaluate(
    server: *const pt_oprf_server,
    blinded_element: *const u8,
    blinded_element_len: usize,
    evaluated_element: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_one(
            server,
            blinded_element,
            blinded_element_len,
            evaluated_element,
            None,
            |s, b| {
                each!(&s.inner, OprfServers, x, S => {
                    Ok((element_bytes(x.blind_evaluate(&blinded::<S>(b)?).to_bytes()), Vec::new()))
                })
            },
        )
    }
}

/// `BlindEvaluate` of each of `count` blinded elements (1 to 65535).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_blind_evaluate_batch(
    server: *const pt_oprf_server,
    blinded_elements: *const pt_slice,
    count: usize,
    evaluated_elements: *mut pt_buffer_list,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_many(
            server,
            blinded_elements,
            count,
            evaluated_elements,
            None,
            |s, l| {
                each!(&s.inner, OprfServers, x, S => {
                    let ev = x.blind_evaluate_batch(&decode_blinded::<S>(l)?)?;
                    Ok((ev.iter().map(|e| element_bytes(e.to_bytes())).collect(), Vec::new()))
                })
            },
        )
    }
}

/// `Evaluate(input)`: the PRF output (**secret**) computed with the key directly.
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_evaluate(
    server: *const pt_oprf_server,
    input: *const u8,
    input_len: usize,
    output: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_direct(
            server,
            input,
            input_len,
            output,
            |s, i| each!(&s.inner, OprfServers, x, S => Ok(Zeroizing::new(x.evaluate(i)?.to_vec()))),
        )
    }
}

/// Frees (and wipes) an OPRF server.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_oprf_server_free(handle: *mut pt_oprf_server) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

// ---------------------------------------------------------------------------------------------
// VOPRF server

/// The server of the verifiable mode: `BlindEvaluate` with a DLEQ proof. Holds the secret key:
/// `pt_voprf_server_free` wipes it. Read-only after creation: any number of threads may use it
/// at once.
pub struct pt_voprf_server {
    inner: VoprfServers,
}

server_keys!(pt_voprf_server, VoprfServers, VoprfServer);

/// A verifiable-mode server with a fresh random key for `suite`.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_generate(
    suite_id: u32,
    out: *mut *mut pt_voprf_server,
) -> pt_status {
    server_generate(suite_id, out)
}

/// A verifiable-mode server from its serialized secret key.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_from_secret_key(
    suite_id: u32,
    secret_key: *const u8,
    secret_key_len: usize,
    out: *mut *mut pt_voprf_server,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe { server_from_secret_key(suite_id, secret_key, secret_key_len, out) }
}

/// `DeriveKeyPair(seed, info)` in VOPRF mode (RFC 9497 §3.2.1).
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_derive(
    suite_id: u32,
    seed: *const u8,
    seed_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut *mut pt_voprf_server,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe { server_derive(suite_id, seed, seed_len, info, info_len, out) }
}

/// The secret key's bytes, **secret**.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_secret_key(
    server: *const pt_voprf_server,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(server, out, |s| Ok(s.secret_key()))
}

/// The public key clients verify proofs with.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_public_key(
    server: *const pt_voprf_server,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(server, out, |s| {
        Ok(each!(&s.inner, VoprfServers, x, S => element_bytes(x.public_key().to_bytes())))
    })
}

/// `BlindEvaluate`: the evaluated element and its proof.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_blind_evaluate(
    server: *const pt_voprf_server,
    blinded_element: *const u8,
    blinded_element_len: usize,
    evaluated_element: *mut pt_buffer,
    proof: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_one(
            server,
            blinded_element,
            blinded_element_len,
            evaluated_element,
            Some(proof),
            |s, b| {
                let mut rng = rng()?;
                each!(&s.inner, VoprfServers, x, S => {
                    let e = x.blind_evaluate(&mut rng, &blinded::<S>(b)?)?;
                    Ok((element_bytes(e.message.to_bytes()), element_bytes(e.proof.to_bytes())))
                })
            },
        )
    }
}

/// Batched `BlindEvaluate`: one evaluated element per blinded element, one proof for the batch.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_blind_evaluate_batch(
    server: *const pt_voprf_server,
    blinded_elements: *const pt_slice,
    count: usize,
    evaluated_elements: *mut pt_buffer_list,
    proof: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_many(
            server,
            blinded_elements,
            count,
            evaluated_elements,
            Some(proof),
            |s, l| {
                let mut rng = rng()?;
                each!(&s.inner, VoprfServers, x, S => {
                    let e = x.blind_evaluate_batch(&mut rng, &decode_blinded::<S>(l)?)?;
                    Ok((
                        e.messages.iter().map(|m| element_bytes(m.to_bytes())).collect(),
                        element_bytes(e.proof.to_bytes()),
                    ))
                })
            },
        )
    }
}

/// `Evaluate(input)`: the PRF output (**secret**) computed with the key directly.
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_evaluate(
    server: *const pt_voprf_server,
    input: *const u8,
    input_len: usize,
    output: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_direct(
            server,
            input,
            input_len,
            output,
            |s, i| each!(&s.inner, VoprfServers, x, S => Ok(Zeroizing::new(x.evaluate(i)?.to_vec()))),
        )
    }
}

/// Frees (and wipes) a VOPRF server.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_voprf_server_free(handle: *mut pt_voprf_server) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}

// ---------------------------------------------------------------------------------------------
// POPRF server

/// The server of the partially oblivious mode. Holds the secret key: `pt_poprf_server_free`
/// wipes it. Read-only after creation: any number of threads may use it at once.
pub struct pt_poprf_server {
    inner: PoprfServers,
}

server_keys!(pt_poprf_server, PoprfServers, PoprfServer);

/// A partially oblivious server with a fresh random key for `suite`.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_generate(
    suite_id: u32,
    out: *mut *mut pt_poprf_server,
) -> pt_status {
    server_generate(suite_id, out)
}

/// A partially oblivious server from its serialized secret key.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_from_secret_key(
    suite_id: u32,
    secret_key: *const u8,
    secret_key_len: usize,
    out: *mut *mut pt_poprf_server,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe { server_from_secret_key(suite_id, secret_key, secret_key_len, out) }
}

/// `DeriveKeyPair(seed, info)` in POPRF mode (RFC 9497 §3.2.1).
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_derive(
    suite_id: u32,
    seed: *const u8,
    seed_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut *mut pt_poprf_server,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe { server_derive(suite_id, seed, seed_len, info, info_len, out) }
}

/// The secret key's bytes, **secret**.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_secret_key(
    server: *const pt_poprf_server,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(server, out, |s| Ok(s.secret_key()))
}

/// The public key.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_public_key(
    server: *const pt_poprf_server,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(server, out, |s| {
        Ok(each!(&s.inner, PoprfServers, x, S => element_bytes(x.public_key().to_bytes())))
    })
}

/// `BlindEvaluate(blinded_element, info)`: the evaluated element and its proof.
/// `PT_INVERSE` when `skS + m == 0` for this `info` (rotate the key).
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_blind_evaluate(
    server: *const pt_poprf_server,
    blinded_element: *const u8,
    blinded_element_len: usize,
    info: *const u8,
    info_len: usize,
    evaluated_element: *mut pt_buffer,
    proof: *mut pt_buffer,
) -> pt_status {
    // SAFETY: `(info, info_len)` is readable for the call (header contract).
    let info = unsafe { bytes(info, info_len) };
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_one(
            server,
            blinded_element,
            blinded_element_len,
            evaluated_element,
            Some(proof),
            |s, b| {
                let info = info?;
                let mut rng = rng()?;
                each!(&s.inner, PoprfServers, x, S => {
                    let e = x.blind_evaluate(&mut rng, &blinded::<S>(b)?, info)?;
                    Ok((element_bytes(e.message.to_bytes()), element_bytes(e.proof.to_bytes())))
                })
            },
        )
    }
}

/// Batched `BlindEvaluate(blinded_elements, info)`: one proof for the batch.
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_blind_evaluate_batch(
    server: *const pt_poprf_server,
    blinded_elements: *const pt_slice,
    count: usize,
    info: *const u8,
    info_len: usize,
    evaluated_elements: *mut pt_buffer_list,
    proof: *mut pt_buffer,
) -> pt_status {
    // SAFETY: `(info, info_len)` is readable for the call (header contract).
    let info = unsafe { bytes(info, info_len) };
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_many(
            server,
            blinded_elements,
            count,
            evaluated_elements,
            Some(proof),
            |s, l| {
                let info = info?;
                let mut rng = rng()?;
                each!(&s.inner, PoprfServers, x, S => {
                    let e = x.blind_evaluate_batch(&mut rng, &decode_blinded::<S>(l)?, info)?;
                    Ok((
                        e.messages.iter().map(|m| element_bytes(m.to_bytes())).collect(),
                        element_bytes(e.proof.to_bytes()),
                    ))
                })
            },
        )
    }
}

/// `Evaluate(input, info)`: the PRF output (**secret**).
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_evaluate(
    server: *const pt_poprf_server,
    input: *const u8,
    input_len: usize,
    info: *const u8,
    info_len: usize,
    output: *mut pt_buffer,
) -> pt_status {
    // SAFETY: `(info, info_len)` is readable for the call (header contract).
    let info = unsafe { bytes(info, info_len) };
    // SAFETY: forwarded caller contract.
    unsafe {
        evaluate_direct(server, input, input_len, output, |s, i| {
            let info = info?;
            each!(&s.inner, PoprfServers, x, S => Ok(Zeroizing::new(x.evaluate(i, info)?.to_vec())))
        })
    }
}

/// Frees (and wipes) a POPRF server.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_poprf_server_free(handle: *mut pt_poprf_server) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { free_handle(handle) }
}
