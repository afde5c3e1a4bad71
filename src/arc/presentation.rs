//! Presentation with a hidden nonce (crypto-01 §"Presentation", §"Range Proof").

use core::fmt;

use elliptic_curve::ff::Field;
use rand_core::CryptoRng;
use subtle::{ConditionallySelectable, ConstantTimeEq, ConstantTimeLess};
use zeroize::Zeroize;

use super::issuance::{
    check_context, request_context_scalar, CounterView, Credential, CredentialKey,
};
use super::keys::ServerPrivateKey;
use super::sigma::{self, Base, CompactProof, Elements, Equation, MAX_EQUATIONS, MAX_SCALARS};
use super::statements::{self, compute_bases, d_element, presentation_counts, range_scalar};
use super::wire::{Reader, Writer};
use super::{ArcSuite, HiddenNonceSuite, RngSource, ScalarSource, MAX_RANGE_BITS};
use crate::group::{self, validation, Affine, Curve, Point, Scalar};
use crate::{Error, Result};

type C<S> = <S as ArcSuite>::Curve;
type Enc<S> = <C<S> as Curve>::Compressed;

/// A presentation tag: `tag = (m1 + nonce)^-1 * HashToGroup(presentationContext, "Tag")`, the
/// value a verifier rate-limits on (one per credential, context and nonce): the double-spend
/// key. It is public (it travels in every presentation and redeems nothing on its own), so it
/// has ordinary `PartialEq` and `Hash` for the verifier's set of spent tags.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Tag<S: ArcSuite>(pub(crate) Enc<S>);

impl<S: ArcSuite> Tag<S> {
    /// `SerializeElement(tag)`.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_ref()
    }

    /// `SerializeElement(tag)` as a vector.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }

    /// Strict decoding (a valid, non-identity compressed point).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let p = C::<S>::decode_compressed(bytes)?;
        Ok(Tag(C::<S>::encode_compressed(&p)))
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(Tag<S: ArcSuite>);

impl<S: ArcSuite> core::hash::Hash for Tag<S> {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.as_bytes().hash(h);
    }
}

impl<S: ArcSuite> fmt::Debug for Tag<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::wire::debug_hex(f, "Tag", self.as_bytes())
    }
}

/// The proof of a presentation: the range-proof commitments `D[0..k]` and `c || responses`.
const PRESENTATION_MAX_SCALARS: usize = MAX_SCALARS;

/// A presentation with a hidden nonce (crypto-01 §"Presentation"): `U' || UPrimeCommit ||
/// m1Commit || tag || nonceCommit || D[0..k] || c || (5 + 3k) responses`,
/// `357 + 129 k` bytes on P-256.
///
/// A presentation is a bearer value until its tag is spent, so equality is constant time
/// ([`ConstantTimeEq`]; `==` goes through it) and there is no `Hash`: deduplicate on
/// [`Presentation::tag`], never on the presentation or its bytes.
#[derive(Clone, Copy)]
pub struct Presentation<S: HiddenNonceSuite> {
    pub(crate) u: Affine<C<S>>,
    pub(crate) u_prime_commit: Affine<C<S>>,
    pub(crate) m1_commit: Affine<C<S>>,
    pub(crate) tag: Affine<C<S>>,
    pub(crate) nonce_commit: Affine<C<S>>,
    pub(crate) d: [Affine<C<S>>; MAX_RANGE_BITS],
    pub(crate) k: usize,
    pub(crate) proof: CompactProof<C<S>, PRESENTATION_MAX_SCALARS>,
}

impl<S: HiddenNonceSuite> ConstantTimeEq for Presentation<S> {
    fn ct_eq(&self, o: &Self) -> subtle::Choice {
        let points = [
            (&self.u, &o.u),
            (&self.u_prime_commit, &o.u_prime_commit),
            (&self.m1_commit, &o.m1_commit),
            (&self.tag, &o.tag),
            (&self.nonce_commit, &o.nonce_commit),
        ];
        // Unused `D` slots are the identity in both.
        points.into_iter().chain(self.d.iter().zip(&o.d)).fold(
            self.k.ct_eq(&o.k) & self.proof.ct_eq(&o.proof),
            |acc, (a, b)| acc & a.ct_eq(b),
        )
    }
}

super::wire::eq_via_ct!(Presentation<S: HiddenNonceSuite>);

impl<S: HiddenNonceSuite> fmt::Debug for Presentation<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::wire::debug_hex(f, "Presentation", &self.to_bytes())
    }
}

/// The presentation state of one credential and presentation context (crypto-01
/// §"Presentation State"): it hands out the nonces `0, 1, ..., limit - 1` once each and then
/// refuses.
///
/// It is a view of the counter that the [`Credential`] owns for this context, obtained from
/// [`Credential::presentation_state`]; asking again for the same context continues the same
/// counter. It borrows the credential mutably, so two states of one credential cannot be alive
/// at once, and it has no storage form of its own: persist the credential
/// ([`Credential::to_bytes`]) after `present` and before sending. `Debug` is redacted.
pub struct PresentationState<'a, S: HiddenNonceSuite>(pub(crate) CounterView<'a, S>);

impl<S: HiddenNonceSuite> fmt::Debug for PresentationState<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PresentationState")
            .field("credential", &"<redacted>")
            .field("limit", &self.limit())
            .field("remaining", &self.remaining())
            .finish()
    }
}

impl<S: HiddenNonceSuite> Credential<S> {
    /// `MakePresentationState(credential, presentationContext, presentationLimit)`
    /// (crypto-01 §"Presentation State"), kept inside the credential: the first call for a
    /// context starts its counter at nonce 0; every later call, including after a
    /// [`Credential::to_bytes`] / [`Credential::from_bytes`] round trip, continues it. The
    /// limit checks come before any work.
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] for `limit < 2`, or a `limit` other than the one this context
    /// was first used with (that would restart its nonces); [`Error::InputTooLong`] for a
    /// context longer than [`super::MAX_CONTEXT_LEN`]; [`Error::HashToCurve`] if hashing fails.
    pub fn presentation_state(
        &mut self,
        presentation_context: &[u8],
        limit: u32,
    ) -> Result<PresentationState<'_, S>> {
        Ok(PresentationState(self.counter(
            presentation_context,
            limit,
            || None,
        )?))
    }
}

/// Secrets of one presentation, wiped on drop.
struct PresentSecrets<C: Curve> {
    witness: [Scalar<C>; MAX_SCALARS],
    nonces: [Scalar<C>; MAX_SCALARS],
}

impl<C: Curve> Drop for PresentSecrets<C> {
    fn drop(&mut self) {
        self.witness.zeroize();
        self.nonces.zeroize();
    }
}

impl<S: HiddenNonceSuite> PresentationState<'_, S> {
    super::issuance::state_accessors!();

    /// `Present` (crypto-01 §"Presentation"): takes the next unused nonce and builds a
    /// presentation with a range proof that the committed nonce is below the limit. The nonce
    /// is consumed (in the credential) even if a later step fails. Constant time in the
    /// credential and the nonce; heap-free.
    ///
    /// Persist the credential before sending the presentation (see [`Credential`]).
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] once all `limit` nonces are used.
    pub fn present(&mut self, rng: &mut (impl CryptoRng + ?Sized)) -> Result<Presentation<S>> {
        self.present_with(&mut RngSource(rng))
    }

    pub(crate) fn present_with(
        &mut self,
        src: &mut impl ScalarSource<C<S>>,
    ) -> Result<Presentation<S>> {
        crate::stack::arc(|| {
            let nonce = self.0.take_next()?;
            let v = &self.0;
            make_presentation::<S>(v.key, &v.generator_t, nonce, v.limit(), src)
        })
    }
}

pub(crate) fn make_presentation<S: HiddenNonceSuite>(
    cred: &CredentialKey<S>,
    generator_t: &Affine<C<S>>,
    nonce: u32,
    limit: u32,
    src: &mut impl ScalarSource<C<S>>,
) -> Result<Presentation<S>> {
    let (bases, k) = compute_bases(limit)?;
    if nonce >= limit {
        return Err(Error::LimitExceeded);
    }
    let d = S::data();
    let mut a = src.random_scalar();
    let mut r = src.random_scalar();
    let mut z = src.random_scalar();
    let mut nonce_blinding = src.random_scalar();
    let mut nonce_s = Scalar::<C<S>>::from(u64::from(nonce));

    let mut sec = PresentSecrets::<C<S>> {
        witness: [Scalar::<C<S>>::ZERO; MAX_SCALARS],
        nonces: [Scalar::<C<S>>::ZERO; MAX_SCALARS],
    };
    // Bit decomposition over the descending bases, constant time in the nonce.
    let mut rem = u64::from(nonce);
    let mut partial = Scalar::<C<S>>::ZERO;
    let mut dpts = [Point::<C<S>>::IDENTITY; 6 + MAX_RANGE_BITS];
    let g = Point::<C<S>>::from(d.g);
    for i in 0..k {
        let ge = !rem.ct_lt(&bases[i]);
        rem -= u64::conditional_select(&0, &bases[i], ge);
        let bit =
            Scalar::<C<S>>::conditional_select(&Scalar::<C<S>>::ZERO, &Scalar::<C<S>>::ONE, ge);
        let s_i = if i + 1 < k {
            let s_i = src.random_scalar();
            partial += Scalar::<C<S>>::from(bases[i]) * s_i;
            s_i
        } else {
            // The last blinding makes sum(bases[i] * D[i]) equal nonceCommit.
            let inv = group::invert::<C<S>>(&Scalar::<C<S>>::from(bases[i]))?;
            inv * (nonce_blinding - partial)
        };
        sec.witness[range_scalar(k, 0, i)] = bit;
        sec.witness[range_scalar(k, 1, i)] = s_i;
        sec.witness[range_scalar(k, 2, i)] = (Scalar::<C<S>>::ONE - bit) * s_i;
        let bit_g = Point::<C<S>>::conditional_select(&Point::<C<S>>::IDENTITY, &g, ge);
        super::count::fixed(1);
        dpts[6 + i] = bit_g.add_complete(&d.h_table.mul(&s_i));
    }
    partial.zeroize();
    rem.zeroize();

    super::count::fixed(5);
    super::count::variable(5);
    let u = group::mul_affine::<C<S>>(&cred.u, &a);
    let u_prime_commit =
        group::mul_affine::<C<S>>(&cred.u_prime, &a) + group::mul_generator::<C<S>>(&r);
    let m1_commit = group::mul::<C<S>>(&u, &cred.m1) + d.h_table.mul(&z);
    let mut tag_scalar = group::invert::<C<S>>(&(cred.m1 + nonce_s))?;
    let tag = group::mul_affine::<C<S>>(generator_t, &tag_scalar);
    let nonce_commit = group::mul_generator::<C<S>>(&nonce_s) + d.h_table.mul(&nonce_blinding);
    let v = group::mul_affine::<C<S>>(&cred.x1, &z) - group::mul_generator::<C<S>>(&r);
    dpts[0] = u;
    dpts[1] = u_prime_commit;
    dpts[2] = m1_commit;
    dpts[3] = tag;
    dpts[4] = nonce_commit;
    dpts[5] = v;
    let mut aff = [Affine::<C<S>>::IDENTITY; 6 + MAX_RANGE_BITS];
    group::normalize_slice::<C<S>>(&dpts[..6 + k], &mut aff[..6 + k])?;

    let mut p = Presentation::<S> {
        u: aff[0],
        u_prime_commit: aff[1],
        m1_commit: aff[2],
        tag: aff[3],
        nonce_commit: aff[4],
        d: [Affine::<C<S>>::IDENTITY; MAX_RANGE_BITS],
        k,
        proof: CompactProof::empty(0),
    };
    p.d[..k].copy_from_slice(&aff[6..6 + k]);
    let v_aff = aff[5];

    sec.witness[0] = cred.m1;
    sec.witness[1] = z;
    sec.witness[2] = -r;
    sec.witness[3] = nonce_s;
    sec.witness[4] = nonce_blinding;
    let (n_scalars, _, _) = presentation_counts(k);
    for n in sec.nonces[..n_scalars].iter_mut() {
        *n = src.proof_nonce();
    }
    let (points, encodings, n_elems) = p.elements(&v_aff, &cred.x1, generator_t);
    // The prover knows the G/H representation of nonceCommit and of every D[i]: a
    // multiplication by them costs two fixed-base multiplications, not one variable-base one.
    // The hints borrow their coefficients from `sec.witness` (wiped when `sec` drops), so no
    // copy of `nonce`, `nonceBlinding`, `b[i]` or `s[i]` is left in the hint array.
    let mut bases_hint = presentation_bases::<S>();
    bases_hint[usize::from(statements::NONCE_COMMIT)] = Base::Pedersen {
        g: Some(&sec.witness[3]),
        h: &sec.witness[4],
        h_table: &d.h_table,
    };
    if k > 1 {
        for i in 0..k {
            bases_hint[d_element(k, i)] = Base::Pedersen {
                g: Some(&sec.witness[range_scalar(k, 0, i)]),
                h: &sec.witness[range_scalar(k, 1, i)],
                h_table: &d.h_table,
            };
        }
    }
    let mut eqs = [Equation::default(); MAX_EQUATIONS];
    let st = statements::presentation_statement(k, &mut eqs);
    let proof = sigma::prove::<C<S>, S::Transcript, PRESENTATION_MAX_SCALARS>(
        &d.presentation_prefixes[k - 1],
        &st,
        &Elements {
            points: &points[..n_elems],
            encodings: &encodings[..n_elems],
            bases: &bases_hint[..n_elems],
        },
        &sec.witness[..n_scalars],
        &sec.nonces[..n_scalars],
    );
    drop(sec);
    for s in [
        &mut a,
        &mut r,
        &mut z,
        &mut nonce_blinding,
        &mut nonce_s,
        &mut tag_scalar,
    ] {
        s.zeroize();
    }
    p.proof = proof?;
    // Published: the presentation is the client's redemption message (crypto-01
    // §"Presentation"): `U' = a U`, the commitments (`r`, `z`, `nonceBlinding` and the `s[i]`
    // blind them), the tag, the `D[i]` and the proof. The credential, the nonce and the
    // blinds stay secret, and so does `V` (not part of it).
    validation::publish(&mut p);
    Ok(p)
}

const MAX_PRESENTATION_ELEMENTS: usize = sigma::MAX_ELEMENTS;

fn presentation_bases<'a, S: HiddenNonceSuite>() -> [Base<'a, C<S>>; MAX_PRESENTATION_ELEMENTS] {
    let mut b = [Base::Variable; MAX_PRESENTATION_ELEMENTS];
    b[0] = Base::Generator;
    b[1] = Base::Table(&S::data().h_table);
    b
}

impl<S: HiddenNonceSuite> Presentation<S> {
    /// Number of range-proof bits `k`.
    pub fn range_bits(&self) -> usize {
        self.k
    }

    /// The tag (the verifier's rate-limiting value; returned by verification as well).
    pub fn tag(&self) -> Tag<S> {
        Tag(C::<S>::encode_compressed(&self.tag))
    }

    /// The statement's elements `[G, H, U', UPrimeCommit, m1Commit, V, X1, tag, T,
    /// nonceCommit, D...]` with encodings, and how many there are.
    #[allow(clippy::type_complexity)]
    fn elements(
        &self,
        v: &Affine<C<S>>,
        x1: &Affine<C<S>>,
        t: &Affine<C<S>>,
    ) -> (
        [Affine<C<S>>; MAX_PRESENTATION_ELEMENTS],
        [Enc<S>; MAX_PRESENTATION_ELEMENTS],
        usize,
    ) {
        let d = S::data();
        let (_, n, _) = presentation_counts(self.k);
        let mut pts = [Affine::<C<S>>::IDENTITY; MAX_PRESENTATION_ELEMENTS];
        pts[..10].copy_from_slice(&[
            d.g,
            d.h,
            self.u,
            self.u_prime_commit,
            self.m1_commit,
            *v,
            *x1,
            self.tag,
            *t,
            self.nonce_commit,
        ]);
        if self.k > 1 {
            pts[10..10 + self.k].copy_from_slice(&self.d[..self.k]);
        }
        let mut enc = [Enc::<S>::default(); MAX_PRESENTATION_ELEMENTS];
        enc[0] = d.g_enc;
        enc[1] = d.h_enc;
        for (e, p) in enc[2..n].iter_mut().zip(&pts[2..n]) {
            *e = C::<S>::encode_compressed(p);
        }
        (pts, enc, n)
    }

    /// Encoded length for `k` range bits: `(5 + k) Ne + (6 + 3k) Ns`.
    pub fn encoded_len_for(k: usize) -> usize {
        (5 + k) * C::<S>::COMPRESSED_LEN + (6 + 3 * k) * C::<S>::SCALAR_LEN
    }

    /// Encoded length of this presentation.
    pub fn encoded_len(&self) -> usize {
        Self::encoded_len_for(self.k)
    }

    /// Writes the encoding into `out` (exactly [`Self::encoded_len`] bytes).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        let mut w = Writer::new(out);
        for p in [
            &self.u,
            &self.u_prime_commit,
            &self.m1_commit,
            &self.tag,
            &self.nonce_commit,
        ] {
            w.element::<C<S>>(p)?;
        }
        for p in &self.d[..self.k] {
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
        let mut out = vec![0u8; self.encoded_len()];
        let _ = self.encode_into(&mut out);
        out
    }

    /// Strict decoding; `k` follows from the length (`1 <= k <= 32`).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let base = Self::encoded_len_for(0);
        let per = C::<S>::COMPRESSED_LEN + 3 * C::<S>::SCALAR_LEN;
        let extra = bytes.len().checked_sub(base).ok_or(Error::InvalidLength)?;
        if extra % per != 0 {
            return Err(Error::InvalidLength);
        }
        let k = extra / per;
        if !(1..=MAX_RANGE_BITS).contains(&k) {
            return Err(Error::InvalidLength);
        }
        let mut r = Reader::new(bytes);
        let u = r.element::<C<S>>()?;
        let u_prime_commit = r.element::<C<S>>()?;
        let m1_commit = r.element::<C<S>>()?;
        let tag = r.element::<C<S>>()?;
        let nonce_commit = r.element::<C<S>>()?;
        let mut d = [Affine::<C<S>>::IDENTITY; MAX_RANGE_BITS];
        for p in d[..k].iter_mut() {
            *p = r.element::<C<S>>()?;
        }
        let n = 5 + 3 * k;
        let proof = CompactProof::decode(r.take((1 + n) * C::<S>::SCALAR_LEN)?, n)?;
        r.finish()?;
        Ok(Self {
            u,
            u_prime_commit,
            m1_commit,
            tag,
            nonce_commit,
            d,
            k,
            proof,
        })
    }
}

impl<S: HiddenNonceSuite> ServerPrivateKey<S> {
    /// `VerifyPresentation` (crypto-01 §"Presentation Verification"): recomputes
    /// `V = x0 U' + x1 m1Commit + x2 m2 U' - UPrimeCommit` (constant time in the key), checks
    /// `sum bases[i] D[i] == nonceCommit` and the presentation proof, and returns the tag. The
    /// caller must reject a tag it has already seen for this context (double spending).
    /// Heap-free.
    ///
    /// The verifier's own parameters (contexts, limit) are checked first, before any work, with
    /// typed errors; everything about the presentation fails as [`Error::InvalidProof`].
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for a context longer than [`super::MAX_CONTEXT_LEN`];
    /// [`Error::LimitExceeded`] for `limit < 2`; [`Error::InvalidProof`] whatever failed in the
    /// presentation, including a range proof for another limit.
    pub fn verify_presentation(
        &self,
        request_context: &[u8],
        presentation_context: &[u8],
        presentation: &Presentation<S>,
        limit: u32,
    ) -> Result<Tag<S>> {
        crate::stack::arc(|| {
            check_context(request_context)?;
            check_context(presentation_context)?;
            let (bases, k) = compute_bases(limit)?;
            self.verify_presentation_inner(
                request_context,
                presentation_context,
                presentation,
                (&bases, k),
            )
            .map_err(|_| Error::InvalidProof)
        })
    }

    fn verify_presentation_inner(
        &self,
        request_context: &[u8],
        presentation_context: &[u8],
        p: &Presentation<S>,
        (bases, k): (&[u64; MAX_RANGE_BITS], usize),
    ) -> Result<Tag<S>> {
        if k != p.k {
            return Err(Error::InvalidProof);
        }
        for e in [
            &p.u,
            &p.u_prime_commit,
            &p.m1_commit,
            &p.tag,
            &p.nonce_commit,
        ] {
            if bool::from(e.is_identity()) {
                return Err(Error::InvalidProof);
            }
        }
        let d = S::data();
        let m2 = request_context_scalar::<S>(request_context)?;
        let t = super::hash_to_group::<S>(&[presentation_context], b"Tag")?;
        super::count::variable(2);
        super::count::vartime(k as u64);
        let v = group::mul_affine::<C<S>>(&p.u, &(self.x0 + self.x2 * m2))
            + group::mul_affine::<C<S>>(&p.m1_commit, &self.x1)
            - p.u_prime_commit;
        // Sum check (public data, small scalars).
        let mut sum = Point::<C<S>>::IDENTITY;
        for (di, b) in p.d[..k].iter().zip(&bases[..k]) {
            sum = sum.vartime_add(&group::vartime_mul::<C<S>>(di, &Scalar::<C<S>>::from(*b)));
        }
        let [v_aff, mut t_aff, mut sum_aff] = group::normalize_array(&[v, t, sum]);
        // Public: `T` (a hash of the context) and the sum of the `D[i]`, which share `V`'s
        // field inversion, so memcheck sees them as derived from it.
        validation::publish(&mut t_aff);
        validation::publish(&mut sum_aff);
        // `V` is secret here: for a presentation the server did not certify it is a MAC value
        // of the key on the attacker's points. It is the identity only with negligible
        // probability without the key; that refusal is by design, and the proof verification
        // below treats it as secret (`Base::Secret`) up to the verdict.
        if sum_aff != p.nonce_commit || group::declassify(v_aff.is_identity()) {
            return Err(Error::InvalidProof);
        }
        let (points, encodings, n_elems) = p.elements(&v_aff, &self.public.x1, &t_aff);
        let mut bases_hint = presentation_bases::<S>();
        bases_hint[5] = Base::Secret;
        bases_hint[6] = Base::Table(&self.tables.x1);
        let mut eqs = [Equation::default(); MAX_EQUATIONS];
        let st = statements::presentation_statement(k, &mut eqs);
        // The statement reads D[i] through `d_element`; for k = 1 that is nonceCommit, which
        // the sum check has just shown equal to D[0].
        debug_assert_eq!(d_element(k, 0), if k == 1 { 9 } else { 10 });
        sigma::verify::<C<S>, S::Transcript, PRESENTATION_MAX_SCALARS>(
            &d.presentation_prefixes[k - 1],
            &st,
            &Elements {
                points: &points[..n_elems],
                encodings: &encodings[..n_elems],
                bases: &bases_hint[..n_elems],
            },
            &p.proof,
        )?;
        Ok(p.tag())
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(Presentation<S: HiddenNonceSuite>);
