//! OPRF, VOPRF and POPRF (RFC 9497) on the five suites: `P256-SHA256`, `P384-SHA384`,
//! `P521-SHA512`, `ristretto255-SHA512`, `decaf448-SHAKE256` (the suites' RFC 9497 names).

use privacy_tokens::voprf::{
    BlindResult, BlindedElement, EvaluationElement, OprfClient as LibOprfClient,
    OprfServer as LibOprfServer, PoprfClient as LibPoprfClient, PoprfServer as LibPoprfServer,
    Proof, PublicKey, SecretKey, VoprfClient as LibVoprfClient, VoprfServer as LibVoprfServer,
};
use privacy_tokens::{
    Decaf448Shake256, Error, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite,
};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::{
    bad_arg, bytes, bytes_list, error, object, secret_bytes, secret_u8a, string, u8a, u8a_list,
    JsResult, OrThrow, STATE_CONSUMED,
};

/// The most elements one batch call takes (RFC 9497's batch limit).
pub const MAX_BATCH: usize = 0xffff;

/// One of the five suites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuiteId {
    /// `P256-SHA256`.
    P256,
    /// `P384-SHA384`.
    P384,
    /// `P521-SHA512`.
    P521,
    /// `ristretto255-SHA512`.
    Ristretto255,
    /// `decaf448-SHAKE256`.
    Decaf448,
}

/// The suite named by a JavaScript string (RFC 9497 identifiers, exactly).
pub fn suite_arg(v: &JsValue) -> JsResult<SuiteId> {
    let s = string(v, "suite")?;
    Ok(match s.as_bytes() {
        x if x == P256Sha256::ID => SuiteId::P256,
        x if x == P384Sha384::ID => SuiteId::P384,
        x if x == P521Sha512::ID => SuiteId::P521,
        x if x == Ristretto255Sha512::ID => SuiteId::Ristretto255,
        x if x == Decaf448Shake256::ID => SuiteId::Decaf448,
        _ => {
            return Err(bad_arg(
                "suite",
                "expected one of P256-SHA256, P384-SHA384, P521-SHA512, ristretto255-SHA512, \
                 decaf448-SHAKE256",
            ))
        }
    })
}

impl SuiteId {
    fn name(self) -> &'static str {
        let id = match self {
            SuiteId::P256 => P256Sha256::ID,
            SuiteId::P384 => P384Sha384::ID,
            SuiteId::P521 => P521Sha512::ID,
            SuiteId::Ristretto255 => Ristretto255Sha512::ID,
            SuiteId::Decaf448 => Decaf448Shake256::ID,
        };
        core::str::from_utf8(id).unwrap_or("")
    }
}

/// An enum with one variant per suite around `$t<S>`.
macro_rules! per_suite {
    ($(#[$m:meta])* $name:ident, $t:ident) => {
        $(#[$m])*
        pub(crate) enum $name {
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

/// The `$name` variant of suite `$id` holding `$body?` (a `JsResult`), with `$S` its suite.
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

/// The key management of a server class: `generate`, `fromSecretKey`, `derive` (in the class's
/// mode) and `secretKey()`.
macro_rules! server_keys {
    ($Js:ident, $Enum:ident, $Lib:ident, $mode:literal) => {
        #[wasm_bindgen]
        impl $Js {
            /// A server with a fresh random key for `suite`.
            pub fn generate(
                #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
            ) -> JsResult<$Js> {
                let suite = suite_arg(&suite)?;
                crate::with_rng(|rng| {
                    Ok($Js {
                        inner: build!(suite, $Enum, S => JsResult::Ok($Lib::<S>::new(&mut *rng))),
                    })
                })
            }

            /// A server from its serialized secret key (`secretKey()`'s bytes).
            #[wasm_bindgen(js_name = fromSecretKey)]
            pub fn from_secret_key(
                #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
                #[wasm_bindgen(js_name = secretKey, unchecked_param_type = "Uint8Array")]
                secret_key: JsValue,
            ) -> JsResult<$Js> {
                let sk = secret_bytes(&secret_key, "secretKey")?;
                Ok($Js {
                    inner: build!(suite_arg(&suite)?, $Enum, S =>
                        SecretKey::<S>::from_bytes(&sk).map($Lib::from_secret_key).or_throw()),
                })
            }

            #[doc = concat!("`DeriveKeyPair(seed, info)` in ", $mode, " mode (RFC 9497 §3.2.1).")]
            pub fn derive(
                #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
                #[wasm_bindgen(unchecked_param_type = "Uint8Array")] seed: JsValue,
                #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
            ) -> JsResult<$Js> {
                let seed = secret_bytes(&seed, "seed")?;
                let info = bytes(&info, "info")?;
                Ok($Js {
                    inner: build!(suite_arg(&suite)?, $Enum, S =>
                        $Lib::<S>::derive(&seed, &info).or_throw()),
                })
            }

            /// The secret key's bytes, **secret**: store them as any private key.
            #[wasm_bindgen(js_name = secretKey)]
            pub fn secret_key(&self) -> js_sys::Uint8Array {
                each!(&self.inner, $Enum, s, S => out(s.secret_key().to_bytes().as_slice()))
            }
        }
    };
}

/// `blind` and `blindBatch` of a client class, over its `blind_inputs`.
macro_rules! client_blind {
    ($Js:ident, $One:literal, $Batch:literal) => {
        #[wasm_bindgen]
        impl $Js {
            /// `Blind(input)`: `{ blindedElement, state }`; send `blindedElement`, keep `state`.
            #[wasm_bindgen(unchecked_return_type = $One)]
            pub fn blind(
                &self,
                #[wasm_bindgen(unchecked_param_type = "Uint8Array")] input: JsValue,
            ) -> JsResult<JsValue> {
                self.blind_inputs(single_list(&input)?, true)
            }

            /// `Blind` of each input: `{ blindedElements, state }`, for one batched evaluation.
            #[wasm_bindgen(js_name = blindBatch, unchecked_return_type = $Batch)]
            pub fn blind_batch(
                &self,
                #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] inputs: JsValue,
            ) -> JsResult<JsValue> {
                self.blind_inputs(inputs_arg(&inputs)?, false)
            }
        }
    };
}

// For `hazmat`, which builds the same classes from chosen blinds and nonces.
#[cfg(feature = "hazmat")]
pub(crate) use {build, each, keyed};

pub(crate) fn blinded_list<S: Suite>(v: &JsValue) -> JsResult<Vec<BlindedElement<S>>> {
    let list = bytes_list(v, "blindedElements", MAX_BATCH)?;
    if list.is_empty() {
        return Err(crate::lib_error(Error::Batch));
    }
    list.iter()
        .map(|b| BlindedElement::<S>::from_bytes(b).or_throw())
        .collect()
}

fn evaluated_list<S: Suite>(v: &JsValue, n: usize) -> JsResult<Vec<EvaluationElement<S>>> {
    let list = bytes_list(v, "evaluatedElements", MAX_BATCH)?;
    if list.len() != n {
        return Err(error(
            crate::code_of(Error::Batch),
            &format!("evaluatedElements: {} elements for {n} inputs", list.len()),
        ));
    }
    list.iter()
        .map(|b| EvaluationElement::<S>::from_bytes(b).or_throw())
        .collect()
}

fn inputs_arg(v: &JsValue) -> JsResult<Vec<Zeroizing<Vec<u8>>>> {
    let list = bytes_list(v, "inputs", MAX_BATCH)?;
    if list.is_empty() {
        return Err(crate::lib_error(Error::Batch));
    }
    Ok(list.into_iter().map(Zeroizing::new).collect())
}

fn consumed() -> JsValue {
    error(
        STATE_CONSUMED,
        "this state was already finalized; blind again",
    )
}

fn out<B: AsRef<[u8]>>(o: B) -> js_sys::Uint8Array {
    secret_u8a(&Zeroizing::new(o.as_ref().to_vec()))
}

fn outs<B: AsRef<[u8]>>(list: Vec<B>) -> JsValue {
    list.into_iter()
        .map(|o| JsValue::from(out(o)))
        .collect::<js_sys::Array>()
        .into()
}

/// A client's pending blinds: the clients and their inputs (kept, so `finalize` needs only the
/// server's answer).
pub(crate) struct Pending<C> {
    pub(crate) clients: Vec<C>,
    pub(crate) inputs: Vec<Zeroizing<Vec<u8>>>,
    pub(crate) single: bool,
}

type OprfPending<S> = Pending<LibOprfClient<S>>;
type VoprfPending<S> = (Pending<LibVoprfClient<S>>, PublicKey<S>);
type PoprfPending<S> = (Pending<LibPoprfClient<S>>, Vec<u8>);

per_suite!(OprfStates, OprfPending);
per_suite!(VoprfStates, VoprfPending);
per_suite!(PoprfStates, PoprfPending);
crate::state_zeroize!(OprfStates, VoprfStates, PoprfStates);
per_suite!(
    /// A public key of one of the suites.
    PublicKeys,
    PublicKey
);

pub(crate) fn blind_result(elements: Vec<Vec<u8>>, single: bool, state: JsValue) -> JsValue {
    if single {
        object(&[("blindedElement", u8a(&elements[0])), ("state", state)])
    } else {
        object(&[("blindedElements", u8a_list(elements)), ("state", state)])
    }
}

fn single_list(input: &JsValue) -> JsResult<Vec<Zeroizing<Vec<u8>>>> {
    Ok(vec![Zeroizing::new(bytes(input, "input")?)])
}

// ---------------------------------------------------------------------------------------------
// OPRF

/// The client of the base mode (RFC 9497 §3.3.1): no proof, no server key needed.
#[wasm_bindgen]
pub struct OprfClient {
    suite: SuiteId,
}

/// The secret blinds of `OprfClient.blind` / `blindBatch`, until `finalize`. `free()` wipes them.
#[wasm_bindgen]
pub struct OprfClientState {
    pub(crate) inner: Option<OprfStates>,
}

/// Blinds each input with `blind`: the blinded elements' encodings and the pending state.
pub(crate) fn pending<C, S: Suite>(
    inputs: Vec<Zeroizing<Vec<u8>>>,
    single: bool,
    mut blind: impl FnMut(&[u8]) -> privacy_tokens::Result<BlindResult<C, S>>,
) -> JsResult<(Vec<Vec<u8>>, Pending<C>)> {
    let mut clients = Vec::with_capacity(inputs.len());
    let mut elements = Vec::with_capacity(inputs.len());
    for i in &inputs {
        let r = blind(i).or_throw()?;
        elements.push(r.message.to_bytes().as_ref().to_vec());
        clients.push(r.state);
    }
    Ok((
        elements,
        Pending {
            clients,
            inputs,
            single,
        },
    ))
}

impl OprfClient {
    fn blind_inputs(&self, inputs: Vec<Zeroizing<Vec<u8>>>, single: bool) -> JsResult<JsValue> {
        crate::with_rng(|rng| {
            let mut elements = Vec::new();
            let inner = build!(self.suite, OprfStates, S => {
                pending(inputs, single, |i| LibOprfClient::<S>::blind(i, &mut *rng))
                    .map(|(e, p)| { elements = e; p })
            });
            Ok(blind_result(
                elements,
                single,
                OprfClientState { inner: Some(inner) }.into(),
            ))
        })
    }
}

client_blind!(
    OprfClient,
    "BlindResult<OprfClientState>",
    "BatchBlindResult<OprfClientState>"
);

#[wasm_bindgen]
impl OprfClient {
    /// A client for `suite` (`"P256-SHA256"`, `"P384-SHA384"`, `"P521-SHA512"`,
    /// `"ristretto255-SHA512"`, `"decaf448-SHAKE256"`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
    ) -> JsResult<OprfClient> {
        Ok(OprfClient {
            suite: suite_arg(&suite)?,
        })
    }

    /// The suite's name.
    #[wasm_bindgen(getter)]
    pub fn suite(&self) -> String {
        self.suite.name().into()
    }
}

#[wasm_bindgen]
impl OprfClientState {
    /// `Finalize`: the PRF output (`Nh` bytes) from the server's evaluated element, or one
    /// output per input (an array) after `blindBatch`, given an array of elements.
    #[wasm_bindgen(unchecked_return_type = "Uint8Array | Uint8Array[]")]
    pub fn finalize(
        &mut self,
        #[wasm_bindgen(js_name = evaluatedElement, unchecked_param_type = "Uint8Array | Uint8Array[]")]
        evaluated: JsValue,
    ) -> JsResult<JsValue> {
        let st = self.inner.as_ref().ok_or_else(consumed)?;
        let single = each!(st, OprfStates, p, S => p.single);
        let list = if single {
            js_sys::Array::of1(&evaluated).into()
        } else {
            evaluated
        };
        // Decode before consuming: a malformed answer leaves the state usable.
        each!(st, OprfStates, p, S => evaluated_list::<S>(&list, p.clients.len()).map(|_| ()))?;
        // Taken and finalized inside the wiped frame: a move out of the object is a stack copy.
        let outputs = crate::wiped(|| -> JsResult<_> {
            let st = crate::take_state(&mut self.inner).ok_or_else(consumed)?;
            Ok(each!(st, OprfStates, p, S => {
                let ev = evaluated_list::<S>(&list, p.clients.len())?;
                let Pending { clients, inputs, .. } = p;
                let mut outs = Vec::with_capacity(ev.len());
                for ((c, e), i) in clients.into_iter().zip(&ev).zip(&inputs) {
                    outs.push(c.finalize(i, e).or_throw()?.to_vec());
                }
                outs
            }))
        })?;
        Ok(if single {
            out(&outputs[0]).into()
        } else {
            outs(outputs)
        })
    }
}

per_suite!(OprfServers, LibOprfServer);

/// The server of the base mode: `BlindEvaluate` without a proof. Holds the secret key.
#[wasm_bindgen]
pub struct OprfServer {
    inner: OprfServers,
}

server_keys!(OprfServer, OprfServers, LibOprfServer, "OPRF");

#[wasm_bindgen]
impl OprfServer {
    /// `BlindEvaluate`: the evaluated element for one blinded element.
    #[wasm_bindgen(js_name = blindEvaluate)]
    pub fn blind_evaluate(
        &self,
        #[wasm_bindgen(js_name = blindedElement, unchecked_param_type = "Uint8Array")]
        blinded: JsValue,
    ) -> JsResult<Vec<u8>> {
        let b = bytes(&blinded, "blindedElement")?;
        each!(&self.inner, OprfServers, s, S => {
            let be = BlindedElement::<S>::from_bytes(&b).or_throw()?;
            Ok(s.blind_evaluate(&be).to_bytes().as_slice().to_vec())
        })
    }

    /// `BlindEvaluate` of each blinded element.
    #[wasm_bindgen(js_name = blindEvaluateBatch, unchecked_return_type = "Uint8Array[]")]
    pub fn blind_evaluate_batch(
        &self,
        #[wasm_bindgen(js_name = blindedElements, unchecked_param_type = "Uint8Array[]")]
        blinded: JsValue,
    ) -> JsResult<JsValue> {
        each!(&self.inner, OprfServers, s, S => {
            let be = blinded_list::<S>(&blinded)?;
            let ev = s.blind_evaluate_batch(&be).or_throw()?;
            Ok(u8a_list(ev.iter().map(|e| e.to_bytes())))
        })
    }

    /// `Evaluate(input)`: the PRF output computed with the key directly.
    pub fn evaluate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] input: JsValue,
    ) -> JsResult<js_sys::Uint8Array> {
        let i = Zeroizing::new(bytes(&input, "input")?);
        each!(&self.inner, OprfServers, s, S => Ok(out(s.evaluate(&i).or_throw()?)))
    }
}

// ---------------------------------------------------------------------------------------------
// VOPRF

pub(crate) fn public_key_arg(suite: SuiteId, v: &JsValue) -> JsResult<PublicKeys> {
    let b = bytes(v, "publicKey")?;
    Ok(build!(suite, PublicKeys, S => PublicKey::<S>::from_bytes(&b).or_throw()))
}

/// The client of the verifiable mode (RFC 9497 §3.3.2): checks the server's proof against its
/// public key.
#[wasm_bindgen]
pub struct VoprfClient {
    pk: PublicKeys,
}

/// The secret blinds of `VoprfClient.blind` / `blindBatch`, until `finalize`. `free()` wipes them.
#[wasm_bindgen]
pub struct VoprfClientState {
    pub(crate) inner: Option<VoprfStates>,
}

impl VoprfClient {
    fn blind_inputs(&self, inputs: Vec<Zeroizing<Vec<u8>>>, single: bool) -> JsResult<JsValue> {
        crate::with_rng(|rng| {
            let mut elements = Vec::new();
            let inner = keyed!(&self.pk, VoprfStates, S, pk => {
                pending(inputs, single, |i| LibVoprfClient::<S>::blind(i, &mut *rng))
                    .map(|(e, p)| { elements = e; (p, *pk) })
            });
            Ok(blind_result(
                elements,
                single,
                VoprfClientState { inner: Some(inner) }.into(),
            ))
        })
    }
}

client_blind!(
    VoprfClient,
    "BlindResult<VoprfClientState>",
    "BatchBlindResult<VoprfClientState>"
);

#[wasm_bindgen]
impl VoprfClient {
    /// A client for `suite` and the server's serialized public key.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
        #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
        public_key: JsValue,
    ) -> JsResult<VoprfClient> {
        Ok(VoprfClient {
            pk: public_key_arg(suite_arg(&suite)?, &public_key)?,
        })
    }
}

pub(crate) fn voprf_finalize(
    slot: &mut Option<VoprfStates>,
    evaluated: JsValue,
    proof: &JsValue,
) -> JsResult<JsValue> {
    let proof = bytes(proof, "proof")?;
    let st = slot.as_ref().ok_or_else(consumed)?;
    let single = each!(st, VoprfStates, p, S => p.0.single);
    let list: JsValue = if single {
        js_sys::Array::of1(&evaluated).into()
    } else {
        evaluated
    };
    each!(st, VoprfStates, p, S => {
        evaluated_list::<S>(&list, p.0.clients.len())?;
        Proof::<S>::from_bytes(&proof).or_throw()?;
    });
    // Taken and finalized inside the wiped frame: a move out of the object is a stack copy.
    let outputs = crate::wiped(|| -> JsResult<_> {
        let st = crate::take_state(slot).ok_or_else(consumed)?;
        Ok(each!(st, VoprfStates, p, S => {
            let (p, pk) = p;
            let ev = evaluated_list::<S>(&list, p.clients.len())?;
            let proof = Proof::<S>::from_bytes(&proof).or_throw()?;
            let Pending { clients, inputs, .. } = p;
            let refs: Vec<&[u8]> = inputs.iter().map(|i| i.as_slice()).collect();
            LibVoprfClient::finalize_batch(clients, &refs, &ev, &proof, &pk)
                .or_throw()?
                .into_iter()
                .map(|o| o.to_vec())
                .collect::<Vec<_>>()
        }))
    })?;
    Ok(if single {
        out(&outputs[0]).into()
    } else {
        outs(outputs)
    })
}

#[wasm_bindgen]
impl VoprfClientState {
    /// `Finalize`: verifies the proof, then the output (after `blind`: one `Uint8Array`, given
    /// one evaluated element; after `blindBatch`: an array, given the array of elements). Throws
    /// `INVALID_PROOF` when the proof fails (the state is then consumed), `STATE_CONSUMED` on a
    /// second call.
    #[wasm_bindgen(unchecked_return_type = "Uint8Array | Uint8Array[]")]
    pub fn finalize(
        &mut self,
        #[wasm_bindgen(js_name = evaluatedElement, unchecked_param_type = "Uint8Array | Uint8Array[]")]
        evaluated: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] proof: JsValue,
    ) -> JsResult<JsValue> {
        voprf_finalize(&mut self.inner, evaluated, &proof)
    }
}

per_suite!(VoprfServers, LibVoprfServer);

/// The server of the verifiable mode: `BlindEvaluate` with a DLEQ proof. Holds the secret key.
#[wasm_bindgen]
pub struct VoprfServer {
    pub(crate) inner: VoprfServers,
}

server_keys!(VoprfServer, VoprfServers, LibVoprfServer, "VOPRF");

#[wasm_bindgen]
impl VoprfServer {
    /// The public key clients verify proofs with.
    #[wasm_bindgen(getter, js_name = publicKey)]
    pub fn public_key(&self) -> Vec<u8> {
        each!(&self.inner, VoprfServers, s, S => s.public_key().to_bytes().as_slice().to_vec())
    }

    /// `BlindEvaluate`: `{ evaluatedElement, proof }`.
    #[wasm_bindgen(js_name = blindEvaluate, unchecked_return_type = "Evaluation")]
    pub fn blind_evaluate(
        &self,
        #[wasm_bindgen(js_name = blindedElement, unchecked_param_type = "Uint8Array")]
        blinded: JsValue,
    ) -> JsResult<JsValue> {
        let b = bytes(&blinded, "blindedElement")?;
        crate::with_rng(|rng| {
            each!(&self.inner, VoprfServers, s, S => {
                let be = BlindedElement::<S>::from_bytes(&b).or_throw()?;
                let e = s.blind_evaluate(&mut *rng, &be).or_throw()?;
                Ok(object(&[
                    ("evaluatedElement", u8a(e.message.to_bytes().as_slice())),
                    ("proof", u8a(e.proof.to_bytes().as_slice())),
                ]))
            })
        })
    }

    /// Batched `BlindEvaluate`: `{ evaluatedElements, proof }`, one proof for the batch.
    #[wasm_bindgen(js_name = blindEvaluateBatch, unchecked_return_type = "BatchEvaluation")]
    pub fn blind_evaluate_batch(
        &self,
        #[wasm_bindgen(js_name = blindedElements, unchecked_param_type = "Uint8Array[]")]
        blinded: JsValue,
    ) -> JsResult<JsValue> {
        crate::with_rng(|rng| {
            each!(&self.inner, VoprfServers, s, S => {
                let be = blinded_list::<S>(&blinded)?;
                let e = s.blind_evaluate_batch(&mut *rng, &be).or_throw()?;
                Ok(batch_evaluation(e.messages.iter().map(|m| m.to_bytes()), e.proof.to_bytes()))
            })
        })
    }

    /// `Evaluate(input)`: the PRF output computed with the key directly.
    pub fn evaluate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] input: JsValue,
    ) -> JsResult<js_sys::Uint8Array> {
        let i = Zeroizing::new(bytes(&input, "input")?);
        each!(&self.inner, VoprfServers, s, S => Ok(out(s.evaluate(&i).or_throw()?)))
    }
}

pub(crate) fn batch_evaluation<B: AsRef<[u8]>>(
    elements: impl IntoIterator<Item = B>,
    proof: impl AsRef<[u8]>,
) -> JsValue {
    object(&[
        ("evaluatedElements", u8a_list(elements)),
        ("proof", u8a(proof.as_ref())),
    ])
}

// ---------------------------------------------------------------------------------------------
// POPRF

/// The client of the partially oblivious mode (RFC 9497 §3.3.3): a public `info` both sides
/// know, and the server's proof checked against its public key tweaked by `info`.
#[wasm_bindgen]
pub struct PoprfClient {
    pk: PublicKeys,
    info: Vec<u8>,
}

/// The secret blinds of `PoprfClient.blind` / `blindBatch`, until `finalize`. `free()` wipes them.
#[wasm_bindgen]
pub struct PoprfClientState {
    pub(crate) inner: Option<PoprfStates>,
}

impl PoprfClient {
    fn blind_inputs(&self, inputs: Vec<Zeroizing<Vec<u8>>>, single: bool) -> JsResult<JsValue> {
        crate::with_rng(|rng| {
            let mut elements = Vec::new();
            let info = &self.info;
            let inner = keyed!(&self.pk, PoprfStates, S, pk => {
                pending(inputs, single, |i| LibPoprfClient::<S>::blind(i, info, pk, &mut *rng))
                    .map(|(e, p)| { elements = e; (p, info.clone()) })
            });
            Ok(blind_result(
                elements,
                single,
                PoprfClientState { inner: Some(inner) }.into(),
            ))
        })
    }
}

client_blind!(
    PoprfClient,
    "BlindResult<PoprfClientState>",
    "BatchBlindResult<PoprfClientState>"
);

#[wasm_bindgen]
impl PoprfClient {
    /// A client for `suite`, the server's public key and the public `info` string.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "SuiteName")] suite: JsValue,
        #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
        public_key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
    ) -> JsResult<PoprfClient> {
        Ok(PoprfClient {
            pk: public_key_arg(suite_arg(&suite)?, &public_key)?,
            info: bytes(&info, "info")?,
        })
    }
}

pub(crate) fn poprf_finalize(
    slot: &mut Option<PoprfStates>,
    evaluated: JsValue,
    proof: &JsValue,
) -> JsResult<JsValue> {
    let proof = bytes(proof, "proof")?;
    let st = slot.as_ref().ok_or_else(consumed)?;
    let single = each!(st, PoprfStates, p, S => p.0.single);
    let list: JsValue = if single {
        js_sys::Array::of1(&evaluated).into()
    } else {
        evaluated
    };
    each!(st, PoprfStates, p, S => {
        evaluated_list::<S>(&list, p.0.clients.len())?;
        Proof::<S>::from_bytes(&proof).or_throw()?;
    });
    // Taken and finalized inside the wiped frame: a move out of the object is a stack copy.
    let outputs = crate::wiped(|| -> JsResult<_> {
        let st = crate::take_state(slot).ok_or_else(consumed)?;
        Ok(each!(st, PoprfStates, p, S => {
            let (p, info) = p;
            let ev = evaluated_list::<S>(&list, p.clients.len())?;
            let proof = Proof::<S>::from_bytes(&proof).or_throw()?;
            let Pending { clients, inputs, .. } = p;
            let refs: Vec<&[u8]> = inputs.iter().map(|i| i.as_slice()).collect();
            LibPoprfClient::finalize_batch(clients, &refs, &info, &ev, &proof)
                .or_throw()?
                .into_iter()
                .map(|o| o.to_vec())
                .collect::<Vec<_>>()
        }))
    })?;
    Ok(if single {
        out(&outputs[0]).into()
    } else {
        outs(outputs)
    })
}

#[wasm_bindgen]
impl PoprfClientState {
    /// `Finalize`, as `VoprfClientState.finalize`, with the client's `info`.
    #[wasm_bindgen(unchecked_return_type = "Uint8Array | Uint8Array[]")]
    pub fn finalize(
        &mut self,
        #[wasm_bindgen(js_name = evaluatedElement, unchecked_param_type = "Uint8Array | Uint8Array[]")]
        evaluated: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] proof: JsValue,
    ) -> JsResult<JsValue> {
        poprf_finalize(&mut self.inner, evaluated, &proof)
    }
}

per_suite!(PoprfServers, LibPoprfServer);

/// The server of the partially oblivious mode. Holds the secret key.
#[wasm_bindgen]
pub struct PoprfServer {
    pub(crate) inner: PoprfServers,
}

server_keys!(PoprfServer, PoprfServers, LibPoprfServer, "POPRF");

#[wasm_bindgen]
impl PoprfServer {
    /// The public key.
    #[wasm_bindgen(getter, js_name = publicKey)]
    pub fn public_key(&self) -> Vec<u8> {
        each!(&self.inner, PoprfServers, s, S => s.public_key().to_bytes().as_slice().to_vec())
    }

    /// `BlindEvaluate(blindedElement, info)`: `{ evaluatedElement, proof }`.
    #[wasm_bindgen(js_name = blindEvaluate, unchecked_return_type = "Evaluation")]
    pub fn blind_evaluate(
        &self,
        #[wasm_bindgen(js_name = blindedElement, unchecked_param_type = "Uint8Array")]
        blinded: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
    ) -> JsResult<JsValue> {
        let b = bytes(&blinded, "blindedElement")?;
        let info = bytes(&info, "info")?;
        crate::with_rng(|rng| {
            each!(&self.inner, PoprfServers, s, S => {
                let be = BlindedElement::<S>::from_bytes(&b).or_throw()?;
                let e = s.blind_evaluate(&mut *rng, &be, &info).or_throw()?;
                Ok(object(&[
                    ("evaluatedElement", u8a(e.message.to_bytes().as_slice())),
                    ("proof", u8a(e.proof.to_bytes().as_slice())),
                ]))
            })
        })
    }

    /// Batched `BlindEvaluate`: `{ evaluatedElements, proof }`.
    #[wasm_bindgen(js_name = blindEvaluateBatch, unchecked_return_type = "BatchEvaluation")]
    pub fn blind_evaluate_batch(
        &self,
        #[wasm_bindgen(js_name = blindedElements, unchecked_param_type = "Uint8Array[]")]
        blinded: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
    ) -> JsResult<JsValue> {
        let info = bytes(&info, "info")?;
        crate::with_rng(|rng| {
            each!(&self.inner, PoprfServers, s, S => {
                let be = blinded_list::<S>(&blinded)?;
                let e = s.blind_evaluate_batch(&mut *rng, &be, &info).or_throw()?;
                Ok(batch_evaluation(e.messages.iter().map(|m| m.to_bytes()), e.proof.to_bytes()))
            })
        })
    }

    /// `Evaluate(input, info)`.
    pub fn evaluate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] input: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
    ) -> JsResult<js_sys::Uint8Array> {
        let i = Zeroizing::new(bytes(&input, "input")?);
        let info = bytes(&info, "info")?;
        each!(&self.inner, PoprfServers, s, S => Ok(out(s.evaluate(&i, &info).or_throw()?)))
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The RFC 9497 suite names. */
export type SuiteName =
  | "P256-SHA256" | "P384-SHA384" | "P521-SHA512" | "ristretto255-SHA512" | "decaf448-SHAKE256";
/** What a client's `blind` returns. */
export interface BlindResult<State> { blindedElement: Uint8Array; state: State }
/** What a client's `blindBatch` returns. */
export interface BatchBlindResult<State> { blindedElements: Uint8Array[]; state: State }
/** A verifiable server's answer to one blinded element. */
export interface Evaluation { evaluatedElement: Uint8Array; proof: Uint8Array }
/** A verifiable server's answer to a batch: one proof for every element. */
export interface BatchEvaluation { evaluatedElements: Uint8Array[]; proof: Uint8Array }
"#;
