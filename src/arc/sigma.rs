//! A generic linear-relation prover and verifier (Schnorr proofs, Maurer's preimage proof).
//!
//! A statement is a list of scalar variables, a list of element variables and equations
//! `LHS_j = sum scalar_i * element_k` (draft-irtf-cfrg-sigma-protocols §"Linear relations").
//! The prover commits with one random nonce per scalar, `A_j = sum nonce_i * element_k`,
//! derives the challenge `c` from a pluggable [`SigmaTranscript`], and answers
//! `response_i = nonce_i ± c * witness_i`. The compact proof is `c || responses`; the verifier
//! rebuilds each `A_j = sum response_i * element_k ∓ c * LHS_j` (a multi-scalar
//! multiplication per equation) and recomputes `c`.
//!
//! Nothing here allocates: statements are slices of fixed-size [`Equation`]s (the ARC statements
//! are `const` arrays, the presentation statement is built in a stack array sized for the largest
//! range proof), points, encodings and responses live in caller arrays, and the constant part of
//! the transcript (protocol id, session, statement structure) is absorbed once into a
//! [`SigmaTranscript::Prefix`] that is cloned per proof.

use core::fmt;

use elliptic_curve::ff::Field;
use elliptic_curve::ops::Reduce;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use subtle::ConstantTimeEq;

use zeroize::Zeroize;

use crate::group::{self, Affine, Curve, FixedBaseTable, Point, Scalar, Xmd};
use crate::{Error, Result};

/// At most this many terms on the right-hand side of one equation.
pub const MAX_TERMS: usize = 3;
/// At most this many equations in one statement (ARC presentation with `k = 32`: `4 + 2k`).
pub const MAX_EQUATIONS: usize = 4 + 2 * 32;
/// At most this many scalar variables (ARC presentation with `k = 32`: `5 + 3k`).
pub const MAX_SCALARS: usize = 5 + 3 * 32;
/// At most this many element variables (ARC presentation with `k = 32`: `10 + k`).
pub const MAX_ELEMENTS: usize = 10 + 32;

/// One term `scalar[scalar] * element[element]` of an equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Term {
    /// Index of the scalar variable.
    pub scalar: u8,
    /// Index of the element variable.
    pub element: u8,
}

/// One equation `element[lhs] = sum terms` with 1 to [`MAX_TERMS`] terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Equation {
    /// Index of the left-hand-side element.
    pub lhs: u8,
    /// Number of terms in use.
    pub len: u8,
    /// The terms (`len` of them are used).
    pub terms: [Term; MAX_TERMS],
}

impl Equation {
    /// `lhs = terms` (at most [`MAX_TERMS`]; extra terms are ignored), usable in `const` items.
    pub const fn new(lhs: u8, terms: &[(u8, u8)]) -> Self {
        let mut t = [Term {
            scalar: 0,
            element: 0,
        }; MAX_TERMS];
        let mut i = 0;
        while i < terms.len() && i < MAX_TERMS {
            t[i] = Term {
                scalar: terms[i].0,
                element: terms[i].1,
            };
            i += 1;
        }
        let len = if terms.len() < MAX_TERMS {
            terms.len()
        } else {
            MAX_TERMS
        };
        Self {
            lhs,
            len: len as u8,
            terms: t,
        }
    }

    /// The terms in use.
    pub fn terms(&self) -> &[Term] {
        &self.terms[..usize::from(self.len)]
    }
}

/// The shape of a statement: counts and equations.
#[derive(Clone, Copy, Debug)]
pub struct Statement<'a> {
    /// Number of scalar variables.
    pub scalars: usize,
    /// Number of element variables.
    pub elements: usize,
    /// The equations, in order (the order is part of the transcript).
    pub equations: &'a [Equation],
}

impl Statement<'_> {
    fn check(&self) -> Result<()> {
        if self.scalars > MAX_SCALARS
            || self.elements > MAX_ELEMENTS
            || self.equations.len() > MAX_EQUATIONS
            || self.equations.is_empty()
        {
            return Err(Error::Batch);
        }
        for eq in self.equations {
            if eq.len == 0
                || usize::from(eq.len) > MAX_TERMS
                || usize::from(eq.lhs) >= self.elements
                || eq.terms().iter().any(|t| {
                    usize::from(t.scalar) >= self.scalars || usize::from(t.element) >= self.elements
                })
            {
                return Err(Error::Batch);
            }
        }
        Ok(())
    }
}

/// How the prover multiplies by an element variable (a speed hint; results are identical).
#[derive(Clone, Copy)]
pub enum Base<'a, C: Curve> {
    /// The group generator: the process-wide generator table.
    Generator,
    /// A base with a precomputed fixed-base table.
    Table(&'a FixedBaseTable<C>),
    /// Any other element: variable-base multiplication.
    Variable,
    /// An element whose representation `g * G + h * H` the prover knows (prover only; a
    /// verifier treats it as [`Base::Variable`]): `k * P = (k g) * G + (k h) * H` with two
    /// fixed-base multiplications instead of one variable-base one. `g = None` means a public 0.
    /// The coefficients are secret, so the hint only borrows them: they stay in the caller's
    /// storage, which the caller wipes (a hint array never holds a copy to forget).
    Pedersen {
        /// The coefficient of `G`, if any.
        g: Option<&'a Scalar<C>>,
        /// The coefficient of `H`.
        h: &'a Scalar<C>,
        /// The fixed-base table of `H`.
        h_table: &'a FixedBaseTable<C>,
    },
}

impl<C: Curve> fmt::Debug for Base<'_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Base::Generator => "Generator",
            Base::Table(_) => "Table",
            Base::Variable => "Variable",
            Base::Pedersen { .. } => "Pedersen(<redacted>)",
        })
    }
}

/// The public element values of a statement, in allocation order.
#[derive(Clone, Copy, Debug)]
pub struct Elements<'a, C: Curve> {
    /// Affine values.
    pub points: &'a [Affine<C>],
    /// Their compressed encodings (absorbed by the transcript).
    pub encodings: &'a [C::Compressed],
    /// Multiplication hints, one per element.
    pub bases: &'a [Base<'a, C>],
}

/// A Fiat-Shamir transform for linear-relation proofs.
pub trait SigmaTranscript<C: Curve> {
    /// `true`: `response = nonce + c * witness` (sigma-protocols); `false`: `nonce - c * witness`
    /// (the legacy ARC "Schnorr compiler").
    const ADDITIVE: bool;
    /// The transcript state after absorbing everything that depends only on the statement.
    type Prefix: Clone + fmt::Debug;

    /// Absorbs the constant part: protocol identifiers, `session` and the statement structure.
    ///
    /// # Errors
    /// [`Error::Batch`] for statements beyond the engine's bounds.
    fn prefix(session: &[&'static [u8]], statement: &Statement<'_>) -> Result<Self::Prefix>;

    /// The challenge from the prefix, the element encodings and the commitment encodings.
    ///
    /// # Errors
    /// [`Error::HashToCurve`] if a hash expansion fails, [`Error::Batch`] beyond the bounds.
    fn challenge(
        prefix: &Self::Prefix,
        elements: &[C::Compressed],
        commitments: &[C::Compressed],
    ) -> Result<Scalar<C>>;
}

// ---------------------------------------------------------------------------------------------
// v2: sigma-protocols SHAKE128 (mmaker/draft-irtf-cfrg-sigma-protocols@4bc7eb4)

/// The `NISchnorrProofShake128P256` transcript of draft-ietf-privacypass-arc-crypto-01 §"Proofs".
///
/// The exact bytes are those of the sigma-protocols reference code at commit `4bc7eb4`, which
/// the crypto-01 vectors follow (they do not match the sigma draft tagged -01):
/// `SHAKE128(pad64(protocol_id) || 0^104 || BE32(len(session)) || session || BE32(len(label))
/// || label || commitments)`, `label = LE32(#eqs) || (LE32(lhs) || LE32(#terms) || (LE32(scalar)
/// || LE32(element))*)* || elements`, `c = OS2IP(48 bytes) mod n`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shake128Transcript;

/// The absorbed constant prefix of a [`Shake128Transcript`].
#[derive(Clone)]
pub struct Shake128Prefix(sha3::Shake128);

impl fmt::Debug for Shake128Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Shake128Prefix")
    }
}

/// The sigma-protocols protocol identifier of the P-256 SHAKE128 ciphersuite.
pub const SHAKE128_P256_PROTOCOL_ID: &[u8] = b"sigma-proofs_Shake128_P256";

/// SHAKE128's rate in bytes.
const SHAKE128_RATE: usize = 168;

impl<C: Curve> SigmaTranscript<C> for Shake128Transcript {
    const ADDITIVE: bool = true;
    type Prefix = Shake128Prefix;

    fn prefix(session: &[&'static [u8]], statement: &Statement<'_>) -> Result<Shake128Prefix> {
        statement.check()?;
        let mut h = sha3::Shake128::default();
        let mut iv = [0u8; SHAKE128_RATE];
        iv[..SHAKE128_P256_PROTOCOL_ID.len()].copy_from_slice(SHAKE128_P256_PROTOCOL_ID);
        h.update(&iv);
        let session_len: usize = session.iter().map(|p| p.len()).sum();
        h.update(
            &u32::try_from(session_len)
                .map_err(|_| Error::InputTooLong)?
                .to_be_bytes(),
        );
        for p in session {
            h.update(p);
        }
        let terms: usize = statement.equations.iter().map(|e| usize::from(e.len)).sum();
        let label_len =
            4 + 8 * statement.equations.len() + 8 * terms + C::COMPRESSED_LEN * statement.elements;
        h.update(&(label_len as u32).to_be_bytes());
        h.update(&(statement.equations.len() as u32).to_le_bytes());
        for eq in statement.equations {
            h.update(&u32::from(eq.lhs).to_le_bytes());
            h.update(&u32::from(eq.len).to_le_bytes());
            for t in eq.terms() {
                h.update(&u32::from(t.scalar).to_le_bytes());
                h.update(&u32::from(t.element).to_le_bytes());
            }
        }
        Ok(Shake128Prefix(h))
    }

    fn challenge(
        prefix: &Shake128Prefix,
        elements: &[C::Compressed],
        commitments: &[C::Compressed],
    ) -> Result<Scalar<C>> {
        let mut h = prefix.0.clone();
        for e in elements.iter().chain(commitments) {
            h.update(e.as_ref());
        }
        let mut wide = [0u8; 64];
        let n = C::SCALAR_LEN + 16;
        h.finalize_xof().read(&mut wide[..n]);
        Ok(reduce_wide::<C>(&wide[..n]))
    }
}

/// `OS2IP(bytes) mod n` for `Ns < len(bytes) <= Ns + 16`: `hi * 2^(8 Ns) + lo`, variable time in
/// nothing (scalar arithmetic only).
pub(crate) fn reduce_wide<C: Curve>(bytes: &[u8]) -> Scalar<C> {
    let ns = C::SCALAR_LEN;
    let split = bytes.len().saturating_sub(ns);
    let (hi, lo) = bytes.split_at(split);
    let mut lo_repr = elliptic_curve::FieldBytes::<C>::default();
    let off = ns - lo.len();
    lo_repr[off..].copy_from_slice(lo);
    let lo_s = <Scalar<C> as Reduce<C::Uint>>::reduce_bytes(&lo_repr);
    let mut hi_repr = elliptic_curve::FieldBytes::<C>::default();
    hi_repr[ns - hi.len()..].copy_from_slice(hi);
    let hi_s = <Scalar<C> as Reduce<C::Uint>>::reduce_bytes(&hi_repr);
    // 2^(8 Ns) mod n = (2^64)^(Ns / 8).
    let two64 = Scalar::<C>::from(u64::MAX) + Scalar::<C>::ONE;
    let mut shift = Scalar::<C>::ONE;
    for _ in 0..ns / 8 {
        shift *= two64;
    }
    hi_s * shift + lo_s
}

// ---------------------------------------------------------------------------------------------
// v1: legacy HashToScalar compiler

/// The legacy "Schnorr compiler" transcript of draft-yun-cfrg-arc-01 §"Schnorr Compiler" (also
/// draft-ietf-privacypass-arc-crypto-00 and swift-crypto): `c = HashToScalar(concat(BE16(Ne) ||
/// element) || concat(BE16(Ne) || commitment), info = contextString || session)`, so the DST is
/// `"HashToScalar-" || contextString || contextString || session`; responses are
/// `nonce - c * witness`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HashToScalarTranscript<const XMD: u8>;

/// The constant part of a legacy transcript: the DST pieces.
#[derive(Clone, Copy, Debug)]
pub struct HashToScalarPrefix {
    dst: [&'static [u8]; 4],
    xmd: Xmd,
}

/// `XMD` parameter of [`HashToScalarTranscript`] for SHA-256.
pub const XMD_SHA256: u8 = 0;
/// `XMD` parameter of [`HashToScalarTranscript`] for SHA-384.
pub const XMD_SHA384: u8 = 1;

impl<C: Curve, const XMD: u8> SigmaTranscript<C> for HashToScalarTranscript<XMD> {
    const ADDITIVE: bool = false;
    type Prefix = HashToScalarPrefix;

    /// `session` is `[contextString, suffix]`: the DST repeats the context string.
    fn prefix(session: &[&'static [u8]], statement: &Statement<'_>) -> Result<Self::Prefix> {
        statement.check()?;
        let [ctx, suffix] = session else {
            return Err(Error::Batch);
        };
        Ok(HashToScalarPrefix {
            dst: [b"HashToScalar-", ctx, ctx, suffix],
            xmd: if XMD == XMD_SHA384 {
                Xmd::Sha384
            } else {
                Xmd::Sha256
            },
        })
    }

    fn challenge(
        prefix: &Self::Prefix,
        elements: &[C::Compressed],
        commitments: &[C::Compressed],
    ) -> Result<Scalar<C>> {
        const CAP: usize = 2 * (MAX_ELEMENTS + MAX_EQUATIONS);
        let ne = u16::try_from(C::COMPRESSED_LEN)
            .map_err(|_| Error::InputTooLong)?
            .to_be_bytes();
        let mut pieces: [&[u8]; CAP] = [&[]; CAP];
        let n = 2 * (elements.len() + commitments.len());
        if n > CAP {
            return Err(Error::Batch);
        }
        for (i, e) in elements.iter().chain(commitments).enumerate() {
            pieces[2 * i] = &ne;
            pieces[2 * i + 1] = e.as_ref();
        }
        C::hash_to_scalar(prefix.xmd, &pieces[..n], &prefix.dst)
    }
}

// ---------------------------------------------------------------------------------------------
// Prover and verifier

/// A compact proof: the challenge and one response per scalar variable.
#[derive(Clone, Copy)]
pub struct CompactProof<C: Curve, const N: usize> {
    /// The challenge `c`.
    pub challenge: Scalar<C>,
    /// The responses, in scalar-allocation order (only the first `len` are used).
    pub responses: [Scalar<C>; N],
    /// Number of responses in use.
    pub len: usize,
}

impl<C: Curve, const N: usize> fmt::Debug for CompactProof<C, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactProof")
            .field("challenge", &self.challenge)
            .field("responses", &&self.responses[..self.len])
            .finish()
    }
}

impl<C: Curve, const N: usize> ConstantTimeEq for CompactProof<C, N> {
    /// Constant time: every response slot is compared (unused slots are zero), without an
    /// early exit.
    fn ct_eq(&self, o: &Self) -> subtle::Choice {
        self.responses.iter().zip(&o.responses).fold(
            self.len.ct_eq(&o.len) & self.challenge.ct_eq(&o.challenge),
            |acc, (a, b)| acc & a.ct_eq(b),
        )
    }
}

impl<C: Curve, const N: usize> PartialEq for CompactProof<C, N> {
    fn eq(&self, o: &Self) -> bool {
        self.ct_eq(o).into()
    }
}

impl<C: Curve, const N: usize> Eq for CompactProof<C, N> {}

impl<C: Curve, const N: usize> CompactProof<C, N> {
    /// An empty proof (all zero).
    pub fn empty(len: usize) -> Self {
        Self {
            challenge: Scalar::<C>::ZERO,
            responses: [Scalar::<C>::ZERO; N],
            len: len.min(N),
        }
    }

    /// Encoded length: `(1 + len) * Ns`.
    pub fn encoded_len(&self) -> usize {
        (1 + self.len) * C::SCALAR_LEN
    }

    /// Writes `c || responses` into `out` (exactly [`Self::encoded_len`] bytes).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.encoded_len() {
            return Err(Error::InvalidLength);
        }
        let ns = C::SCALAR_LEN;
        out[..ns].copy_from_slice(C::scalar_bytes(&self.challenge).as_ref());
        for (chunk, r) in out[ns..]
            .chunks_exact_mut(ns)
            .zip(&self.responses[..self.len])
        {
            chunk.copy_from_slice(C::scalar_bytes(r).as_ref());
        }
        Ok(())
    }

    /// Strict decoding of `c || responses` with `len` responses.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    pub fn decode(bytes: &[u8], len: usize) -> Result<Self> {
        if len > N || bytes.len() != (1 + len) * C::SCALAR_LEN {
            return Err(Error::InvalidLength);
        }
        let ns = C::SCALAR_LEN;
        let mut p = Self::empty(len);
        p.challenge = group::decode_scalar::<C>(&bytes[..ns])?;
        for (r, chunk) in p.responses.iter_mut().zip(bytes[ns..].chunks_exact(ns)) {
            *r = group::decode_scalar::<C>(chunk)?;
        }
        Ok(p)
    }
}

fn check_elements<C: Curve>(statement: &Statement<'_>, elements: &Elements<'_, C>) -> Result<()> {
    if elements.points.len() != statement.elements
        || elements.encodings.len() != statement.elements
        || elements.bases.len() != statement.elements
    {
        return Err(Error::Batch);
    }
    Ok(())
}

/// Proves knowledge of `witness` for `statement` over `elements`, with the given proof nonces
/// (one per scalar variable; secret, uniformly random). Constant time in the witness and the
/// nonces. Heap-free.
///
/// # Errors
/// [`Error::Batch`] when the sizes do not match the statement or exceed the engine's bounds;
/// transcript errors.
pub fn prove<C: Curve, T: SigmaTranscript<C>, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    witness: &[Scalar<C>],
    nonces: &[Scalar<C>],
) -> Result<CompactProof<C, N>> {
    statement.check()?;
    check_elements(statement, elements)?;
    if witness.len() != statement.scalars || nonces.len() != statement.scalars || N < witness.len()
    {
        return Err(Error::Batch);
    }
    let m = statement.equations.len();
    let mut commit = [Point::<C>::IDENTITY; MAX_EQUATIONS];
    for (a, eq) in commit.iter_mut().zip(statement.equations) {
        // Terms on the same element are merged: `k1 * P + k2 * P = (k1 + k2) * P`.
        // `ks` holds copies of the secret nonces: wiped below.
        let (elems, mut ks, n) = merge_terms::<C>(eq, nonces, None);
        let mut acc = Point::<C>::IDENTITY;
        for (&e, k) in elems[..n].iter().zip(&ks[..n]) {
            let e = usize::from(e);
            let p = match &elements.bases[e] {
                Base::Generator => {
                    super::count::fixed(1);
                    group::mul_generator::<C>(k)
                }
                Base::Table(tab) => {
                    super::count::fixed(1);
                    tab.mul(k)
                }
                Base::Variable => {
                    super::count::variable(1);
                    group::mul_affine::<C>(&elements.points[e], k)
                }
                Base::Pedersen { g, h, h_table } => {
                    let mut kh = *k * *h;
                    let mut p = h_table.mul(&kh);
                    super::count::fixed(1);
                    if let Some(g) = g {
                        let mut kg = *k * *g;
                        p = p.add_complete(&group::mul_generator::<C>(&kg));
                        super::count::fixed(1);
                        kg.zeroize();
                    }
                    kh.zeroize();
                    p
                }
            };
            acc = acc.add_complete(&p);
        }
        ks.zeroize();
        *a = acc;
    }
    let mut commit_affine = [Affine::<C>::IDENTITY; MAX_EQUATIONS];
    group::normalize_slice::<C>(&commit[..m], &mut commit_affine[..m])?;
    let mut enc = [C::Compressed::default(); MAX_EQUATIONS];
    for (e, a) in enc.iter_mut().zip(&commit_affine[..m]) {
        *e = C::encode_compressed(a);
    }
    let c = T::challenge(prefix, elements.encodings, &enc[..m])?;
    let mut proof = CompactProof::<C, N>::empty(witness.len());
    proof.challenge = c;
    for ((r, k), w) in proof.responses.iter_mut().zip(nonces).zip(witness) {
        // `c * w` is as secret as the witness: wiped once the response is formed.
        let mut cw = c * w;
        *r = if T::ADDITIVE { *k + cw } else { *k - cw };
        cw.zeroize();
    }
    Ok(proof)
}

/// The terms of `eq` with coefficients taken from `coeffs` (by scalar index), those on the same
/// element summed, plus the left-hand side with coefficient `lhs` when given. Element indices
/// are public, so the merging is data-independent; the additions are constant time.
fn merge_terms<C: Curve>(
    eq: &Equation,
    coeffs: &[Scalar<C>],
    lhs: Option<Scalar<C>>,
) -> ([u8; MAX_TERMS + 1], [Scalar<C>; MAX_TERMS + 1], usize) {
    let mut elems = [0u8; MAX_TERMS + 1];
    let mut ks = [Scalar::<C>::ZERO; MAX_TERMS + 1];
    let mut n = 0;
    let lhs_term = lhs.map(|c| (eq.lhs, c));
    let terms = eq
        .terms()
        .iter()
        .map(|t| (t.element, coeffs[usize::from(t.scalar)]))
        .chain(lhs_term);
    for (e, k) in terms {
        match elems[..n].iter().position(|&x| x == e) {
            Some(j) => ks[j] += k,
            None => {
                elems[n] = e;
                ks[n] = k;
                n += 1;
            }
        }
    }
    (elems, ks, n)
}

/// `sum k_i * P_i` over public data, variable time, for at most 4 terms.
fn vartime_terms<C: Curve>(
    points: &[Point<C>; MAX_TERMS + 1],
    scalars: &[Scalar<C>; MAX_TERMS + 1],
    n: usize,
) -> Point<C> {
    super::count::vartime(n as u64);
    match n {
        0 => Point::<C>::IDENTITY,
        1 => group::vartime_lincomb::<C, 1>(&[points[0]], &[scalars[0]]),
        2 => group::vartime_lincomb::<C, 2>(&[points[0], points[1]], &[scalars[0], scalars[1]]),
        3 => group::vartime_lincomb::<C, 3>(
            &[points[0], points[1], points[2]],
            &[scalars[0], scalars[1], scalars[2]],
        ),
        _ => group::vartime_lincomb::<C, 4>(points, scalars),
    }
}

/// Verifies a compact proof. Variable time: every input is public. Heap-free.
///
/// # Errors
/// [`Error::InvalidProof`] whatever failed.
pub fn verify<C: Curve, T: SigmaTranscript<C>, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    proof: &CompactProof<C, N>,
) -> Result<()> {
    vartime_verify::<C, T, N>(prefix, statement, elements, proof).map_err(|_| Error::InvalidProof)
}

fn vartime_verify<C: Curve, T: SigmaTranscript<C>, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    proof: &CompactProof<C, N>,
) -> Result<()> {
    statement.check()?;
    check_elements(statement, elements)?;
    if proof.len != statement.scalars {
        return Err(Error::InvalidProof);
    }
    let c = proof.challenge;
    // v2: A = sum s*B - c*LHS; v1: A = sum s*B + c*LHS.
    let c_lhs = if T::ADDITIVE { -c } else { c };
    let m = statement.equations.len();
    let mut commit = [Point::<C>::IDENTITY; MAX_EQUATIONS];
    for (a, eq) in commit.iter_mut().zip(statement.equations) {
        let (elems, ks, m_terms) = merge_terms::<C>(eq, &proof.responses, Some(c_lhs));
        let mut acc = Point::<C>::IDENTITY;
        let mut pts = [Point::<C>::IDENTITY; MAX_TERMS + 1];
        let mut sc = [Scalar::<C>::ZERO; MAX_TERMS + 1];
        let mut n = 0;
        for (&e, s) in elems[..m_terms].iter().zip(&ks[..m_terms]) {
            let e = usize::from(e);
            match elements.bases[e] {
                Base::Generator => {
                    super::count::vartime(1);
                    acc = acc.vartime_add(&C::generator_table().vartime_mul(s));
                }
                Base::Table(tab) => {
                    super::count::vartime(1);
                    acc = acc.vartime_add(&tab.vartime_mul(s));
                }
                Base::Variable | Base::Pedersen { .. } => {
                    pts[n] = Point::<C>::from(elements.points[e]);
                    sc[n] = *s;
                    n += 1;
                }
            }
        }
        *a = acc.vartime_add(&vartime_terms::<C>(&pts, &sc, n));
    }
    let mut commit_affine = [Affine::<C>::IDENTITY; MAX_EQUATIONS];
    group::normalize_slice::<C>(&commit[..m], &mut commit_affine[..m])?;
    let mut enc = [C::Compressed::default(); MAX_EQUATIONS];
    for (e, a) in enc.iter_mut().zip(&commit_affine[..m]) {
        *e = C::encode_compressed(a);
    }
    let c2 = T::challenge(prefix, elements.encodings, &enc[..m])?;
    if bool::from(c2.ct_eq(&c)) {
        Ok(())
    } else {
        Err(Error::InvalidProof)
    }
}
