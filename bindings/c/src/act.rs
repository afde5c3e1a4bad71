//! ACT, Anonymous Credit Tokens (`ACTv1-P256-SHA256`, draft-authors-mole-act; `docs/act.md`):
//! a credential with a hidden balance, spent in public amounts with a refund of the rest. The
//! names follow the npm package (`createActIssueRequest` is `pt_act_issue_request`,
//! `ActModerator.verifySpend` is `pt_act_moderator_verify_spend`, ...).
//!
//! One-shot values are consumed by their use: an issuance state by a successful finalize, a
//! credential by `pt_act_credential_prove_spend`, a spend state by a successful finalize, a
//! verified spend by `pt_act_moderator_issue_refund`; a second use is `PT_STATE_CONSUMED`. A
//! finalize whose message is refused leaves the state usable.

use privacy_tokens::act::{
    ClientIssuanceState, ClientSpendState, Credential, CredentialContext, IssueRequest,
    IssueResponse, MemoryNullifierStore, PrivateKey, PublicKey, Redeemed, Refund, Rejected, Spend,
    VerifiedSpend, SCALAR_LEN, SEED_LEN,
};
use privacy_tokens::Error;
use sha2::Digest;
use zeroize::Zeroizing;

use crate::ffi::*;

/// The agreed configuration of a Moderator: the balance width `L` and the credential context.
/// Public. Read-only after creation: any number of threads may use it at once.
pub struct pt_act_context {
    inner: CredentialContext,
}

/// Frees an ACT context.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_act_context_free(handle: *mut pt_act_context) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// The context of `ctx_cred` with the width `L` bound into it (`ctx_cred || I2OSP(L, 1)`, this
/// project's default and the server's). `with_width` false: `ctx_cred` used as given (the
/// published vectors' form). `PT_UNSUPPORTED_VALUE` for a width outside 1..=64.
#[no_mangle]
pub unsafe extern "C" fn pt_act_context_new(
    ctx_cred: *const u8,
    ctx_cred_len: usize,
    width: u8,
    with_width: bool,
    out: *mut *mut pt_act_context,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(ctx_cred, ctx_cred_len)` is readable for the call (header contract).
        let c = unsafe { bytes(ctx_cred, ctx_cred_len) }?;
        let inner = if with_width {
            CredentialContext::with_width(c, width)?
        } else {
            CredentialContext::new(c, width)?
        };
        o.set(pt_act_context { inner });
        Ok(())
    })
}

/// The context's width `L`.
#[no_mangle]
pub unsafe extern "C" fn pt_act_context_width(
    context: *const pt_act_context,
    width: *mut u8,
) -> pt_status {
    read_value(context, width, 0, |c| Ok(c.inner.bit_length()))
}

/// `SHA-256(public_key)`, the key id of this project's HTTP transport (32 bytes).
#[no_mangle]
pub unsafe extern "C" fn pt_act_key_id(
    public_key: *const u8,
    public_key_len: usize,
    out: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(out)?;
        // SAFETY: `(public_key, public_key_len)` is readable for the call (header contract).
        let pk = unsafe { bytes(public_key, public_key_len) }?;
        *o = pt_buffer::new(&sha2::Sha256::digest(pk));
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Client

/// A client state that finalizes a Moderator's message into a credential, handed back when
/// the message is refused.
trait FinalizeState: Sized {
    /// The Moderator's message (`IssueResponse`, `Refund`).
    type Message;
    fn decode(b: &[u8]) -> privacy_tokens::Result<Self::Message>;
    fn finalize(
        self,
        ctx: &CredentialContext,
        pk: &PublicKey,
        m: &Self::Message,
    ) -> Result<Credential, Rejected<Self>>;
    /// A copy through the state's encoding.
    fn reencode(&self) -> privacy_tokens::Result<Self>;
}

/// [`FinalizeState`] of a library state and its message.
macro_rules! finalize_state_impl {
    ($($state:ty => $message:ty),*) => {
        $(impl FinalizeState for $state {
            type Message = $message;
            fn decode(b: &[u8]) -> privacy_tokens::Result<$message> {
                <$message>::from_bytes(b)
            }
            fn finalize(
                self,
                ctx: &CredentialContext,
                pk: &PublicKey,
                m: &$message,
            ) -> Result<Credential, Rejected<Self>> {
                <$state>::finalize(self, ctx, pk, m)
            }
            fn reencode(&self) -> privacy_tokens::Result<Self> {
                Self::from_bytes(&self.to_bytes()[..])
            }
        })*
    };
}

finalize_state_impl!(ClientIssuanceState => IssueResponse, ClientSpendState => Refund);

/// The body of both finalizes: the message decoded (a malformed one leaves the state), the
/// state taken and finalized; a refused message puts it back (through its encoding: moving it
/// out of the `Rejected` box would leave an unwiped copy on the heap; the box wipes itself).
///
/// # Safety
/// The pointers as the header's contract says: a live state used by no other thread, a live
/// context, the key and message readable.
unsafe fn finalize_state<S: FinalizeState>(
    slot: &mut Option<S>,
    context: *const pt_act_context,
    public_key_bytes: *const u8,
    public_key_len: usize,
    message: *const u8,
    message_len: usize,
    out: HandleOut<'_, pt_act_credential>,
) -> R {
    // SAFETY: forwarded caller contract.
    let (ctx, pk, m) = unsafe {
        (
            handle(context)?,
            public_key(public_key_bytes, public_key_len)?,
            bytes(message, message_len)?,
        )
    };
    if slot.is_none() {
        return fail(PT_STATE_CONSUMED);
    }
    let m = S::decode(m)?;
    let s = take_wiped(slot).ok_or(Fail(PT_STATE_CONSUMED))?;
    match s.finalize(&ctx.inner, &pk, &m) {
        Ok(c) => {
            out.set(pt_act_credential { inner: Some(c) });
            Ok(())
        }
        Err(r) => {
            *slot = Some(r.state.reencode()?);
            Err(r.error.into())
        }
    }
}

/// The client's secret state between an issuance request and the Moderator's response.
/// `pt_act_issuance_state_finalize` consumes it; `_free` wipes it. Thread safety: one thread
/// at a time.
pub struct pt_act_issuance_state {
    inner: Option<ClientIssuanceState>,
}

/// Frees (and wipes) an ACT issuance state.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_act_issuance_state_free(handle: *mut pt_act_issuance_state) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// A new issuance request: `*request` (the `IssueRequest`, 129 bytes; the server's transport
/// prefixes its key id) and the state that finalizes the Moderator's response.
#[no_mangle]
pub unsafe extern "C" fn pt_act_issue_request(
    request: *mut pt_buffer,
    state: *mut *mut pt_act_issuance_state,
) -> pt_status {
    guard(|| {
        let outputs = [request.cast(), state.cast()];
        let (r, s) = (out_buffer(request), out_handle(state));
        let (r, s) = (r?, s?);
        distinct(&outputs)?;
        let res = ClientIssuanceState::request(&mut crate::ffi::rng()?)?;
        *r = pt_buffer::new(&res.message.to_bytes());
        s.set(pt_act_issuance_state {
            inner: Some(res.state),
        });
        Ok(())
    })
}

/// The public key argument (33 bytes).
///
/// # Safety
/// As [`bytes`].
unsafe fn public_key(p: *const u8, len: usize) -> R<PublicKey> {
    // SAFETY: forwarded caller contract.
    Ok(PublicKey::from_bytes(unsafe { bytes(p, len) }?)?)
}

/// The credential from the Moderator's response (its proof verified against `public_key`, 33
/// bytes). A malformed or refused response (`PT_INVALID_PROOF`, `PT_OUT_OF_RANGE`, decoding
/// codes) leaves the state usable; success consumes it (then `PT_STATE_CONSUMED`).
#[no_mangle]
pub unsafe extern "C" fn pt_act_issuance_state_finalize(
    state: *mut pt_act_issuance_state,
    context: *const pt_act_context,
    public_key_bytes: *const u8,
    public_key_len: usize,
    response: *const u8,
    response_len: usize,
    credential: *mut *mut pt_act_credential,
) -> pt_status {
    guard(|| {
        let out = out_handle(credential)?;
        // SAFETY: a live state used by no other thread (header contract).
        let st = unsafe { handle_mut(state) }?;
        // SAFETY: the other pointers as the header's contract says.
        unsafe {
            finalize_state(
                &mut st.inner,
                context,
                public_key_bytes,
                public_key_len,
                response,
                response_len,
                out,
            )
        }
    })
}

/// Whether `pt_act_issuance_state_finalize` succeeded already.
#[no_mangle]
pub unsafe extern "C" fn pt_act_issuance_state_consumed(
    state: *const pt_act_issuance_state,
    consumed: *mut bool,
) -> pt_status {
    read_value(state, consumed, false, |s| Ok(s.inner.is_none()))
}

/// The state's encoding (97 bytes), **secret**, to persist a pending request.
/// `PT_STATE_CONSUMED` once finalized.
#[no_mangle]
pub unsafe extern "C" fn pt_act_issuance_state_to_bytes(
    state: *const pt_act_issuance_state,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(state, out, |s| {
        Ok(s.inner.as_ref().ok_or(Fail(PT_STATE_CONSUMED))?.to_bytes())
    })
}

/// Strict decoding of `pt_act_issuance_state_to_bytes`'s output.
#[no_mangle]
pub unsafe extern "C" fn pt_act_issuance_state_from_bytes(
    state: *const u8,
    state_len: usize,
    out: *mut *mut pt_act_issuance_state,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(state, state_len)` is readable for the call (header contract).
        let b = unsafe { bytes(state, state_len) }?;
        o.set(pt_act_issuance_state {
            inner: Some(ClientIssuanceState::from_bytes(b)?),
        });
        Ok(())
    })
}

/// An ACT credential with its hidden balance. **Secret**: `pt_act_credential_prove_spend`
/// consumes it (the spend state carries the rest of the balance until the refund finalizes).
/// `_free` wipes it. Thread safety: `pt_act_credential_prove_spend` needs the credential to
/// itself; the other functions may share it.
pub struct pt_act_credential {
    inner: Option<Credential>,
}

/// Frees (and wipes) an ACT credential.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_act_credential_free(handle: *mut pt_act_credential) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// The credential's balance. `PT_STATE_CONSUMED` once spent.
#[no_mangle]
pub unsafe extern "C" fn pt_act_credential_balance(
    credential: *const pt_act_credential,
    balance: *mut u64,
) -> pt_status {
    read_value(credential, balance, 0, |c| {
        Ok(c.inner.as_ref().ok_or(Fail(PT_STATE_CONSUMED))?.balance())
    })
}

/// Whether `pt_act_credential_prove_spend` consumed the credential.
#[no_mangle]
pub unsafe extern "C" fn pt_act_credential_consumed(
    credential: *const pt_act_credential,
    consumed: *mut bool,
) -> pt_status {
    read_value(credential, consumed, false, |c| Ok(c.inner.is_none()))
}

/// Spends `amount` (`s`) with top-up allowance `top_up` (`a`) under `spend_context` (the
/// Moderator's spend context): `*message` (the spend) and `*state` (persist it with
/// `pt_act_spend_state_to_bytes` before sending the message). Consumes the credential; a
/// spend refused here (`PT_OUT_OF_RANGE`: `s > balance`, `balance + a >= 2^L`, amounts of
/// `L + 1` bits; `PT_INPUT_TOO_LONG`) leaves it usable.
#[no_mangle]
pub unsafe extern "C" fn pt_act_credential_prove_spend(
    credential: *mut pt_act_credential,
    context: *const pt_act_context,
    amount: u64,
    top_up: u64,
    spend_context: *const u8,
    spend_context_len: usize,
    message: *mut pt_buffer,
    state: *mut *mut pt_act_spend_state,
) -> pt_status {
    guard(|| {
        let outputs = [message.cast(), state.cast()];
        let (m, s) = (out_buffer(message), out_handle(state));
        let (m, s) = (m?, s?);
        distinct(&outputs)?;
        // SAFETY: a live credential (one thread), a live context, readable bytes (header contract).
        let (cred, ctx, ctx_spend) = unsafe {
            (
                handle_mut(credential)?,
                handle(context)?,
                bytes(spend_context, spend_context_len)?,
            )
        };
        let mut rng = crate::ffi::rng()?;
        let c = take_wiped(&mut cred.inner).ok_or(Fail(PT_STATE_CONSUMED))?;
        // The library consumes the credential also on a refusal: a wiping copy restores it.
        let backup = c.to_bytes();
        match c.prove_spend(&ctx.inner, amount, top_up, ctx_spend, &mut rng) {
            Ok(r) => {
                *m = pt_buffer::new(&r.message.to_bytes());
                s.set(pt_act_spend_state {
                    inner: Some(r.state),
                });
                Ok(())
            }
            Err(e) => {
                cred.inner = Some(Credential::from_bytes(&backup[..])?);
                Err(e.into())
            }
        }
    })
}

/// The credential's encoding (137 bytes), **secret**. `PT_STATE_CONSUMED` once spent.
#[no_mangle]
pub unsafe extern "C" fn pt_act_credential_to_bytes(
    credential: *const pt_act_credential,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(credential, out, |c| {
        Ok(c.inner.as_ref().ok_or(Fail(PT_STATE_CONSUMED))?.to_bytes())
    })
}

/// Strict decoding of `pt_act_credential_to_bytes`'s output.
#[no_mangle]
pub unsafe extern "C" fn pt_act_credential_from_bytes(
    credential: *const u8,
    credential_len: usize,
    out: *mut *mut pt_act_credential,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(credential, credential_len)` is readable for the call (header contract).
        let b = unsafe { bytes(credential, credential_len) }?;
        o.set(pt_act_credential {
            inner: Some(Credential::from_bytes(b)?),
        });
        Ok(())
    })
}

/// The client's secret state between a spend and its refund: the rest of the balance.
/// `pt_act_spend_state_finalize` consumes it; `_free` wipes it. Losing it after the Moderator
/// recorded the spend loses the balance. Thread safety: one thread at a time.
pub struct pt_act_spend_state {
    inner: Option<ClientSpendState>,
}

/// Frees (and wipes) an ACT spend state.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_act_spend_state_free(handle: *mut pt_act_spend_state) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// The new credential from the Moderator's refund. A malformed or refused refund leaves the
/// state usable (ask again); success consumes it (then `PT_STATE_CONSUMED`).
#[no_mangle]
pub unsafe extern "C" fn pt_act_spend_state_finalize(
    state: *mut pt_act_spend_state,
    context: *const pt_act_context,
    public_key_bytes: *const u8,
    public_key_len: usize,
    refund: *const u8,
    refund_len: usize,
    credential: *mut *mut pt_act_credential,
) -> pt_status {
    guard(|| {
        let out = out_handle(credential)?;
        // SAFETY: a live state used by no other thread (header contract).
        let st = unsafe { handle_mut(state) }?;
        // SAFETY: the other pointers as the header's contract says.
        unsafe {
            finalize_state(
                &mut st.inner,
                context,
                public_key_bytes,
                public_key_len,
                refund,
                refund_len,
                out,
            )
        }
    })
}

/// Whether `pt_act_spend_state_finalize` succeeded already.
#[no_mangle]
pub unsafe extern "C" fn pt_act_spend_state_consumed(
    state: *const pt_act_spend_state,
    consumed: *mut bool,
) -> pt_status {
    read_value(state, consumed, false, |s| Ok(s.inner.is_none()))
}

/// The state's encoding (121 bytes), **secret**. `PT_STATE_CONSUMED` once finalized.
#[no_mangle]
pub unsafe extern "C" fn pt_act_spend_state_to_bytes(
    state: *const pt_act_spend_state,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(state, out, |s| {
        Ok(s.inner.as_ref().ok_or(Fail(PT_STATE_CONSUMED))?.to_bytes())
    })
}

/// Strict decoding of `pt_act_spend_state_to_bytes`'s output.
#[no_mangle]
pub unsafe extern "C" fn pt_act_spend_state_from_bytes(
    state: *const u8,
    state_len: usize,
    out: *mut *mut pt_act_spend_state,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(state, state_len)` is readable for the call (header contract).
        let b = unsafe { bytes(state, state_len) }?;
        o.set(pt_act_spend_state {
            inner: Some(ClientSpendState::from_bytes(b)?),
        });
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Moderator

/// The ACT Moderator (issuer and verifier). Holds the secret key: `pt_act_moderator_free`
/// wipes it. Read-only after creation: any number of threads may use it at once.
pub struct pt_act_moderator {
    inner: PrivateKey,
}

/// Frees (and wipes) an ACT Moderator.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_free(handle: *mut pt_act_moderator) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// A Moderator with a fresh random key (`GenerateKeyPair`).
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_generate(out: *mut *mut pt_act_moderator) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        o.set(pt_act_moderator {
            inner: PrivateKey::generate(&mut crate::ffi::rng()?)?,
        });
        Ok(())
    })
}

/// `DeriveKeyPair(seed, info)`: `seed` is 48 secret bytes (`PT_INVALID_LENGTH` otherwise).
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_derive(
    seed: *const u8,
    seed_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut *mut pt_act_moderator,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: both ranges readable for the call (header contract).
        let (s, i) = unsafe { (bytes(seed, seed_len)?, bytes(info, info_len)?) };
        let s: Zeroizing<[u8; SEED_LEN]> = Zeroizing::new(
            s.try_into()
                .map_err(|_| Fail(code_of(Error::InvalidLength)))?,
        );
        o.set(pt_act_moderator {
            inner: PrivateKey::derive(&s, i)?,
        });
        Ok(())
    })
}

/// A Moderator from `pt_act_moderator_secret_key`'s bytes.
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_from_secret_key(
    secret_key: *const u8,
    secret_key_len: usize,
    out: *mut *mut pt_act_moderator,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(secret_key, secret_key_len)` is readable for the call (header contract).
        let b = unsafe { bytes(secret_key, secret_key_len) }?;
        o.set(pt_act_moderator {
            inner: PrivateKey::from_bytes(b)?,
        });
        Ok(())
    })
}

/// The secret key (32 bytes), **secret**.
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_secret_key(
    moderator: *const pt_act_moderator,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(moderator, out, |m| Ok(m.inner.to_bytes()))
}

/// The public key `pkM` (33 bytes, compressed).
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_public_key(
    moderator: *const pt_act_moderator,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(moderator, out, |m| Ok(m.inner.public_key().to_bytes()))
}

/// Answers an issuance request with a credential of `credits`: `*response`.
/// `PT_INVALID_PROOF` for a request that does not verify, `PT_OUT_OF_RANGE` for credits of
/// `2^L` or more, decoding codes.
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_issue(
    moderator: *const pt_act_moderator,
    context: *const pt_act_context,
    credits: u64,
    request: *const u8,
    request_len: usize,
    response: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(response)?;
        // SAFETY: a live Moderator and context, the request readable (header contract).
        let (m, ctx, req) = unsafe {
            (
                handle(moderator)?,
                handle(context)?,
                bytes(request, request_len)?,
            )
        };
        let req = IssueRequest::from_bytes(req)?;
        let resp = m
            .inner
            .issue(&ctx.inner, credits, &req, &mut crate::ffi::rng()?)?;
        *o = pt_buffer::new(&resp.to_bytes());
        Ok(())
    })
}

/// A spend whose proof verified: its nullifier (the double-spend key), amount and top-up.
/// `pt_act_moderator_issue_refund` consumes it (one refund per spend). Thread safety: one
/// thread at a time.
pub struct pt_act_verified_spend {
    inner: Option<VerifiedSpend>,
    nullifier: [u8; SCALAR_LEN],
    s: u64,
    a: u64,
}

/// Frees an ACT verified spend.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_act_verified_spend_free(handle: *mut pt_act_verified_spend) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// The verified spend's nullifier (32 bytes): record it; a recorded nullifier is a replay.
#[no_mangle]
pub unsafe extern "C" fn pt_act_verified_spend_nullifier(
    verified: *const pt_act_verified_spend,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(verified, out, |v| Ok(v.nullifier))
}

/// The verified spend's amount `s` and top-up allowance `a`.
#[no_mangle]
pub unsafe extern "C" fn pt_act_verified_spend_amounts(
    verified: *const pt_act_verified_spend,
    amount: *mut u64,
    top_up: *mut u64,
) -> pt_status {
    guard(|| {
        let outputs = [amount.cast(), top_up.cast()];
        let (s, a) = (out_value(amount, 0), out_value(top_up, 0));
        let (s, a) = (s?, a?);
        distinct(&outputs)?;
        // SAFETY: a live handle (header contract).
        let v = unsafe { handle(verified) }?;
        (*s, *a) = (v.s, v.a);
        Ok(())
    })
}

/// Verifies a spend message under `spend_context` (no store is consulted): `*verified`. The
/// order that loses nothing (ACT §8): verify, `pt_act_moderator_issue_refund`, then record the
/// nullifier **with the refund** atomically, failing if present, and release the refund only
/// after that (a present nullifier: answer with the refund stored with it, never a new one);
/// `pt_act_moderator_redeem` does exactly that.
/// `PT_INVALID_PROOF`, `PT_OUT_OF_RANGE`, decoding codes (`PT_INVALID_LENGTH` for a message of
/// another width).
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_verify_spend(
    moderator: *const pt_act_moderator,
    context: *const pt_act_context,
    spend: *const u8,
    spend_len: usize,
    spend_context: *const u8,
    spend_context_len: usize,
    verified: *mut *mut pt_act_verified_spend,
) -> pt_status {
    guard(|| {
        let o = out_handle(verified)?;
        // SAFETY: a live Moderator and context, both byte ranges readable (header contract).
        let (m, ctx, sp, cs) = unsafe {
            (
                handle(moderator)?,
                handle(context)?,
                bytes(spend, spend_len)?,
                bytes(spend_context, spend_context_len)?,
            )
        };
        let sp = Spend::from_bytes(sp, ctx.inner.bit_length())?;
        let v = m.inner.verify_spend(&ctx.inner, &sp, cs)?;
        o.set(pt_act_verified_spend {
            nullifier: *v.nullifier(),
            s: v.amount(),
            a: v.top_up(),
            inner: Some(v),
        });
        Ok(())
    })
}

/// The refund of `returned` (`t <= s + a`) for a verified spend, which it consumes:
/// `*refund`. `PT_OUT_OF_RANGE` for `t` out of range (the spend stays usable),
/// `PT_STATE_CONSUMED` for a second refund.
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_issue_refund(
    moderator: *const pt_act_moderator,
    context: *const pt_act_context,
    verified: *mut pt_act_verified_spend,
    returned: u64,
    refund: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(refund)?;
        // SAFETY: a live Moderator, context and verified spend (no other thread; header contract).
        let (m, ctx, v) = unsafe { (handle(moderator)?, handle(context)?, handle_mut(verified)?) };
        let vs = v.inner.as_ref().ok_or(Fail(PT_STATE_CONSUMED))?;
        let r = m
            .inner
            .issue_refund(&ctx.inner, vs, returned, &mut crate::ffi::rng()?)?;
        v.inner = None;
        *o = pt_buffer::new(&r.to_bytes());
        Ok(())
    })
}

/// An in-memory nullifier store (one Moderator key and context; lost with the process).
/// Thread safety: any number of threads may use it at once (it locks).
pub struct pt_act_nullifier_store {
    inner: MemoryNullifierStore,
}

/// Frees a nullifier store.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_act_nullifier_store_free(handle: *mut pt_act_nullifier_store) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// An empty in-memory nullifier store.
#[no_mangle]
pub unsafe extern "C" fn pt_act_nullifier_store_new(
    out: *mut *mut pt_act_nullifier_store,
) -> pt_status {
    guard(|| {
        out_handle(out)?.set(pt_act_nullifier_store {
            inner: MemoryNullifierStore::new(),
        });
        Ok(())
    })
}

/// The number of nullifiers recorded in the store.
#[no_mangle]
pub unsafe extern "C" fn pt_act_nullifier_store_len(
    store: *const pt_act_nullifier_store,
    len: *mut usize,
) -> pt_status {
    read_value(store, len, 0, |s| Ok(s.inner.len()))
}

/// Verify, record and refund in one step, with the policy of this project's server: a spend
/// of `s` with top-up `a` is accepted when `s >= cost` and `a <= max_top_up`, and refunded
/// `t = s - cost + a` (it pays `cost`); otherwise `PT_LIMIT_EXCEEDED`, nothing recorded. The
/// refund is signed before the nullifier is recorded with it in `store`; nothing is recorded
/// when a step fails. `*refund` is the refund; `*replayed` is true when the nullifier was
/// already recorded (then `*refund` is the refund stored with it and nothing was credited:
/// the server's 409); `*nullifier` is the spend's nullifier (32 bytes). Other policies:
/// `pt_act_moderator_verify_spend`, then the caller's store, then
/// `pt_act_moderator_issue_refund`.
#[no_mangle]
pub unsafe extern "C" fn pt_act_moderator_redeem(
    moderator: *const pt_act_moderator,
    context: *const pt_act_context,
    spend: *const u8,
    spend_len: usize,
    spend_context: *const u8,
    spend_context_len: usize,
    cost: u64,
    max_top_up: u64,
    store: *const pt_act_nullifier_store,
    refund: *mut pt_buffer,
    nullifier: *mut pt_buffer,
    replayed: *mut bool,
) -> pt_status {
    guard(|| {
        let outputs = [refund.cast(), nullifier.cast(), replayed.cast()];
        let (r, n, rp) = (
            out_buffer(refund),
            out_buffer(nullifier),
            out_value(replayed, false),
        );
        let (r, n, rp) = (r?, n?, rp?);
        distinct(&outputs)?;
        // SAFETY: a live Moderator, context and store, both byte ranges readable (header contract).
        let (m, ctx, sp, cs, st) = unsafe {
            (
                handle(moderator)?,
                handle(context)?,
                bytes(spend, spend_len)?,
                bytes(spend_context, spend_context_len)?,
                handle(store)?,
            )
        };
        let sp = Spend::from_bytes(sp, ctx.inner.bit_length())?;
        let mut refused = false;
        let policy = |s: u64, a: u64| -> privacy_tokens::Result<u64> {
            if s < cost || a > max_top_up {
                refused = true;
                return Err(Error::OutOfRange);
            }
            (s - cost).checked_add(a).ok_or(Error::OutOfRange)
        };
        let res = m.inner.redeem(
            &ctx.inner,
            &sp,
            cs,
            policy,
            &st.inner,
            &mut crate::ffi::rng()?,
        );
        if refused {
            return fail(PT_LIMIT_EXCEEDED);
        }
        let (was_replayed, refund) = match res? {
            Redeemed::Fresh(x) => (false, x),
            Redeemed::Replayed(x) => (true, x),
        };
        *r = pt_buffer::new(&refund.to_bytes());
        *n = pt_buffer::new(&sp.nullifier());
        *rp = was_replayed;
        Ok(())
    })
}
