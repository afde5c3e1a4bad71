//! ACT, Anonymous Credit Tokens (`ACTv1-P256-SHA256`, draft-authors-mole-act; `docs/act.md`):
//! a credential with a hidden balance, spent in public amounts with a refund of the rest.
//!
//! Client: [`createActIssueRequest`](create_act_issue_request) → [`ActIssuanceState`] →
//! [`ActCredential`] → `proveSpend` → [`ActSpendState`] → `finalize(refund)` → a new
//! [`ActCredential`]. The Moderator ([`ActModerator`], flavour `issuer`): key generation and
//! derivation, issuance, spend verification, refunds and `redeem` (verify, record the
//! nullifier, refund) with an in-memory store ([`ActNullifierStore`]) or a JavaScript callback.
//!
//! One-shot values are consumed by their use: an issuance state by a successful `finalize`, a
//! credential by `proveSpend`, a spend state by a successful `finalize`, a verified spend by
//! `issueRefund`; a second use throws `STATE_CONSUMED`. A finalisation whose message is refused
//! leaves the state usable (ask again). Credentials and states are secret: they are zeroized
//! when their object is freed or consumed, and `toBytes()` copies them out of a wiped buffer.

use privacy_tokens::act::{
    ClientIssuanceState, ClientSpendState, Credential as LibCredential, CredentialContext,
    IssueResponse, PublicKey, Refund, Rejected, CIPHERSUITE,
};
use wasm_bindgen::prelude::*;

use crate::{bad_arg, bytes, error, object, secret_bytes, u8a, JsResult, OrThrow, STATE_CONSUMED};

/// Media type of an issuance request body (`key_id[32] || IssueRequest`) in this project's
/// HTTP transport.
pub const ISSUE_REQUEST_MEDIA_TYPE: &str = "application/act-issue-request";
/// Media type of an issuance response body.
pub const ISSUE_RESPONSE_MEDIA_TYPE: &str = "application/act-issue-response";
/// Media type of a spend body (`key_id[32] || Spend`).
pub const SPEND_MEDIA_TYPE: &str = "application/act-spend";
/// Media type of a refund body.
pub const REFUND_MEDIA_TYPE: &str = "application/act-refund";

/// The ciphersuite identifier, `ACTv1-P256-SHA256`.
#[wasm_bindgen(js_name = actCiphersuite)]
pub fn act_ciphersuite() -> String {
    CIPHERSUITE.to_string()
}

/// An amount argument (`s`, `a`, `t`, credits): a non-negative safe integer `number` or a
/// `bigint` below `2^64`.
pub(crate) fn amount(v: &JsValue, name: &str) -> JsResult<u64> {
    if v.is_bigint() {
        return u64::try_from(v.clone()).map_err(|_| bad_arg(name, "expected a bigint in 0..2^64"));
    }
    crate::integer(v, name, 0, (1u64 << 53) - 1)
}

fn consumed(what: &str) -> JsValue {
    error(
        STATE_CONSUMED,
        &format!("this {what} was already used; it is one-shot"),
    )
}

/// The agreed configuration of a Moderator: the balance width `L` and the credential context
/// (`CreateContextScalar`). Public.
#[wasm_bindgen]
pub struct ActContext {
    inner: CredentialContext,
}

#[wasm_bindgen]
impl ActContext {
    /// The context of `ctxCred` with width `L` bound into it (`ctxCred || I2OSP(L, 1)`, this
    /// project's default and the server's): `new ActContext(ctxCred, width)`. Throws
    /// `UNSUPPORTED_VALUE` for a width outside 1..=64.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = ctxCred, unchecked_param_type = "Uint8Array")] ctx_cred: JsValue,
        width: JsValue,
    ) -> JsResult<ActContext> {
        let c = bytes(&ctx_cred, "ctxCred")?;
        let l = crate::integer(&width, "width", 0, 255)? as u8;
        Ok(ActContext {
            inner: CredentialContext::with_width(&c, l).or_throw()?,
        })
    }

    /// The context of `ctxCred` used as given, the published vectors' form.
    #[wasm_bindgen(js_name = withoutWidth)]
    pub fn without_width(
        #[wasm_bindgen(js_name = ctxCred, unchecked_param_type = "Uint8Array")] ctx_cred: JsValue,
        width: JsValue,
    ) -> JsResult<ActContext> {
        let c = bytes(&ctx_cred, "ctxCred")?;
        let l = crate::integer(&width, "width", 0, 255)? as u8;
        Ok(ActContext {
            inner: CredentialContext::new(&c, l).or_throw()?,
        })
    }

    /// The balance width `L`.
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u8 {
        self.inner.bit_length()
    }

    /// The context scalar, encoded (32 bytes).
    #[wasm_bindgen(getter)]
    pub fn scalar(&self) -> Vec<u8> {
        self.inner.scalar_bytes().to_vec()
    }
}

fn public_key(v: &JsValue) -> JsResult<PublicKey> {
    PublicKey::from_bytes(&bytes(v, "publicKey")?).or_throw()
}

/// A client state that finalizes a Moderator's message into a credential, handed back when
/// the message is refused.
trait FinalizeState: Sized + zeroize::Zeroize {
    /// The Moderator's message (`IssueResponse`, `Refund`).
    type Message;
    fn decode(b: &[u8]) -> privacy_tokens::Result<Self::Message>;
    fn finalize(
        self,
        ctx: &CredentialContext,
        pk: &PublicKey,
        m: &Self::Message,
    ) -> Result<LibCredential, Rejected<Self>>;
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
            ) -> Result<LibCredential, Rejected<Self>> {
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
/// state taken and finalized in the wiped frame; a refused message puts it back (through its
/// encoding: moving it out of the `Rejected` box would leave an unwiped copy on the heap; the
/// box wipes itself when dropped).
fn finalize_state<S: FinalizeState>(
    slot: &mut Option<S>,
    what: &str,
    context: &ActContext,
    public_key_bytes: &JsValue,
    message: &JsValue,
) -> JsResult<ActCredential> {
    let pk = public_key(public_key_bytes)?;
    let m = S::decode(&bytes(message, "message")?).or_throw()?;
    crate::wiped(|| {
        let st = crate::take_state(slot).ok_or_else(|| consumed(what))?;
        match st.finalize(&context.inner, &pk, &m) {
            Ok(c) => Ok(ActCredential { inner: Some(c) }),
            Err(r) => {
                *slot = Some(r.state.reencode().or_throw()?);
                Err(crate::lib_error(r.error))
            }
        }
    })
}

/// A new issuance request: `{ message, contentType, state }`. Send `message` (the
/// `IssueRequest`, 129 bytes) to the Moderator (the server's transport prefixes its key id);
/// `state.finalize(context, publicKey, response)` gives the credential.
#[wasm_bindgen(js_name = createActIssueRequest, unchecked_return_type = "ActIssueRequest")]
pub fn create_act_issue_request() -> JsResult<JsValue> {
    crate::with_rng(|rng| {
        let r = ClientIssuanceState::request(rng).or_throw()?;
        let message = u8a(&r.message.to_bytes());
        let state = ActIssuanceState {
            inner: Some(r.state),
        };
        Ok(object(&[
            ("message", message),
            ("contentType", ISSUE_REQUEST_MEDIA_TYPE.into()),
            ("state", state.into()),
        ]))
    })
}

/// The client's secret state between an issuance request and the Moderator's response.
/// `finalize` consumes it; `free()` wipes it.
#[wasm_bindgen]
pub struct ActIssuanceState {
    inner: Option<ClientIssuanceState>,
}

#[wasm_bindgen]
impl ActIssuanceState {
    /// The credential from the Moderator's response (its proof verified against `publicKey`,
    /// 33 bytes). A malformed or refused response throws (`INVALID_PROOF`, `OUT_OF_RANGE`,
    /// decoding codes) and leaves the state usable; success consumes it (then `STATE_CONSUMED`).
    pub fn finalize(
        &mut self,
        context: &ActContext,
        #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
        public_key_bytes: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] response: JsValue,
    ) -> JsResult<ActCredential> {
        finalize_state(
            &mut self.inner,
            "issuance state",
            context,
            &public_key_bytes,
            &response,
        )
    }
}

/// An ACT credential with its hidden balance. **Secret**: `proveSpend` consumes it (the spend
/// state carries the rest of the balance until the refund finalizes into a new credential).
/// Persist `toBytes()`; `free()` wipes it.
#[wasm_bindgen]
pub struct ActCredential {
    inner: Option<LibCredential>,
}

#[wasm_bindgen]
impl ActCredential {
    /// The balance `c`.
    #[wasm_bindgen(getter)]
    pub fn balance(&self) -> JsResult<u64> {
        Ok(self
            .inner
            .as_ref()
            .ok_or_else(|| consumed("credential"))?
            .balance())
    }

    /// Spends `amount` (`s`) with top-up allowance `topUp` (`a`, 0 for none) under
    /// `spendContext` (the Moderator's spend context bytes): `{ message, nullifier, state }`.
    /// Persist `state.toBytes()` before sending `message`. Consumes the credential; a spend
    /// refused here (`OUT_OF_RANGE`: `s > balance`, `balance + a >= 2^L`, amounts of `L + 1`
    /// bits; `INPUT_TOO_LONG`) leaves it usable.
    #[wasm_bindgen(js_name = proveSpend, unchecked_return_type = "ActSpendResult")]
    pub fn prove_spend(
        &mut self,
        context: &ActContext,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] amount: JsValue,
        #[wasm_bindgen(js_name = topUp, unchecked_param_type = "number | bigint")] top_up: JsValue,
        #[wasm_bindgen(js_name = spendContext, unchecked_param_type = "Uint8Array")]
        spend_context: JsValue,
    ) -> JsResult<JsValue> {
        let s = self::amount(&amount, "amount")?;
        let a = self::amount(&top_up, "topUp")?;
        let ctx_spend = bytes(&spend_context, "spendContext")?;
        crate::with_rng(|rng| {
            let cred = crate::take_state(&mut self.inner).ok_or_else(|| consumed("credential"))?;
            // The library consumes the credential also on a refusal: a copy, in a wiping
            // buffer, restores it then.
            let backup = cred.to_bytes();
            match cred.prove_spend(&context.inner, s, a, &ctx_spend, rng) {
                Ok(r) => {
                    let message = r.message.to_bytes();
                    Ok(object(&[
                        ("message", u8a(&message)),
                        ("nullifier", u8a(&r.message.nullifier())),
                        ("contentType", SPEND_MEDIA_TYPE.into()),
                        (
                            "state",
                            ActSpendState {
                                inner: Some(r.state),
                            }
                            .into(),
                        ),
                    ]))
                }
                Err(e) => {
                    self.inner = Some(LibCredential::from_bytes(&backup[..]).or_throw()?);
                    Err(crate::lib_error(e))
                }
            }
        })
    }
}

/// The client's secret state between a spend and its refund: the rest of the balance.
/// `finalize` consumes it; `free()` wipes it. Losing it after the Moderator recorded the
/// spend loses the balance: persist `toBytes()` before sending the spend.
#[wasm_bindgen]
pub struct ActSpendState {
    inner: Option<ClientSpendState>,
}

#[wasm_bindgen]
impl ActSpendState {
    /// The new credential from the Moderator's refund. A malformed or refused refund throws
    /// and leaves the state usable (ask again); success consumes it.
    pub fn finalize(
        &mut self,
        context: &ActContext,
        #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
        public_key_bytes: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] refund: JsValue,
    ) -> JsResult<ActCredential> {
        finalize_state(
            &mut self.inner,
            "spend state",
            context,
            &public_key_bytes,
            &refund,
        )
    }
}

/// `consumed`, `toBytes()` and `fromBytes()` of a class holding a one-shot secret value of the
/// library in `inner: Option<_>`: its encoding (`len` bytes, **secret**) copied out under the
/// stack wipe, and its strict decoding (under the wipe too: the decoding's temporaries are
/// secret); `STATE_CONSUMED` once the value was used.
macro_rules! one_shot_bytes {
    ($class:ident, $lib:ty, $what:literal, $len:literal, $used:literal) => {
        #[wasm_bindgen]
        impl $class {
            #[doc = concat!("Whether ", $used, ".")]
            #[wasm_bindgen(getter)]
            pub fn consumed(&self) -> bool {
                self.inner.is_none()
            }

            #[doc = concat!("The ", $what, "'s encoding (", $len, " bytes), **secret**, to persist it.")]
            #[wasm_bindgen(js_name = toBytes)]
            pub fn to_bytes(&self) -> JsResult<js_sys::Uint8Array> {
                let v = self.inner.as_ref().ok_or_else(|| consumed($what))?;
                Ok(crate::wiped(|| js_sys::Uint8Array::from(&v.to_bytes()[..])))
            }

            /// Strict decoding of `toBytes()`'s output.
            #[wasm_bindgen(js_name = fromBytes)]
            pub fn from_bytes(
                #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
            ) -> JsResult<$class> {
                let b = secret_bytes(&bytes, $what)?;
                let inner = crate::wiped(|| <$lib>::from_bytes(&b)).or_throw()?;
                Ok($class { inner: Some(inner) })
            }
        }
    };
}

one_shot_bytes!(
    ActIssuanceState,
    ClientIssuanceState,
    "issuance state",
    97,
    "`finalize` succeeded already"
);
one_shot_bytes!(
    ActCredential,
    LibCredential,
    "credential",
    137,
    "`proveSpend` consumed it"
);
one_shot_bytes!(
    ActSpendState,
    ClientSpendState,
    "spend state",
    121,
    "`finalize` succeeded already"
);

/// `SHA-256(publicKey)`, the key id of this project's HTTP transport.
#[wasm_bindgen(js_name = actKeyId)]
pub fn act_key_id(
    #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")] public_key: JsValue,
) -> JsResult<Vec<u8>> {
    use sha2::Digest;
    let pk = bytes(&public_key, "publicKey")?;
    Ok(sha2::Sha256::digest(&pk).to_vec())
}

#[cfg(feature = "issuer")]
pub use moderator::{ActModerator, ActNullifierStore, ActVerifiedSpend};

#[cfg(feature = "issuer")]
mod moderator {
    use std::cell::RefCell;

    use privacy_tokens::act::{
        IssueRequest, MemoryNullifierStore, NullifierStore, PrivateKey, Redeemed, Spend,
        VerifiedSpend, SCALAR_LEN, SEED_LEN,
    };
    use wasm_bindgen::JsCast;
    use zeroize::Zeroizing;

    use privacy_tokens::Error;

    use super::*;

    /// The Moderator (issuer and verifier) of ACT credentials. Holds the secret key: `free()`
    /// wipes it.
    #[wasm_bindgen]
    pub struct ActModerator {
        inner: PrivateKey,
    }

    /// A spend whose proof verified: its nullifier (the double-spend key), amount and top-up.
    /// `issueRefund` consumes it (one refund per spend).
    #[wasm_bindgen]
    pub struct ActVerifiedSpend {
        inner: Option<VerifiedSpend>,
        nullifier: [u8; SCALAR_LEN],
        s: u64,
        a: u64,
    }

    #[wasm_bindgen]
    impl ActVerifiedSpend {
        /// The nullifier (32 bytes): record it; a spend with a recorded nullifier is a replay.
        #[wasm_bindgen(getter)]
        pub fn nullifier(&self) -> Vec<u8> {
            self.nullifier.to_vec()
        }
        /// The amount spent, `s`.
        #[wasm_bindgen(getter)]
        pub fn amount(&self) -> u64 {
            self.s
        }
        /// The top-up allowance, `a`.
        #[wasm_bindgen(getter, js_name = topUp)]
        pub fn top_up(&self) -> u64 {
            self.a
        }
        /// Whether `issueRefund` consumed it.
        #[wasm_bindgen(getter)]
        pub fn consumed(&self) -> bool {
            self.inner.is_none()
        }
    }

    impl ActVerifiedSpend {
        #[cfg(feature = "hazmat")]
        pub(super) fn take(&mut self) -> Option<VerifiedSpend> {
            self.inner.take()
        }
    }

    /// An in-memory nullifier store (one Moderator key and context; lost with the process).
    #[wasm_bindgen]
    #[derive(Default)]
    pub struct ActNullifierStore {
        inner: MemoryNullifierStore,
    }

    #[wasm_bindgen]
    impl ActNullifierStore {
        /// An empty store.
        #[wasm_bindgen(constructor)]
        pub fn new() -> ActNullifierStore {
            ActNullifierStore::default()
        }
        /// The number of recorded nullifiers.
        #[wasm_bindgen(getter)]
        pub fn size(&self) -> usize {
            self.inner.len()
        }
    }

    /// A store whose `insertIfAbsent(nullifier, refund)` is a JavaScript function: it records
    /// the pair and returns `null`/`undefined`, or returns the refund bytes recorded earlier.
    struct JsStore<'a> {
        f: &'a js_sys::Function,
        thrown: &'a RefCell<Option<JsValue>>,
    }

    impl NullifierStore for JsStore<'_> {
        fn insert_if_absent(
            &self,
            nullifier: &[u8; SCALAR_LEN],
            refund: &Refund,
        ) -> privacy_tokens::Result<Option<Refund>> {
            let r = self
                .f
                .call2(&JsValue::NULL, &u8a(nullifier), &u8a(&refund.to_bytes()));
            let fail = |e: JsValue| {
                *self.thrown.borrow_mut() = Some(e);
                Err(Error::InvalidInput)
            };
            match r {
                Err(e) => fail(e),
                Ok(v) if v.is_null() || v.is_undefined() => Ok(None),
                Ok(v) => match bytes(&v, "insertIfAbsent result") {
                    Ok(b) => Refund::from_bytes(&b).map(Some),
                    Err(e) => fail(e),
                },
            }
        }
    }

    #[wasm_bindgen]
    impl ActModerator {
        /// A Moderator with a fresh random key (`GenerateKeyPair`).
        pub fn generate() -> JsResult<ActModerator> {
            Ok(ActModerator {
                inner: crate::with_rng(|rng| PrivateKey::generate(rng).or_throw())?,
            })
        }

        /// `DeriveKeyPair(seed, info)`: `seed` is 48 secret bytes.
        pub fn derive(
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] seed: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
        ) -> JsResult<ActModerator> {
            let s = secret_bytes(&seed, "seed")?;
            let info = bytes(&info, "info")?;
            let seed: Zeroizing<[u8; SEED_LEN]> = Zeroizing::new(
                s.as_slice()
                    .try_into()
                    .map_err(|_| bad_arg("seed", "expected 48 bytes"))?,
            );
            Ok(ActModerator {
                inner: crate::wiped(|| PrivateKey::derive(&seed, &info)).or_throw()?,
            })
        }

        /// A Moderator from `secretKey()`'s bytes.
        #[wasm_bindgen(js_name = fromSecretKey)]
        pub fn from_secret_key(
            #[wasm_bindgen(js_name = secretKey, unchecked_param_type = "Uint8Array")]
            secret_key: JsValue,
        ) -> JsResult<ActModerator> {
            let b = secret_bytes(&secret_key, "secretKey")?;
            Ok(ActModerator {
                inner: crate::wiped(|| PrivateKey::from_bytes(&b)).or_throw()?,
            })
        }

        /// The secret key (32 bytes), **secret**.
        #[wasm_bindgen(js_name = secretKey)]
        pub fn secret_key(&self) -> js_sys::Uint8Array {
            crate::wiped(|| js_sys::Uint8Array::from(&self.inner.to_bytes()[..]))
        }

        /// The public key `pkM` (33 bytes, compressed).
        #[wasm_bindgen(getter, js_name = publicKey)]
        pub fn public_key(&self) -> Vec<u8> {
            self.inner.public_key().to_bytes().to_vec()
        }

        /// `SHA-256(publicKey)`.
        #[wasm_bindgen(getter, js_name = keyId)]
        pub fn key_id(&self) -> Vec<u8> {
            use sha2::Digest;
            sha2::Sha256::digest(self.inner.public_key().to_bytes()).to_vec()
        }

        /// Answers an issuance request with a credential of `credits`: the response bytes.
        /// Throws `INVALID_PROOF` for a request that does not verify, `OUT_OF_RANGE` for
        /// credits of `2^L` or more.
        pub fn issue(
            &self,
            context: &ActContext,
            #[wasm_bindgen(unchecked_param_type = "number | bigint")] credits: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] request: JsValue,
        ) -> JsResult<Vec<u8>> {
            let c = amount(&credits, "credits")?;
            let req = IssueRequest::from_bytes(&bytes(&request, "request")?).or_throw()?;
            crate::with_rng(|rng| {
                Ok(self
                    .inner
                    .issue(&context.inner, c, &req, rng)
                    .or_throw()?
                    .to_bytes()
                    .to_vec())
            })
        }

        /// Verifies a spend message under `spendContext` (no store is consulted): the
        /// verified spend. The order that loses nothing (ACT §8): verify, `issueRefund`, then
        /// record the nullifier with the refund atomically, failing if present, and release
        /// the refund only after that (a present nullifier: answer with the stored refund);
        /// `redeem` and `redeemWith` do exactly that. Throws `INVALID_PROOF`, `UNSUPPORTED_VALUE` (another width),
        /// decoding codes.
        #[wasm_bindgen(js_name = verifySpend)]
        pub fn verify_spend(
            &self,
            context: &ActContext,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] spend: JsValue,
            #[wasm_bindgen(js_name = spendContext, unchecked_param_type = "Uint8Array")]
            spend_context: JsValue,
        ) -> JsResult<ActVerifiedSpend> {
            let spend = Spend::from_bytes(&bytes(&spend, "spend")?, context.inner.bit_length())
                .or_throw()?;
            let ctx_spend = bytes(&spend_context, "spendContext")?;
            crate::wiped(|| {
                let v = self
                    .inner
                    .verify_spend(&context.inner, &spend, &ctx_spend)
                    .or_throw()?;
                Ok(ActVerifiedSpend {
                    nullifier: *v.nullifier(),
                    s: v.amount(),
                    a: v.top_up(),
                    inner: Some(v),
                })
            })
        }

        /// The refund of `returned` (`t <= s + a`) for a verified spend, which it consumes:
        /// the refund bytes. Throws `OUT_OF_RANGE`, `STATE_CONSUMED` on a second refund.
        #[wasm_bindgen(js_name = issueRefund)]
        pub fn issue_refund(
            &self,
            context: &ActContext,
            verified: &mut ActVerifiedSpend,
            #[wasm_bindgen(unchecked_param_type = "number | bigint")] returned: JsValue,
        ) -> JsResult<Vec<u8>> {
            let t = amount(&returned, "returned")?;
            let v = verified
                .inner
                .as_ref()
                .ok_or_else(|| consumed("verified spend"))?;
            let refund = crate::with_rng(|rng| {
                self.inner
                    .issue_refund(&context.inner, v, t, rng)
                    .or_throw()
            })?;
            verified.inner = None;
            Ok(refund.to_bytes().to_vec())
        }

        /// Verify, record and refund in one step against an in-memory `store`:
        /// `{ status: "fresh" | "replayed", refund, nullifier, amount, topUp }`. `policy(s, a)`
        /// (bigints) returns the amount to return `t`, or throws to refuse (the error is
        /// rethrown, nothing is recorded). A replayed nullifier gets the stored refund.
        #[wasm_bindgen(unchecked_return_type = "ActRedeemResult")]
        pub fn redeem(
            &self,
            context: &ActContext,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] spend: JsValue,
            #[wasm_bindgen(js_name = spendContext, unchecked_param_type = "Uint8Array")]
            spend_context: JsValue,
            #[wasm_bindgen(
                unchecked_param_type = "(amount: bigint, topUp: bigint) => number | bigint"
            )]
            policy: JsValue,
            store: &ActNullifierStore,
        ) -> JsResult<JsValue> {
            self.redeem_with_store(context, &spend, &spend_context, &policy, &store.inner)
        }

        /// `redeem` with a JavaScript store: `insertIfAbsent(nullifier, refund)` must atomically
        /// record the pair and return `null`, or return the refund recorded earlier for that
        /// nullifier (a throw refuses the spend and is rethrown). It must be synchronous: a
        /// returned Promise is not awaited but refused (the spend is refused, nothing granted);
        /// an asynchronous store goes through `verifySpend`, `issueRefund` and the order they
        /// document.
        #[wasm_bindgen(js_name = redeemWith, unchecked_return_type = "ActRedeemResult")]
        pub fn redeem_with(
            &self,
            context: &ActContext,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] spend: JsValue,
            #[wasm_bindgen(js_name = spendContext, unchecked_param_type = "Uint8Array")]
            spend_context: JsValue,
            #[wasm_bindgen(
                unchecked_param_type = "(amount: bigint, topUp: bigint) => number | bigint"
            )]
            policy: JsValue,
            #[wasm_bindgen(
                js_name = insertIfAbsent,
                unchecked_param_type = "(nullifier: Uint8Array, refund: Uint8Array) => Uint8Array | null | undefined"
            )]
            insert_if_absent: JsValue,
        ) -> JsResult<JsValue> {
            let f = insert_if_absent
                .dyn_ref::<js_sys::Function>()
                .ok_or_else(|| bad_arg("insertIfAbsent", "expected a function"))?;
            let thrown = RefCell::new(None);
            let store = JsStore { f, thrown: &thrown };
            let r = self.redeem_with_store(context, &spend, &spend_context, &policy, &store);
            match thrown.into_inner() {
                Some(e) => Err(e),
                None => r,
            }
        }
    }

    impl ActModerator {
        #[cfg(feature = "hazmat")]
        pub(super) fn wrap(inner: PrivateKey) -> ActModerator {
            ActModerator { inner }
        }

        #[cfg(feature = "hazmat")]
        pub(super) fn key(&self) -> &PrivateKey {
            &self.inner
        }

        fn redeem_with_store(
            &self,
            context: &ActContext,
            spend: &JsValue,
            spend_context: &JsValue,
            policy: &JsValue,
            store: &impl NullifierStore,
        ) -> JsResult<JsValue> {
            let policy = policy
                .dyn_ref::<js_sys::Function>()
                .ok_or_else(|| bad_arg("policy", "expected a function"))?;
            let spend = Spend::from_bytes(&bytes(spend, "spend")?, context.inner.bit_length())
                .or_throw()?;
            let ctx_spend = bytes(spend_context, "spendContext")?;
            let thrown = RefCell::new(None);
            let policy_fn = |s: u64, a: u64| -> privacy_tokens::Result<u64> {
                let r = policy
                    .call2(&JsValue::NULL, &JsValue::from(s), &JsValue::from(a))
                    .and_then(|v| amount(&v, "policy result"));
                r.map_err(|e| {
                    *thrown.borrow_mut() = Some(e);
                    Error::OutOfRange
                })
            };
            let r = crate::with_rng(|rng| {
                Ok(self
                    .inner
                    .redeem(&context.inner, &spend, &ctx_spend, policy_fn, store, rng))
            })?;
            if let Some(e) = thrown.into_inner() {
                return Err(e);
            }
            let (status, refund) = match r.or_throw()? {
                Redeemed::Fresh(r) => ("fresh", r),
                Redeemed::Replayed(r) => ("replayed", r),
            };
            Ok(object(&[
                ("status", status.into()),
                ("refund", u8a(&refund.to_bytes())),
                ("nullifier", u8a(&spend.nullifier())),
                ("amount", JsValue::from(spend.amount())),
                ("topUp", JsValue::from(spend.top_up())),
            ]))
        }
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** What `createActIssueRequest` returns. */
export interface ActIssueRequest { message: Uint8Array; contentType: string; state: ActIssuanceState }
/** What `ActCredential.proveSpend` returns. */
export interface ActSpendResult { message: Uint8Array; nullifier: Uint8Array; contentType: string; state: ActSpendState }
/** What `ActModerator.redeem` and `redeemWith` return. */
export interface ActRedeemResult { status: "fresh" | "replayed"; refund: Uint8Array; nullifier: Uint8Array; amount: bigint; topUp: bigint }
"#;

/// Deterministic ACT entry points for the published vectors (`test-vectors/act/`): each `rand`
/// stands for the bytes the algorithm draws (48 for key generation, 96 otherwise). Test flavour
/// only; JavaScript sees them as static methods of `hazmat`.
#[cfg(all(feature = "hazmat", feature = "issuer"))]
mod hazmat_entry {
    use privacy_tokens::act::{hazmat, IssueRequest, SEED_LEN};

    use super::moderator::{ActModerator, ActVerifiedSpend};
    use super::*;
    use crate::hazmat::Hazmat;

    fn rand<const N: usize>(v: &JsValue) -> JsResult<zeroize::Zeroizing<[u8; N]>> {
        let b = secret_bytes(v, "rand")?;
        Ok(zeroize::Zeroizing::new(b.as_slice().try_into().map_err(
            |_| bad_arg("rand", &format!("expected {N} bytes")),
        )?))
    }

    #[wasm_bindgen(js_class = hazmat)]
    impl Hazmat {
        /// `GenerateKeyPair` with its 48 random bytes.
        #[wasm_bindgen(js_name = actGenerateKeyPair)]
        pub fn act_generate_key_pair(
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] rand: JsValue,
        ) -> JsResult<ActModerator> {
            let r = self::rand::<SEED_LEN>(&rand)?;
            Ok(ActModerator::wrap(
                crate::wiped(|| hazmat::generate_key_pair(&r)).or_throw()?,
            ))
        }

        /// `IssueRequest` with its 96 random bytes: `{ message, contentType, state }`.
        #[wasm_bindgen(js_name = actIssueRequest, unchecked_return_type = "ActIssueRequest")]
        pub fn act_issue_request(
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] rand: JsValue,
        ) -> JsResult<JsValue> {
            let r = self::rand::<{ 2 * SEED_LEN }>(&rand)?;
            let res = crate::wiped(|| hazmat::issue_request(&r)).or_throw()?;
            Ok(object(&[
                ("message", u8a(&res.message.to_bytes())),
                ("contentType", ISSUE_REQUEST_MEDIA_TYPE.into()),
                (
                    "state",
                    ActIssuanceState {
                        inner: Some(res.state),
                    }
                    .into(),
                ),
            ]))
        }

        /// `IssueResponse` with its 96 random bytes: the response bytes.
        #[wasm_bindgen(js_name = actIssueResponse)]
        pub fn act_issue_response(
            moderator: &ActModerator,
            context: &ActContext,
            #[wasm_bindgen(unchecked_param_type = "number | bigint")] credits: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] request: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] rand: JsValue,
        ) -> JsResult<Vec<u8>> {
            let c = amount(&credits, "credits")?;
            let req = IssueRequest::from_bytes(&bytes(&request, "request")?).or_throw()?;
            let r = self::rand::<{ 2 * SEED_LEN }>(&rand)?;
            let resp = crate::wiped(|| {
                hazmat::issue_response(moderator.key(), &context.inner, c, &req, &r)
            })
            .or_throw()?;
            Ok(resp.to_bytes().to_vec())
        }

        /// `ProveSpend` with its 96 random bytes; consumes the credential as `proveSpend`
        /// does.
        #[wasm_bindgen(js_name = actProveSpend, unchecked_return_type = "ActSpendResult")]
        pub fn act_prove_spend(
            credential: &mut ActCredential,
            context: &ActContext,
            #[wasm_bindgen(unchecked_param_type = "number | bigint")] amount: JsValue,
            #[wasm_bindgen(js_name = topUp, unchecked_param_type = "number | bigint")]
            top_up: JsValue,
            #[wasm_bindgen(js_name = spendContext, unchecked_param_type = "Uint8Array")]
            spend_context: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] rand: JsValue,
        ) -> JsResult<JsValue> {
            let s = super::amount(&amount, "amount")?;
            let a = super::amount(&top_up, "topUp")?;
            let ctx_spend = bytes(&spend_context, "spendContext")?;
            let r = self::rand::<{ 2 * SEED_LEN }>(&rand)?;
            crate::wiped(|| {
                let cred = crate::take_state(&mut credential.inner)
                    .ok_or_else(|| consumed("credential"))?;
                let res =
                    hazmat::prove_spend(cred, &context.inner, s, a, &ctx_spend, &r).or_throw()?;
                Ok(object(&[
                    ("message", u8a(&res.message.to_bytes())),
                    ("nullifier", u8a(&res.message.nullifier())),
                    ("contentType", SPEND_MEDIA_TYPE.into()),
                    (
                        "state",
                        ActSpendState {
                            inner: Some(res.state),
                        }
                        .into(),
                    ),
                ]))
            })
        }

        /// `IssueRefund` with its 96 random bytes: the refund bytes (consumes the verified
        /// spend).
        #[wasm_bindgen(js_name = actIssueRefund)]
        pub fn act_issue_refund(
            moderator: &ActModerator,
            context: &ActContext,
            verified: &mut ActVerifiedSpend,
            #[wasm_bindgen(unchecked_param_type = "number | bigint")] returned: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] rand: JsValue,
        ) -> JsResult<Vec<u8>> {
            let t = amount(&returned, "returned")?;
            let r = self::rand::<{ 2 * SEED_LEN }>(&rand)?;
            let v = verified.take().ok_or_else(|| consumed("verified spend"))?;
            let refund =
                crate::wiped(|| hazmat::issue_refund(moderator.key(), &context.inner, &v, t, &r))
                    .or_throw()?;
            Ok(refund.to_bytes().to_vec())
        }
    }
}
