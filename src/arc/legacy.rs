//! Legacy v1 presentation with the nonce in the clear (draft-yun-cfrg-arc-01 §"Presentation",
//! draft-ietf-privacypass-arc-crypto-00; swift-crypto `_ARCV1`).

use core::fmt;

use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeLess};
use zeroize::Zeroize;

use super::issuance::{
    check_context, request_context_scalar, CounterView, Credential, CredentialKey, PermKey,
};
use super::keys::ServerPrivateKey;
use super::presentation::Tag;
use super::sigma::{self, Base, CompactProof, Elements};
use super::statements::compute_bases;
use super::statements::{self, LEGACY_PRESENTATION_ELEMENTS, LEGACY_PRESENTATION_SCALARS};
use super::wire::{Reader, Writer};
use super::{ArcSuite, ClearNonceSuite, RngSource, ScalarSource};
use crate::group::{self, validation, Affine, Curve, Point, Scalar};
use crate::{Error, Result};

type C<S> = <S as ArcSuite>::Curve;
type Enc<S> = <C<S> as Curve>::Compressed;

/// A legacy presentation: `U' || UPrimeCommit || m1Commit || tag || c || 4 responses`
/// (`4 Ne + 5 Ns`: 292 bytes on P-256, 436 on P-384). The nonce is sent next to it.
///
/// A bearer value until its tag is spent: equality is constant time ([`ConstantTimeEq`]; `==`
/// goes through it) and there is no `Hash`; deduplicate on the tag.
#[derive(Clone, Copy)]
pub struct LegacyPresentation<S: ClearNonceSuite> {
    pub(crate) u: Affine<C<S>>,
    pub(crate) u_prime_commit: Affine<C<S>>,
    pub(crate) m1_commit: Affine<C<S>>,
    pub(crate) tag: Affine<C<S>>,
    pub(crate) proof: CompactProof<C<S>, LEGACY_PRESENTATION_SCALARS>,
}

impl<S: ClearNonceSuite> ConstantTimeEq for LegacyPresentation<S> {
    fn ct_eq(&self, o: &Self) -> subtle::Choice {
        self.u.ct_eq(&o.u)
            & self.u_prime_commit.ct_eq(&o.u_prime_commit)
            & self.m1_commit.ct_eq(&o.m1_commit)
            & self.tag.ct_eq(&o.tag)
            & self.proof.ct_eq(&o.proof)
    }
}

super::wire::eq_via_ct!(LegacyPresentation<S: ClearNonceSuite>);

impl<S: ClearNonceSuite> fmt::Debug for LegacyPresentation<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::wire::debug_hex(f, "LegacyPresentation", &self.to_bytes())
    }
}

/// The client's legacy presentation state for one credential and presentation context. The
/// nonce travels in the clear, so the nonces are drawn at random without replacement from
/// `[0, limit)` (as swift-crypto does): the `i`-th presentation uses `P(i)` for a secret random
/// permutation `P` of `[0, limit)` (a 4-round Feistel network over SHA-256 with cycle walking),
/// so every nonce is used once and the verifier cannot count presentations.
///
/// It is a view of the counter and permutation key that the [`Credential`] owns for this
/// context, obtained from [`Credential::legacy_presentation_state`]: asking again for the same
/// context continues the same permutation, never a fresh one. Persist the credential
/// ([`Credential::to_bytes`]) after `present` and before sending. `Debug` is redacted.
pub struct LegacyPresentationState<'a, S: ClearNonceSuite>(pub(crate) CounterView<'a, S>);

/// A permutation of `[0, limit)` keyed by `key`: a balanced 4-round Feistel network on
/// `2h`-bit values (`2^(2h) >= limit`) with cycle walking.
///
/// Constant time in the key and the walk: the output (the nonce) is sent in the clear, but how
/// many steps the walk took would say which Feistel outputs fell outside `[0, limit)`. So
/// [`WALKS`] steps always run and the first value in range is kept by selection; a walk longer
/// than that (each step leaves the range with probability below 3/4, since
/// `2^(2h) < 4 limit`: about 2^-26 for all of them) continues in variable time.
fn permute(key: &[u8; 32], limit: u32, x: u32) -> u32 {
    use sha2::{Digest, Sha256};
    let bits = 32 - (limit - 1).leading_zeros();
    let h = bits.div_ceil(2).max(1);
    let mask = (1u64 << h) - 1;
    let round = |r: u8, v: u64| -> u64 {
        let d = Sha256::new()
            .chain_update(key)
            .chain_update([r])
            .chain_update((v as u32).to_be_bytes())
            .finalize();
        u64::from(u32::from_be_bytes([d[0], d[1], d[2], d[3]])) & mask
    };
    let feistel = |v: u64| -> u64 {
        let (mut l, mut r) = (v >> h, v & mask);
        for i in 0..4u8 {
            let t = l ^ round(i, r);
            l = r;
            r = t;
        }
        (l << h) | r
    };
    let limit = u64::from(limit);
    let mut v = u64::from(x);
    let mut out = 0u64;
    let mut found = Choice::from(0);
    for _ in 0..WALKS {
        v = feistel(v);
        let in_range = v.ct_lt(&limit);
        out = u64::conditional_select(&out, &v, in_range & !found);
        found |= in_range;
    }
    while !group::declassify(found) {
        v = feistel(v);
        out = v;
        found = v.ct_lt(&limit);
    }
    out as u32
}

/// The cycle-walking steps [`permute`] always runs.
const WALKS: usize = 64;

impl<S: ClearNonceSuite> fmt::Debug for LegacyPresentationState<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacyPresentationState")
            .field("credential", &"<redacted>")
            .field("limit", &self.0.limit())
            .field("remaining", &self.remaining())
            .finish()
    }
}

impl<S: ClearNonceSuite> Credential<S> {
    /// The legacy presentation state for `presentation_context` and `limit >= 2`, kept inside
    /// the credential: the first call for a context draws its secret nonce permutation from
    /// `rng`; every later call, including after a [`Credential::to_bytes`] /
    /// [`Credential::from_bytes`] round trip, continues that permutation (and does not use
    /// `rng`). The limit checks come before any work.
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] for `limit < 2`, or a `limit` other than the one this context
    /// was first used with (that would reshuffle its nonces); [`Error::InputTooLong`] for a
    /// context longer than [`super::MAX_CONTEXT_LEN`]; [`Error::HashToCurve`] if hashing fails.
    pub fn legacy_presentation_state(
        &mut self,
        presentation_context: &[u8],
        limit: u32,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<LegacyPresentationState<'_, S>> {
        Ok(LegacyPresentationState(self.counter(
            presentation_context,
            limit,
            || {
                let mut k: PermKey = Box::new(zeroize::Zeroizing::new([0u8; 32]));
                rng.fill_bytes(&mut k[..]);
                Some(k)
            },
        )?))
    }
}

impl<S: ClearNonceSuite> LegacyPresentationState<'_, S> {
    super::issuance::state_accessors!();

    /// `Present` (draft-yun-cfrg-arc-01 §"Presentation"): a fresh random unused nonce and a
    /// presentation for it. Heap-free; constant time in the credential.
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] once all nonces are used.
    pub fn present(
        &mut self,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<(LegacyPresentation<S>, u32)> {
        self.present_with(&mut RngSource(rng))
    }

    pub(crate) fn present_with(
        &mut self,
        src: &mut impl ScalarSource<C<S>>,
    ) -> Result<(LegacyPresentation<S>, u32)> {
        crate::stack::arc(|| {
            if self.0.counter.perm_key.is_none() {
                // Unreachable: every legacy counter has its permutation key.
                return Err(Error::LimitExceeded);
            }
            let i = self.0.take_next()?;
            let v = &self.0;
            let mut nonce = match &v.counter.perm_key {
                Some(k) => permute(k, v.limit(), i),
                None => return Err(Error::LimitExceeded),
            };
            // Published: the legacy nonce travels in the clear next to the presentation. The
            // permutation key stays secret.
            validation::publish(&mut nonce);
            let p = make_legacy_presentation(v.key, &v.generator_t, nonce, src)?;
            Ok((p, nonce))
        })
    }
}

pub(crate) fn make_legacy_presentation<S: ClearNonceSuite>(
    cred: &CredentialKey<S>,
    generator_t: &Affine<C<S>>,
    nonce: u32,
    src: &mut impl ScalarSource<C<S>>,
) -> Result<LegacyPresentation<S>> {
    let d = S::data();
    let mut a = src.random_scalar();
    let r = src.random_scalar();
    let z = src.random_scalar();
    let nonce_s = Scalar::<C<S>>::from(u64::from(nonce));
    super::count::fixed(3);
    super::count::variable(5);
    super::count::vartime(1);
    let u = group::mul_affine::<C<S>>(&cred.u, &a);
    let u_prime_commit =
        group::mul_affine::<C<S>>(&cred.u_prime, &a) + group::mul_generator::<C<S>>(&r);
    a.zeroize();
    let m1_commit = group::mul::<C<S>>(&u, &cred.m1) + d.h_table.mul(&z);
    let tag = group::mul_affine::<C<S>>(generator_t, &group::invert::<C<S>>(&(cred.m1 + nonce_s))?);
    let v = group::mul_affine::<C<S>>(&cred.x1, &z) - group::mul_generator::<C<S>>(&r);
    let [u, u_prime_commit, m1_commit, tag, v] =
        group::normalize_array(&[u, u_prime_commit, m1_commit, tag, v]);
    // Published: `U'`, `UPrimeCommit`, `m1Commit` and the tag are the presentation (sent with
    // the nonce); `a`, `r`, `z` blind the credential in them. `V` is not part of it.
    let mut sent = [u, u_prime_commit, m1_commit, tag];
    validation::publish(&mut sent);
    let [u, u_prime_commit, m1_commit, tag] = sent;
    // m1Tag = m1 * tag = T - nonce * tag (the nonce and the tag are public).
    let m1_tag = group::to_affine(
        &(Point::<C<S>>::from(*generator_t) - group::vartime_mul::<C<S>>(&tag, &nonce_s)),
    );
    let mut p = LegacyPresentation {
        u,
        u_prime_commit,
        m1_commit,
        tag,
        proof: CompactProof::empty(0),
    };
    let (points, encodings) = p.elements(&v, &cred.x1, generator_t, &m1_tag);
    let mut witness = [cred.m1, z, -r, nonce_s];
    let mut nonces: [Scalar<C<S>>; LEGACY_PRESENTATION_SCALARS] =
        core::array::from_fn(|_| src.proof_nonce());
    let proof = sigma::prove::<C<S>, S::Transcript, LEGACY_PRESENTATION_SCALARS>(
        &d.legacy_presentation_prefix,
        &statements::legacy_presentation_statement(),
        &Elements {
            points: &points,
            encodings: &encodings,
            bases: &legacy_bases::<S>(),
        },
        &witness,
        &nonces,
    );
    witness.zeroize();
    nonces.zeroize();
    p.proof = proof?;
    // Published: the whole presentation is the client's redemption message.
    validation::publish(&mut p);
    Ok(p)
}

fn legacy_bases<'a, S: ClearNonceSuite>() -> [Base<'a, C<S>>; LEGACY_PRESENTATION_ELEMENTS] {
    let mut b = [Base::Variable; LEGACY_PRESENTATION_ELEMENTS];
    b[0] = Base::Generator;
    b[1] = Base::Table(&S::data().h_table);
    b
}

impl<S: ClearNonceSuite> LegacyPresentation<S> {
    /// Encoded length, `4 Ne + 5 Ns`.
    pub const LEN: usize = 4 * <C<S> as Curve>::COMPRESSED_LEN + 5 * <C<S> as Curve>::SCALAR_LEN;

    /// The tag.
    pub fn tag(&self) -> Tag<S> {
        Tag(C::<S>::encode_compressed(&self.tag))
    }

    #[allow(clippy::type_complexity)]
    fn elements(
        &self,
        v: &Affine<C<S>>,
        x1: &Affine<C<S>>,
        t: &Affine<C<S>>,
        m1_tag: &Affine<C<S>>,
    ) -> (
        [Affine<C<S>>; LEGACY_PRESENTATION_ELEMENTS],
        [Enc<S>; LEGACY_PRESENTATION_ELEMENTS],
    ) {
        let d = S::data();
        let pts = [
            d.g,
            d.h,
            self.u,
            self.u_prime_commit,
            self.m1_commit,
            *v,
            *x1,
            self.tag,
            *t,
            *m1_tag,
        ];
        let mut enc = [Enc::<S>::default(); LEGACY_PRESENTATION_ELEMENTS];
        enc[0] = d.g_enc;
        enc[1] = d.h_enc;
        for (e, p) in enc.iter_mut().zip(pts.iter()).skip(2) {
            *e = C::<S>::encode_compressed(p);
        }
        (pts, enc)
    }

    /// Writes the encoding into `out` (exactly [`Self::LEN`] bytes).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        let mut w = Writer::new(out);
        for p in [&self.u, &self.u_prime_commit, &self.m1_commit, &self.tag] {
            w.element::<C<S>>(p)?;
        }
        w.scalar::<C<S>>(&self.proof.challenge)?;
        for s in &self.proof.responses[..self.proof.len] {
            w.scalar::<C<S>>(s)?;
        }
        w.finish()
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; Self::LEN];
        let _ = self.encode_into(&mut out);
        out
    }

    /// Strict decoding.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let u = r.element::<C<S>>()?;
        let u_prime_commit = r.element::<C<S>>()?;
        let m1_commit = r.element::<C<S>>()?;
        let tag = r.element::<C<S>>()?;
        let n = LEGACY_PRESENTATION_SCALARS;
        let proof = CompactProof::decode(r.take((1 + n) * C::<S>::SCALAR_LEN)?, n)?;
        r.finish()?;
        Ok(Self {
            u,
            u_prime_commit,
            m1_commit,
            tag,
            proof,
        })
    }
}

impl<S: ClearNonceSuite> ServerPrivateKey<S> {
    /// Legacy `VerifyPresentation`: checks `0 <= nonce < limit`, computes
    /// `m1Tag = T - nonce * tag` with one scalar multiplication, and verifies the proof.
    /// Returns the tag; the caller rejects repeated tags.
    ///
    /// The verifier's own parameters (contexts, limit) are checked first, before any work, with
    /// typed errors; the received nonce and presentation fail as [`Error::InvalidProof`] (the
    /// nonce range before any work too).
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for a context longer than [`super::MAX_CONTEXT_LEN`];
    /// [`Error::LimitExceeded`] for `limit < 2`; [`Error::InvalidProof`] whatever failed in the
    /// presentation, including `nonce >= limit`.
    pub fn verify_legacy_presentation(
        &self,
        request_context: &[u8],
        presentation_context: &[u8],
        presentation: &LegacyPresentation<S>,
        nonce: u32,
        limit: u32,
    ) -> Result<Tag<S>> {
        crate::stack::arc(|| {
            check_context(request_context)?;
            check_context(presentation_context)?;
            compute_bases(limit)?;
            self.verify_legacy_inner(
                request_context,
                presentation_context,
                presentation,
                nonce,
                limit,
            )
            .map_err(|_| Error::InvalidProof)
        })
    }

    fn verify_legacy_inner(
        &self,
        request_context: &[u8],
        presentation_context: &[u8],
        p: &LegacyPresentation<S>,
        nonce: u32,
        limit: u32,
    ) -> Result<Tag<S>> {
        if nonce >= limit {
            return Err(Error::InvalidProof);
        }
        for e in [&p.u, &p.u_prime_commit, &p.m1_commit, &p.tag] {
            if bool::from(e.is_identity()) {
                return Err(Error::InvalidProof);
            }
        }
        let d = S::data();
        let m2 = request_context_scalar::<S>(request_context)?;
        let t = super::hash_to_group::<S>(&[presentation_context], b"Tag")?;
        super::count::variable(2);
        super::count::vartime(1);
        let v = group::mul_affine::<C<S>>(&p.u, &(self.x0 + self.x2 * m2))
            + group::mul_affine::<C<S>>(&p.m1_commit, &self.x1)
            - p.u_prime_commit;
        let nonce_s = Scalar::<C<S>>::from(u64::from(nonce));
        let m1_tag = t - group::vartime_mul::<C<S>>(&p.tag, &nonce_s);
        let [v, mut t, mut m1_tag] = group::normalize_array(&[v, t, m1_tag]);
        // Public: `T` (a hash of the context) and `m1Tag = T - nonce tag`, which share `V`'s
        // field inversion, so memcheck sees them as derived from it.
        validation::publish(&mut t);
        validation::publish(&mut m1_tag);
        // `V` is secret here (a MAC value of the key for a presentation the server did not
        // certify): its identity check is a by-design refusal of negligible probability, and
        // the proof verification treats it as secret (`Base::Secret`) up to the verdict.
        if group::declassify(v.is_identity()) || bool::from(m1_tag.is_identity()) {
            return Err(Error::InvalidProof);
        }
        let (points, encodings) = p.elements(&v, &self.public.x1, &t, &m1_tag);
        let mut bases = legacy_bases::<S>();
        bases[5] = Base::Secret;
        bases[6] = Base::Table(&self.tables.x1);
        sigma::verify::<C<S>, S::Transcript, LEGACY_PRESENTATION_SCALARS>(
            &d.legacy_presentation_prefix,
            &statements::legacy_presentation_statement(),
            &Elements {
                points: &points,
                encodings: &encodings,
                bases: &bases,
            },
            &p.proof,
        )?;
        Ok(p.tag())
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(LegacyPresentation<S: ClearNonceSuite>);

#[cfg(test)]
mod tests {
    use super::permute;

    #[test]
    fn permutation_covers_the_range_once() {
        for limit in [2u32, 3, 4, 5, 7, 100, 257, 1000] {
            for seed in 0..4u8 {
                let key = [seed; 32];
                let mut seen = vec![false; limit as usize];
                for i in 0..limit {
                    let v = permute(&key, limit, i) as usize;
                    assert!(!seen[v], "limit {limit}: {v} twice");
                    seen[v] = true;
                }
            }
        }
        assert!(permute(&[1; 32], u32::MAX, u32::MAX - 1) < u32::MAX);
    }
}
