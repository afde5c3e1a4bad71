//! Base mode (RFC 9497 §3.3.1, `modeOPRF`).

use rand_core::CryptoRng;
use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{
    blind_with, check_batch, finalize_hash, outputs_equal, unblind_and_hash, BlindResult,
    BlindedElement, Blinding, Context, EvaluationElement, KeyPair, Mode, SecretKey,
};
use crate::group::{validation, PrimeGroup};
use crate::suite::{Output, Scalar, Suite};
use crate::{Error, Result};

const CTX_MODE: Mode = Mode::Oprf;

/// OPRF client state: the blind of one input. Consumed by [`OprfClient::finalize`]; zeroized on drop.
#[derive(Debug, Zeroize, ZeroizeOnDrop)]
pub struct OprfClient<S: Suite> {
    pub(crate) inner: Blinding<S>,
}

impl<S: Suite> OprfClient<S> {
    /// `Blind(input)`: a random blind and the blinded element.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] (checked before the blind is drawn), or [`Error::InvalidInput`]
    /// if the input hashes to the identity.
    pub fn blind(
        input: &[u8],
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<BlindResult<Self, S>> {
        crate::stack::token(|| {
            crate::transcript::len_prefix(input.len())?;
            let blind = S::Group::random_scalar(rng);
            Self::blind_with_scalar(input, blind)
        })
    }

    pub(crate) fn blind_with_scalar(
        input: &[u8],
        blind: Scalar<S>,
    ) -> Result<BlindResult<Self, S>> {
        let inner = blind_with(&Context::<S>::new(CTX_MODE), input, blind)?;
        let message = BlindedElement {
            point: inner.blinded,
        };
        Ok(BlindResult {
            state: Self { inner },
            message,
        })
    }

    /// `Finalize(input, blind, evaluatedElement)`: unblinds and hashes.
    ///
    /// # Errors
    /// [`Error::InputTooLong`], checked before any work.
    pub fn finalize(self, input: &[u8], evaluated: &EvaluationElement<S>) -> Result<Output<S>> {
        crate::stack::token(|| {
            crate::transcript::len_prefix(input.len())?;
            unblind_and_hash::<S>(input, None, &self.inner.blind, &evaluated.point)
        })
    }
}

/// OPRF server: holds the secret key.
#[derive(Debug, Clone)]
pub struct OprfServer<S: Suite> {
    key: SecretKey<S>,
}

impl<S: Suite> OprfServer<S> {
    /// A server with a fresh random key.
    pub fn new(rng: &mut (impl CryptoRng + ?Sized)) -> Self {
        Self {
            key: SecretKey::random(rng),
        }
    }

    /// A server with the given key.
    pub fn from_secret_key(key: SecretKey<S>) -> Self {
        Self { key }
    }

    /// A server with the key `DeriveKeyPair(seed, info)` in OPRF mode.
    ///
    /// # Errors
    /// As [`KeyPair::derive`].
    pub fn derive(seed: &[u8], info: &[u8]) -> Result<Self> {
        Ok(Self {
            key: KeyPair::<S>::derive(CTX_MODE, seed, info)?
                .secret_key()
                .clone(),
        })
    }

    /// The secret key.
    pub fn secret_key(&self) -> &SecretKey<S> {
        &self.key
    }

    /// `BlindEvaluate(skS, blindedElement)`.
    pub fn blind_evaluate(&self, blinded: &BlindedElement<S>) -> EvaluationElement<S> {
        crate::stack::token(|| {
            let p = S::Group::mul_normal(&blinded.point, &self.key.scalar);
            let mut point = S::Group::normalize(&p);
            // Published: the evaluated element `skS * blindedElement` is the server's response
            // (RFC 9497 §3.3.1).
            validation::publish(&mut point);
            EvaluationElement { point }
        })
    }

    /// `BlindEvaluate` over a batch, with one field inversion for the whole batch.
    ///
    /// # Errors
    /// [`Error::Batch`] for an empty batch or one over 65535 elements.
    pub fn blind_evaluate_batch(
        &self,
        blinded: &[BlindedElement<S>],
    ) -> Result<Vec<EvaluationElement<S>>> {
        crate::stack::token(|| {
            let n = check_batch(&[blinded.len()])?;
            let mut pts = vec![S::Group::identity(); n];
            crate::par::fill(&mut pts, |i| {
                S::Group::mul_normal(&blinded[i].point, &self.key.scalar)
            });
            let mut out = vec![S::Group::normal_identity(); pts.len()];
            S::Group::normalize_slice(&pts, &mut out)?;
            // Published: the evaluated elements are the server's response.
            validation::publish(&mut out[..]);
            Ok(out
                .into_iter()
                .map(|point| EvaluationElement { point })
                .collect())
        })
    }

    /// `Evaluate(skS, input)`: the PRF output computed directly.
    ///
    /// # Errors
    /// [`Error::InputTooLong`], or [`Error::InvalidInput`] if the input hashes to the identity.
    pub fn evaluate(&self, input: &[u8]) -> Result<Output<S>> {
        crate::stack::token(|| {
            evaluate_with::<S>(&Context::new(CTX_MODE), &self.key.scalar, input, None)
        })
    }

    /// Constant-time check that `output` is `Evaluate(skS, input)`.
    ///
    /// # Errors
    /// As [`OprfServer::evaluate`].
    pub fn verify_output(&self, input: &[u8], output: &[u8]) -> Result<bool> {
        Ok(outputs_equal::<S>(&self.evaluate(input)?, output))
    }
}

/// `Evaluate` with the key scalar `k` (or `t^-1` in POPRF): hash, multiply, hash.
pub(crate) fn evaluate_with<S: Suite>(
    ctx: &Context<S>,
    k: &Scalar<S>,
    input: &[u8],
    info: Option<&[u8]>,
) -> Result<Output<S>> {
    crate::transcript::len_prefix(input.len())?;
    let p = ctx.hash_to_group(input)?;
    if S::Group::is_identity(&p) {
        return Err(Error::InvalidInput);
    }
    let n = S::Group::normalize(&S::Group::mul(&p, k));
    finalize_hash::<S>(input, info, &n)
}
