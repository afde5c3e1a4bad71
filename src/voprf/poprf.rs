//! Partially-oblivious mode (RFC 9497 §3.3.3, `modePOPRF`).
//!
//! The proof runs over the tweaked key `t*G` with `t = skS + m`, `m = HashToScalar("Info" || ...)`,
//! and with the element lists swapped: `GenerateProof(t, G, tweakedKey, [evaluated], [blinded])`.

use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::oprf::evaluate_with;
use super::{
    blind_with, check_batch, outputs_equal, proof_generate, proof_verify, unblind_and_hash,
    unblind_batch, BatchEvaluation, BlindResult, BlindedElement, Blinding, Context, Evaluation,
    EvaluationElement, KeyPair, Mode, Proof, PublicKey, SecretKey,
};
use crate::group::{self, validation, PrimeGroup};
use crate::suite::{Normal, Output, Scalar, Suite};
use crate::transcript::len_prefix;
use crate::{Error, Result};

const CTX_MODE: Mode = Mode::Poprf;

/// `m = HashToScalar("Info" || I2OSP(len(info), 2) || info)`.
fn info_scalar<S: Suite>(ctx: &Context<S>, info: &[u8]) -> Result<Scalar<S>> {
    let l = len_prefix(info.len())?;
    ctx.hash_to_scalar(&[b"Info", &l, info])
}

/// POPRF client state: blind, blinded element, tweaked key and a digest of `info`. Consumed by
/// [`PoprfClient::finalize`]; zeroized on drop.
///
/// The state remembers which `info` it was blinded with (as the fixed-size scalar
/// `m = HashToScalar("Info" || I2OSP(len(info), 2) || info)`, no allocation), and `finalize`
/// refuses any other `info` with [`Error::InfoMismatch`] instead of returning an output that
/// matches no evaluation.
#[derive(Debug, Zeroize, ZeroizeOnDrop)]
pub struct PoprfClient<S: Suite> {
    pub(crate) inner: Blinding<S>,
    #[zeroize(skip)]
    tweaked_key: Normal<S>,
    /// `m` of the `info` given to `blind`.
    info_digest: Scalar<S>,
}

impl<S: Suite> PoprfClient<S> {
    /// `Blind(input, info, pkS)`: computes the tweaked key and blinds the input.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] if the input hashes to the identity or the tweaked key is the
    /// identity; [`Error::InputTooLong`] (checked before the blind is drawn).
    pub fn blind(
        input: &[u8],
        info: &[u8],
        public_key: &PublicKey<S>,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<BlindResult<Self, S>> {
        crate::stack::token(|| {
            len_prefix(input.len())?;
            len_prefix(info.len())?;
            Self::blind_with_scalar(input, info, public_key, S::Group::random_scalar(rng))
        })
    }

    pub(crate) fn blind_with_scalar(
        input: &[u8],
        info: &[u8],
        public_key: &PublicKey<S>,
        blind: Scalar<S>,
    ) -> Result<BlindResult<Self, S>> {
        len_prefix(input.len())?;
        let ctx = Context::<S>::new(CTX_MODE);
        let m = info_scalar(&ctx, info)?;
        let t = S::Group::add_normal(&S::Group::mul_generator(&m), &public_key.point);
        if S::Group::is_identity(&t) {
            return Err(Error::InvalidInput);
        }
        let inner = blind_with(&ctx, input, blind)?;
        let message = BlindedElement {
            point: inner.blinded,
        };
        let tweaked_key = S::Group::normalize(&t);
        Ok(BlindResult {
            state: Self {
                inner,
                tweaked_key,
                info_digest: m,
            },
            message,
        })
    }

    /// [`Error::InfoMismatch`] unless `m` is the digest of the `info` this state was blinded with.
    fn check_info(&self, m: &Scalar<S>) -> Result<()> {
        if bool::from(m.ct_eq(&self.info_digest)) {
            Ok(())
        } else {
            Err(Error::InfoMismatch)
        }
    }

    /// `Finalize(input, blind, evaluatedElement, blindedElement, proof, info, tweakedKey)`.
    ///
    /// `info` must be the one given to [`PoprfClient::blind`]: the state keeps a digest of it.
    ///
    /// # Errors
    /// [`Error::InputTooLong`]; [`Error::InfoMismatch`] when `info` is not the `info` of
    /// `blind`; [`Error::InvalidProof`] when the proof does not verify.
    pub fn finalize(
        self,
        input: &[u8],
        info: &[u8],
        evaluated: &EvaluationElement<S>,
        proof: &Proof<S>,
    ) -> Result<Output<S>> {
        crate::stack::token(|| {
            len_prefix(input.len())?;
            let ctx = Context::<S>::new(CTX_MODE);
            self.check_info(&info_scalar(&ctx, info)?)?;
            proof_verify(
                &ctx,
                &self.tweaked_key,
                &[evaluated.point],
                &[self.inner.blinded],
                proof,
            )?;
            unblind_and_hash::<S>(input, Some(info), &self.inner.blind, &evaluated.point)
        })
    }

    /// Batched `Finalize` for states made with the same `info` and key. Any failure rejects the
    /// whole batch.
    ///
    /// # Errors
    /// [`Error::Batch`] on mismatched lengths or states with different tweaked keys;
    /// [`Error::InputTooLong`]; [`Error::InfoMismatch`] when any state was blinded with
    /// another `info`; [`Error::InvalidProof`].
    pub fn finalize_batch(
        clients: Vec<Self>,
        inputs: &[&[u8]],
        info: &[u8],
        evaluated: &[EvaluationElement<S>],
        proof: &Proof<S>,
    ) -> Result<Vec<Output<S>>> {
        crate::stack::token(|| {
            check_batch(&[clients.len(), inputs.len(), evaluated.len()])?;
            for i in inputs {
                len_prefix(i.len())?;
            }
            let ctx = Context::<S>::new(CTX_MODE);
            let m = info_scalar(&ctx, info)?;
            let tweaked = clients.first().ok_or(Error::Batch)?.tweaked_key;
            for c in &clients {
                c.check_info(&m)?;
                if c.tweaked_key != tweaked {
                    return Err(Error::Batch);
                }
            }
            let blinded: Vec<Normal<S>> = clients.iter().map(|c| c.inner.blinded).collect();
            let ev: Vec<Normal<S>> = evaluated.iter().map(|e| e.point).collect();
            proof_verify(&ctx, &tweaked, &ev, &blinded, proof)?;
            let mut blinds: Zeroizing<Vec<Scalar<S>>> =
                Zeroizing::new(clients.iter().map(|c| c.inner.blind).collect());
            unblind_batch::<S>(inputs, Some(info), &mut blinds, &ev)
        })
    }
}

/// POPRF server: holds the key pair.
#[derive(Debug, Clone)]
pub struct PoprfServer<S: Suite> {
    keys: KeyPair<S>,
}

impl<S: Suite> PoprfServer<S> {
    /// A server with a fresh random key pair.
    pub fn new(rng: &mut (impl CryptoRng + ?Sized)) -> Self {
        Self {
            keys: KeyPair::generate(rng),
        }
    }

    /// A server with the given key.
    pub fn from_secret_key(key: SecretKey<S>) -> Self {
        Self {
            keys: KeyPair::from_secret_key(key),
        }
    }

    /// A server with the key pair `DeriveKeyPair(seed, info)` in POPRF mode.
    ///
    /// # Errors
    /// As [`KeyPair::derive`].
    pub fn derive(seed: &[u8], info: &[u8]) -> Result<Self> {
        Ok(Self {
            keys: KeyPair::derive(CTX_MODE, seed, info)?,
        })
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey<S> {
        self.keys.public_key()
    }

    /// The secret key.
    pub fn secret_key(&self) -> &SecretKey<S> {
        self.keys.secret_key()
    }

    /// `t = skS + m` for `info`, or [`Error::Inverse`] if it is zero. Wiped on drop.
    fn tweak(&self, ctx: &Context<S>, info: &[u8]) -> Result<Zeroizing<Scalar<S>>> {
        let m = info_scalar(ctx, info)?;
        let t = Zeroizing::new(self.secret_key().scalar + m);
        // `skS + m == 0` is refused by design (RFC 9497 §3.3.3: the key must be rotated).
        if group::declassify(S::Group::scalar_is_zero(&t)) {
            return Err(Error::Inverse);
        }
        Ok(t)
    }

    /// `t` and `t^-1` for `info`, both wiped on drop.
    #[allow(clippy::type_complexity)]
    fn tweak_and_inverse(
        &self,
        ctx: &Context<S>,
        info: &[u8],
    ) -> Result<(Zeroizing<Scalar<S>>, Zeroizing<Scalar<S>>)> {
        let t = self.tweak(ctx, info)?;
        let t_inv = Zeroizing::new(S::Group::invert_scalar(&t)?);
        Ok((t, t_inv))
    }

    /// `BlindEvaluate(skS, blindedElement, info)`: `t^-1 * B` and the proof over the tweaked key.
    ///
    /// The proof nonce `r`, the tweak `t` and `t^-1` are wiped before this returns.
    ///
    /// # Errors
    /// [`Error::Inverse`] when `skS + m == 0` (the key must be rotated); [`Error::InputTooLong`]
    /// (checked before the proof nonce is drawn).
    pub fn blind_evaluate(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        blinded: &BlindedElement<S>,
        info: &[u8],
    ) -> Result<Evaluation<S>> {
        crate::stack::token(|| {
            len_prefix(info.len())?;
            let r = Zeroizing::new(S::Group::random_scalar(rng));
            let mut out = [EvaluationElement {
                point: S::Group::normal_identity(),
            }];
            let proof = self.blind_evaluate_batch_with_nonce(
                core::slice::from_ref(blinded),
                info,
                &mut out,
                &r,
            )?;
            Ok(Evaluation {
                message: out[0],
                proof,
            })
        })
    }

    /// Batched `BlindEvaluate` with one `info` and one proof for the batch.
    ///
    /// # Errors
    /// As [`PoprfServer::blind_evaluate`], plus [`Error::Batch`] (checked, like the length of
    /// `info`, before the proof nonce is drawn).
    pub fn blind_evaluate_batch(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        blinded: &[BlindedElement<S>],
        info: &[u8],
    ) -> Result<BatchEvaluation<S>> {
        crate::stack::token(|| {
            check_batch(&[blinded.len()])?;
            len_prefix(info.len())?;
            let r = Zeroizing::new(S::Group::random_scalar(rng));
            let mut messages = vec![
                EvaluationElement {
                    point: S::Group::normal_identity()
                };
                blinded.len()
            ];
            let proof = self.blind_evaluate_batch_with_nonce(blinded, info, &mut messages, &r)?;
            Ok(BatchEvaluation { messages, proof })
        })
    }

    pub(crate) fn blind_evaluate_batch_with_nonce(
        &self,
        blinded: &[BlindedElement<S>],
        info: &[u8],
        out: &mut [EvaluationElement<S>],
        r: &Scalar<S>,
    ) -> Result<Proof<S>> {
        let n = check_batch(&[blinded.len(), out.len()])?;
        let ctx = Context::<S>::new(CTX_MODE);
        let (t, t_inv) = self.tweak_and_inverse(&ctx, info)?;
        let tk = S::Group::mul_generator(&t);
        if n == 1 {
            // Stack only: the evaluated element and the tweaked key share one inversion.
            let z = S::Group::mul_normal(&blinded[0].point, &t_inv);
            let [mut ev, mut tweaked_key] = S::Group::normalize_array::<2>(&[z, tk]);
            // Published: the evaluated element is the server's response (RFC 9497 §3.3.3), and
            // the tweaked key `t*G = pkS + m*G` is what the client computes from `pkS` and
            // `info`. `t` and `t^-1` stay secret.
            validation::publish(&mut ev);
            validation::publish(&mut tweaked_key);
            out[0].point = ev;
            return proof_generate(&ctx, &t, &tweaked_key, &[ev], &[blinded[0].point], r);
        }
        // The evaluated elements and the tweaked key share one field inversion.
        let mut pts = vec![tk; n + 1];
        crate::par::fill(&mut pts[..n], |i| {
            S::Group::mul_normal(&blinded[i].point, &t_inv)
        });
        let mut ev = vec![S::Group::normal_identity(); n + 1];
        S::Group::normalize_slice(&pts, &mut ev)?;
        // Published: the evaluated elements (the response) and the tweaked key `pkS + m*G`.
        validation::publish(&mut ev[..]);
        let tweaked_key = ev[n];
        let cs: Vec<Normal<S>> = blinded.iter().map(|b| b.point).collect();
        let proof = proof_generate(&ctx, &t, &tweaked_key, &ev[..n], &cs, r)?;
        for (o, e) in out.iter_mut().zip(ev) {
            o.point = e;
        }
        Ok(proof)
    }

    /// `Evaluate(skS, input, info)`: `t^-1 * HashToGroup(input)`, hashed with `info`.
    ///
    /// # Errors
    /// [`Error::Inverse`], [`Error::InvalidInput`] or [`Error::InputTooLong`].
    pub fn evaluate(&self, input: &[u8], info: &[u8]) -> Result<Output<S>> {
        crate::stack::token(|| {
            len_prefix(input.len())?;
            let ctx = Context::<S>::new(CTX_MODE);
            let (_, t_inv) = self.tweak_and_inverse(&ctx, info)?;
            evaluate_with::<S>(&ctx, &t_inv, input, Some(info))
        })
    }

    /// Constant-time check that `output` is `Evaluate(skS, input, info)`.
    ///
    /// # Errors
    /// As [`PoprfServer::evaluate`].
    pub fn verify_output(&self, input: &[u8], info: &[u8], output: &[u8]) -> Result<bool> {
        Ok(outputs_equal::<S>(&self.evaluate(input, info)?, output))
    }
}
