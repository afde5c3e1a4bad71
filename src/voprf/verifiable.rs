//! Verifiable mode (RFC 9497 §3.3.2, `modeVOPRF`).

use rand_core::CryptoRng;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::oprf::evaluate_with;
use super::{
    blind_with, check_batch, outputs_equal, proof_generate, proof_verify, unblind_and_hash,
    unblind_batch, BatchEvaluation, BlindResult, BlindedElement, Blinding, Context, Evaluation,
    EvaluationElement, KeyPair, Mode, Proof, PublicKey, SecretKey,
};
use crate::group::{validation, PrimeGroup};
use crate::suite::{Normal, Output, Scalar, Suite};
#[allow(unused_imports)]
use crate::{Error, Result};

const CTX_MODE: Mode = Mode::Voprf;

/// VOPRF client state: the blind and blinded element of one input. Consumed by
/// [`VoprfClient::finalize`]; zeroized on drop.
#[derive(Debug, Zeroize, ZeroizeOnDrop)]
pub struct VoprfClient<S: Suite> {
    pub(crate) inner: Blinding<S>,
}

impl<S: Suite> VoprfClient<S> {
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
            Self::blind_with_scalar(input, S::Group::random_scalar(rng))
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

    /// The blinded element this state was made for.
    pub fn blinded_element(&self) -> BlindedElement<S> {
        BlindedElement {
            point: self.inner.blinded,
        }
    }

    /// `Finalize(input, blind, evaluatedElement, blindedElement, pkS, proof)`: verifies the proof,
    /// then unblinds and hashes.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] when the proof does not verify; [`Error::InputTooLong`].
    pub fn finalize(
        self,
        input: &[u8],
        evaluated: &EvaluationElement<S>,
        proof: &Proof<S>,
        public_key: &PublicKey<S>,
    ) -> Result<Output<S>> {
        crate::stack::token(|| self.finalize_in_place(input, evaluated, proof, public_key))
    }

    /// [`VoprfClient::finalize`] without consuming the state, for owners that keep it in place
    /// until they drop it (the blind is then wiped where it lies).
    pub(crate) fn finalize_in_place(
        &self,
        input: &[u8],
        evaluated: &EvaluationElement<S>,
        proof: &Proof<S>,
        public_key: &PublicKey<S>,
    ) -> Result<Output<S>> {
        crate::transcript::len_prefix(input.len())?;
        let ctx = Context::<S>::new(CTX_MODE);
        proof_verify(
            &ctx,
            &public_key.point,
            &[self.inner.blinded],
            &[evaluated.point],
            proof,
        )?;
        unblind_and_hash::<S>(input, None, &self.inner.blind, &evaluated.point)
    }

    /// Batched `Finalize`: one proof check for the batch, then one scalar inversion and one field
    /// inversion for all the unblindings. Any failure rejects the whole batch.
    ///
    /// # Errors
    /// [`Error::Batch`] on mismatched or invalid lengths; [`Error::InvalidProof`];
    /// [`Error::InputTooLong`].
    pub fn finalize_batch(
        clients: Vec<Self>,
        inputs: &[&[u8]],
        evaluated: &[EvaluationElement<S>],
        proof: &Proof<S>,
        public_key: &PublicKey<S>,
    ) -> Result<Vec<Output<S>>> {
        crate::stack::token(|| {
            Self::finalize_batch_in_place(&clients, |c| c, inputs, evaluated, proof, public_key)
        })
    }

    /// [`VoprfClient::finalize_batch`] over states that stay in place inside their owners
    /// (`client` picks each one out), so that the owners wipe them when they drop.
    pub(crate) fn finalize_batch_in_place<T>(
        owners: &[T],
        client: impl Fn(&T) -> &Self,
        inputs: &[&[u8]],
        evaluated: &[EvaluationElement<S>],
        proof: &Proof<S>,
        public_key: &PublicKey<S>,
    ) -> Result<Vec<Output<S>>> {
        check_batch(&[owners.len(), inputs.len(), evaluated.len()])?;
        for i in inputs {
            crate::transcript::len_prefix(i.len())?;
        }
        let ctx = Context::<S>::new(CTX_MODE);
        let cs: Vec<Normal<S>> = owners.iter().map(|o| client(o).inner.blinded).collect();
        let ds: Vec<Normal<S>> = evaluated.iter().map(|e| e.point).collect();
        proof_verify(&ctx, &public_key.point, &cs, &ds, proof)?;
        let mut blinds: Zeroizing<Vec<Scalar<S>>> =
            Zeroizing::new(owners.iter().map(|o| client(o).inner.blind).collect());
        unblind_batch::<S>(inputs, None, &mut blinds, &ds)
    }
}

/// VOPRF server: holds the key pair.
#[derive(Debug, Clone)]
pub struct VoprfServer<S: Suite> {
    keys: KeyPair<S>,
}

impl<S: Suite> VoprfServer<S> {
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

    /// A server with the key pair `DeriveKeyPair(seed, info)` in VOPRF mode.
    ///
    /// # Errors
    /// As [`KeyPair::derive`].
    pub fn derive(seed: &[u8], info: &[u8]) -> Result<Self> {
        Ok(Self {
            keys: KeyPair::derive(CTX_MODE, seed, info)?,
        })
    }

    /// The public key clients verify proofs against.
    pub fn public_key(&self) -> &PublicKey<S> {
        self.keys.public_key()
    }

    /// The secret key.
    pub fn secret_key(&self) -> &SecretKey<S> {
        self.keys.secret_key()
    }

    /// `BlindEvaluate(skS, pkS, blindedElement)`: the evaluated element and its proof.
    ///
    /// The proof nonce `r` is wiped before this returns.
    ///
    /// # Errors
    /// None in practice: hashing with the suite's fixed DSTs cannot fail.
    pub fn blind_evaluate(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        blinded: &BlindedElement<S>,
    ) -> Result<Evaluation<S>> {
        crate::stack::token(|| {
            let r = Zeroizing::new(S::Group::random_scalar(rng));
            let mut out = [EvaluationElement {
                point: S::Group::normal_identity(),
            }];
            let proof =
                self.blind_evaluate_batch_with_nonce(core::slice::from_ref(blinded), &mut out, &r)?;
            Ok(Evaluation {
                message: out[0],
                proof,
            })
        })
    }

    /// Batched `BlindEvaluate` into a caller buffer: one proof for the batch, one field inversion for
    /// all evaluated elements.
    ///
    /// # Errors
    /// [`Error::Batch`] when `out` and `blinded` differ in length, or the batch is empty or over
    /// 65535 (checked before the proof nonce is drawn).
    pub fn blind_evaluate_batch_into(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        blinded: &[BlindedElement<S>],
        out: &mut [EvaluationElement<S>],
    ) -> Result<Proof<S>> {
        crate::stack::token(|| {
            check_batch(&[blinded.len(), out.len()])?;
            let r = Zeroizing::new(S::Group::random_scalar(rng));
            self.blind_evaluate_batch_with_nonce(blinded, out, &r)
        })
    }

    /// Batched `BlindEvaluate`: the evaluated elements and one proof.
    ///
    /// # Errors
    /// [`Error::Batch`] when the batch is empty or over 65535 elements.
    pub fn blind_evaluate_batch(
        &self,
        rng: &mut (impl CryptoRng + ?Sized),
        blinded: &[BlindedElement<S>],
    ) -> Result<BatchEvaluation<S>> {
        check_batch(&[blinded.len()])?;
        let mut messages = vec![
            EvaluationElement {
                point: S::Group::normal_identity()
            };
            blinded.len()
        ];
        let proof = self.blind_evaluate_batch_into(rng, blinded, &mut messages)?;
        Ok(BatchEvaluation { messages, proof })
    }

    pub(crate) fn blind_evaluate_batch_with_nonce(
        &self,
        blinded: &[BlindedElement<S>],
        out: &mut [EvaluationElement<S>],
        r: &Scalar<S>,
    ) -> Result<Proof<S>> {
        let n = check_batch(&[blinded.len(), out.len()])?;
        let k = &self.keys.secret_key().scalar;
        let ctx = Context::<S>::new(CTX_MODE);
        if n == 1 {
            let z = S::Group::mul_normal(&blinded[0].point, k);
            out[0].point = S::Group::normalize(&z);
            // Published: the evaluated element `k * blindedElement` is the server's response
            // (RFC 9497 §3.3.2), sent with the proof that covers it.
            validation::publish(&mut out[0].point);
            return proof_generate(
                &ctx,
                k,
                &self.public_key().point,
                &[blinded[0].point],
                &[out[0].point],
                r,
            );
        }
        let mut pts = vec![S::Group::identity(); n];
        let cs: Vec<Normal<S>> = blinded.iter().map(|b| b.point).collect();
        crate::par::try_fill_pieces(&mut pts, |start, piece| {
            S::Group::mul_batch(&cs[start..start + piece.len()], k, piece)
        })?;
        let mut ds = vec![S::Group::normal_identity(); n];
        S::Group::normalize_slice(&pts, &mut ds)?;
        // Published: the evaluated elements are the server's response.
        validation::publish(&mut ds[..]);
        let proof = proof_generate(&ctx, k, &self.public_key().point, &cs, &ds, r)?;
        for (o, d) in out.iter_mut().zip(ds) {
            o.point = d;
        }
        Ok(proof)
    }

    /// `Evaluate(skS, input)`: the PRF output computed directly (e.g. token redemption).
    ///
    /// # Errors
    /// [`Error::InputTooLong`], or [`Error::InvalidInput`] if the input hashes to the identity.
    pub fn evaluate(&self, input: &[u8]) -> Result<Output<S>> {
        crate::stack::token(|| {
            evaluate_with::<S>(
                &Context::new(CTX_MODE),
                &self.secret_key().scalar,
                input,
                None,
            )
        })
    }

    /// Constant-time check that `output` is `Evaluate(skS, input)`.
    ///
    /// # Errors
    /// As [`VoprfServer::evaluate`].
    pub fn verify_output(&self, input: &[u8], output: &[u8]) -> Result<bool> {
        Ok(outputs_equal::<S>(&self.evaluate(input)?, output))
    }
}
