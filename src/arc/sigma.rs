//! A generic linear-relation prover and verifier (Schnorr proofs, Maurer's preimage proof).
//!
//! A statement is a list of scalar variables, a list of element variables and equations
//! `sum a_i * element_i = sum b_j * scalar_j * element_k` with public coefficients `a_i`, `b_j`
//! (draft-irtf-cfrg-sigma-protocols §"Linear relations"; every ARC coefficient is 1 and every
//! ARC image a single element). The prover commits with one random nonce per scalar,
//! `A_j = sum b * nonce * element`, derives the challenge `c` from a pluggable
//! [`SigmaTranscript`], and answers `response_i = nonce_i ± c * witness_i`. The compact proof
//! is `c || responses`, the batchable one `commitments || responses`; the verifier rebuilds
//! each `A_j = sum b * response * element ∓ c * image_j` (a multi-scalar multiplication per
//! equation) and recomputes `c` (compact) or compares the commitments (batchable).
//!
//! Three transcripts: [`Shake128Transcript`] (ARC-01), [`HashToScalarTranscript`] (legacy ARC
//! v1) and [`Sigma03Transcript`](super::sigma03::Sigma03Transcript) (sigma-protocols-03, the
//! only one that encodes coefficients and multi-term images).
//!
//! Nothing here allocates: statements are slices of fixed-size [`Equation`]s (the ARC statements
//! are `const` arrays, the presentation statement is built in a stack array sized for the largest
//! range proof), points, encodings and responses live in caller arrays, and the constant part of
//! the transcript (protocol id, session, statement structure) is absorbed once into a
//! [`SigmaTranscript::Prefix`] that is cloned per proof.

use core::fmt;

use elliptic_curve::ff::Field;
use elliptic_curve::ops::Reduce;
use shake::digest::{ExtendableOutput, Update, XofReader};
use subtle::ConstantTimeEq;

use zeroize::Zeroize;

use crate::group::{self, validation, Affine, Curve, FixedBaseTable, Point, Scalar, Xmd};
use crate::{Error, Result};

/// At most this many terms on the right-hand side of one equation.
pub const MAX_TERMS: usize = 8;
/// At most this many image (left-hand-side) terms in one equation.
pub const MAX_IMAGE_TERMS: usize = 4;
/// At most this many equations in one statement (ARC presentation with `k = 32`: `4 + 2k`).
pub const MAX_EQUATIONS: usize = 4 + 2 * 32;
/// At most this many scalar variables (ARC presentation with `k = 32`: `5 + 3k`).
pub const MAX_SCALARS: usize = 5 + 3 * 32;
/// At most this many element variables (ARC presentation with `k = 32`: `10 + k`).
pub const MAX_ELEMENTS: usize = 10 + 32;
/// At most this many distinct coefficients other than 1 in one statement.
pub const MAX_COEFFICIENTS: usize = 16;

/// Terms and image terms of one equation after merging those on the same element.
const MERGED: usize = MAX_TERMS + MAX_IMAGE_TERMS;

/// The public coefficient of a term (draft-irtf-cfrg-sigma-protocols-03 §"Representation").
///
/// Statements are curve-independent (the ARC statements are `const` items), so a coefficient
/// other than 1 is named by its index in a coefficient table kept beside the statement (the
/// sigma-protocols-03 transcript prefix holds it, see
/// [`Sigma03Transcript::prefix_with`](super::sigma03::Sigma03Transcript::prefix_with)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Coefficient {
    /// The coefficient 1 (every ARC term).
    #[default]
    One,
    /// The coefficient at this index of the statement's coefficient table.
    Index(u8),
}

/// One term `coeff * scalar[scalar] * element[element]` of an equation's right-hand side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Term {
    /// Index of the scalar variable.
    pub scalar: u8,
    /// Index of the element variable.
    pub element: u8,
    /// The public coefficient.
    pub coeff: Coefficient,
}

/// One term `coeff * element[element]` of an equation's image (left-hand side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ImageTerm {
    /// Index of the element variable.
    pub element: u8,
    /// The public coefficient.
    pub coeff: Coefficient,
}

/// One equation `sum image = sum terms`, with 1 to [`MAX_IMAGE_TERMS`] image terms and 1 to
/// [`MAX_TERMS`] terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Equation {
    /// Number of image terms in use.
    pub image_len: u8,
    /// The image terms (`image_len` of them are used).
    pub image: [ImageTerm; MAX_IMAGE_TERMS],
    /// Number of terms in use.
    pub len: u8,
    /// The terms (`len` of them are used).
    pub terms: [Term; MAX_TERMS],
}

impl Equation {
    /// `element[lhs] = sum scalar[s] * element[e]` over `terms = [(s, e), ..]`, every coefficient
    /// 1 (at most [`MAX_TERMS`] terms; extra terms are ignored), usable in `const` items.
    pub const fn new(lhs: u8, terms: &[(u8, u8)]) -> Self {
        let mut eq = Self::empty();
        eq.image[0] = ImageTerm {
            element: lhs,
            coeff: Coefficient::One,
        };
        eq.image_len = 1;
        let mut i = 0;
        while i < terms.len() && i < MAX_TERMS {
            eq.terms[i] = Term {
                scalar: terms[i].0,
                element: terms[i].1,
                coeff: Coefficient::One,
            };
            i += 1;
        }
        eq.len = i as u8;
        eq
    }

    /// The general form: `sum coeff * element[e] = sum coeff * scalar[s] * element[e]` over
    /// `image = [(e, coeff), ..]` and `terms = [(s, e, coeff), ..]` (at most
    /// [`MAX_IMAGE_TERMS`] and [`MAX_TERMS`]; extra entries are ignored), usable in `const`
    /// items.
    pub const fn with_coefficients(
        image: &[(u8, Coefficient)],
        terms: &[(u8, u8, Coefficient)],
    ) -> Self {
        let mut eq = Self::empty();
        let mut i = 0;
        while i < image.len() && i < MAX_IMAGE_TERMS {
            eq.image[i] = ImageTerm {
                element: image[i].0,
                coeff: image[i].1,
            };
            i += 1;
        }
        eq.image_len = i as u8;
        let mut i = 0;
        while i < terms.len() && i < MAX_TERMS {
            eq.terms[i] = Term {
                scalar: terms[i].0,
                element: terms[i].1,
                coeff: terms[i].2,
            };
            i += 1;
        }
        eq.len = i as u8;
        eq
    }

    const fn empty() -> Self {
        Self {
            image_len: 0,
            image: [ImageTerm {
                element: 0,
                coeff: Coefficient::One,
            }; MAX_IMAGE_TERMS],
            len: 0,
            terms: [Term {
                scalar: 0,
                element: 0,
                coeff: Coefficient::One,
            }; MAX_TERMS],
        }
    }

    /// The terms in use.
    pub fn terms(&self) -> &[Term] {
        &self.terms[..usize::from(self.len).min(MAX_TERMS)]
    }

    /// The image terms in use.
    pub fn image(&self) -> &[ImageTerm] {
        &self.image[..usize::from(self.image_len).min(MAX_IMAGE_TERMS)]
    }

    /// The single image element of a plain equation (one image term, every coefficient 1), the
    /// only form the ARC transcripts encode.
    fn plain_lhs(&self) -> Option<u8> {
        match self.image() {
            [ImageTerm {
                element,
                coeff: Coefficient::One,
            }] if self.terms().iter().all(|t| t.coeff == Coefficient::One) => Some(*element),
            _ => None,
        }
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
    /// Bounds and index checks, for a coefficient table of `coefficients` entries.
    pub(crate) fn check(&self, coefficients: usize) -> Result<()> {
        if self.scalars > MAX_SCALARS
            || self.elements > MAX_ELEMENTS
            || self.equations.len() > MAX_EQUATIONS
            || self.equations.is_empty()
        {
            return Err(Error::Batch);
        }
        let coeff_ok = |c: &Coefficient| match c {
            Coefficient::One => true,
            Coefficient::Index(i) => usize::from(*i) < coefficients,
        };
        for eq in self.equations {
            if eq.len == 0
                || usize::from(eq.len) > MAX_TERMS
                || eq.image_len == 0
                || usize::from(eq.image_len) > MAX_IMAGE_TERMS
                || eq
                    .image()
                    .iter()
                    .any(|t| usize::from(t.element) >= self.elements || !coeff_ok(&t.coeff))
                || eq.terms().iter().any(|t| {
                    usize::from(t.scalar) >= self.scalars
                        || usize::from(t.element) >= self.elements
                        || !coeff_ok(&t.coeff)
                })
            {
                return Err(Error::Batch);
            }
        }
        Ok(())
    }

    /// [`Self::check`] plus: every equation is plain (one image term, every coefficient 1), the
    /// only statements the ARC transcripts can encode.
    fn check_plain(&self) -> Result<()> {
        self.check(0)?;
        if self.equations.iter().all(|e| e.plain_lhs().is_some()) {
            Ok(())
        } else {
            Err(Error::Batch)
        }
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
    /// An element that is secret to the verifier (ARC's `V`, computed with the server key):
    /// the verifier multiplies by it in constant time and adds the product with complete
    /// addition, so nothing about it reaches a branch before the verdict ([`verify`]; the
    /// batchable verifier compares commitments in variable time and is not for such elements).
    /// The prover treats it as [`Base::Variable`] (its multiplications are constant time).
    Secret,
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
            Base::Secret => "Secret",
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

    /// The coefficient table of the statement the prefix was built for: the values of
    /// [`Coefficient::Index`] terms. Empty by default (every coefficient is 1).
    fn coefficients(prefix: &Self::Prefix) -> &[Scalar<C>] {
        let _ = prefix;
        &[]
    }

    /// Checks on the instance (statement and element values) that [`prove`] and [`verify`] run
    /// before anything else. None by default.
    ///
    /// # Errors
    /// The transcript's own: [`Error::InvalidInstance`] for the sigma-protocols-03 instance
    /// validation.
    fn check_instance(
        prefix: &Self::Prefix,
        statement: &Statement<'_>,
        elements: &Elements<'_, C>,
    ) -> Result<()> {
        let _ = (prefix, statement, elements);
        Ok(())
    }
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
pub struct Shake128Prefix(shake::Shake128);

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
        statement.check_plain()?;
        let mut h = shake::Shake128::default();
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
            let lhs = eq.plain_lhs().ok_or(Error::Batch)?;
            h.update(&u32::from(lhs).to_le_bytes());
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
    let lo_s = <Scalar<C> as Reduce<elliptic_curve::FieldBytes<C>>>::reduce(&lo_repr);
    let mut hi_repr = elliptic_curve::FieldBytes::<C>::default();
    hi_repr[ns - hi.len()..].copy_from_slice(hi);
    let hi_s = <Scalar<C> as Reduce<elliptic_curve::FieldBytes<C>>>::reduce(&hi_repr);
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
        statement.check_plain()?;
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
            .field("responses", &&self.responses[..self.len.min(N)])
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
        write_scalars::<C>(&mut out[ns..], &self.responses[..self.len.min(N)]);
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
        read_scalars::<C>(&bytes[ns..], &mut p.responses[..len])?;
        Ok(p)
    }
}

fn write_scalars<C: Curve>(out: &mut [u8], scalars: &[Scalar<C>]) {
    for (chunk, r) in out.chunks_exact_mut(C::SCALAR_LEN).zip(scalars) {
        chunk.copy_from_slice(C::scalar_bytes(r).as_ref());
    }
}

fn read_scalars<C: Curve>(bytes: &[u8], out: &mut [Scalar<C>]) -> Result<()> {
    for (r, chunk) in out.iter_mut().zip(bytes.chunks_exact(C::SCALAR_LEN)) {
        *r = group::decode_scalar::<C>(chunk)?;
    }
    Ok(())
}

/// A batchable proof (draft-irtf-cfrg-sigma-protocols-03 §"Batchable NARG strings"): one
/// commitment per equation and one response per scalar variable; the verifier recomputes the
/// challenge from the commitments.
#[derive(Clone, Copy)]
pub struct BatchableProof<C: Curve, const M: usize, const N: usize> {
    /// The commitments, in equation order (only the first `equations` are used).
    pub commitments: [Affine<C>; M],
    /// Number of commitments in use.
    pub equations: usize,
    /// The responses, in scalar-allocation order (only the first `len` are used).
    pub responses: [Scalar<C>; N],
    /// Number of responses in use.
    pub len: usize,
}

impl<C: Curve, const M: usize, const N: usize> fmt::Debug for BatchableProof<C, M, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchableProof")
            .field("commitments", &&self.commitments[..self.equations.min(M)])
            .field("responses", &&self.responses[..self.len.min(N)])
            .finish()
    }
}

impl<C: Curve, const M: usize, const N: usize> PartialEq for BatchableProof<C, M, N> {
    /// Public data: compares the used commitments and every response slot.
    fn eq(&self, o: &Self) -> bool {
        self.equations == o.equations
            && self.len == o.len
            && self.commitments == o.commitments
            && self.responses == o.responses
    }
}

impl<C: Curve, const M: usize, const N: usize> Eq for BatchableProof<C, M, N> {}

impl<C: Curve, const M: usize, const N: usize> BatchableProof<C, M, N> {
    /// An empty proof (identity commitments, zero responses).
    pub fn empty(equations: usize, len: usize) -> Self {
        Self {
            commitments: [Affine::<C>::IDENTITY; M],
            equations: equations.min(M),
            responses: [Scalar::<C>::ZERO; N],
            len: len.min(N),
        }
    }

    /// Encoded length: `equations * Ne + len * Ns`.
    pub fn encoded_len(&self) -> usize {
        self.equations * C::COMPRESSED_LEN + self.len * C::SCALAR_LEN
    }

    /// Writes `Group.serialize(commitments) || Scalar.serialize(responses)` into `out`
    /// (exactly [`Self::encoded_len`] bytes).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.encoded_len() {
            return Err(Error::InvalidLength);
        }
        let nc = self.equations * C::COMPRESSED_LEN;
        for (chunk, a) in out[..nc]
            .chunks_exact_mut(C::COMPRESSED_LEN)
            .zip(&self.commitments[..self.equations.min(M)])
        {
            chunk.copy_from_slice(C::encode_compressed(a).as_ref());
        }
        write_scalars::<C>(&mut out[nc..], &self.responses[..self.len.min(N)]);
        Ok(())
    }

    /// Strict decoding with `equations` commitments and `len` responses: compressed points that
    /// are not the identity, canonical scalars, no trailing bytes.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn decode(bytes: &[u8], equations: usize, len: usize) -> Result<Self> {
        if equations > M || len > N {
            return Err(Error::InvalidLength);
        }
        let nc = equations * C::COMPRESSED_LEN;
        if bytes.len() != nc + len * C::SCALAR_LEN {
            return Err(Error::InvalidLength);
        }
        let mut p = Self::empty(equations, len);
        for (a, chunk) in p.commitments[..equations]
            .iter_mut()
            .zip(bytes[..nc].chunks_exact(C::COMPRESSED_LEN))
        {
            *a = C::decode_compressed(chunk)?;
        }
        read_scalars::<C>(&bytes[nc..], &mut p.responses[..len])?;
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
/// the transcript's instance checks ([`SigmaTranscript::check_instance`]); transcript errors.
pub fn prove<C: Curve, T: SigmaTranscript<C>, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    witness: &[Scalar<C>],
    nonces: &[Scalar<C>],
) -> Result<CompactProof<C, N>> {
    prove_inner::<C, T, N>(prefix, statement, elements, witness, nonces, None)
}

/// As [`prove`], and the commitments too: the batchable form. `M` must hold the statement's
/// equations.
///
/// # Errors
/// As [`prove`]; [`Error::Batch`] when `M` is smaller than the number of equations.
pub fn prove_batchable<C: Curve, T: SigmaTranscript<C>, const M: usize, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    witness: &[Scalar<C>],
    nonces: &[Scalar<C>],
) -> Result<BatchableProof<C, M, N>> {
    let m = statement.equations.len();
    if m > M {
        return Err(Error::Batch);
    }
    let mut out = BatchableProof::<C, M, N>::empty(m, witness.len());
    let compact = prove_inner::<C, T, N>(
        prefix,
        statement,
        elements,
        witness,
        nonces,
        Some(&mut out.commitments[..m]),
    )?;
    out.responses = compact.responses;
    out.len = compact.len;
    Ok(out)
}

fn prove_inner<C: Curve, T: SigmaTranscript<C>, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    witness: &[Scalar<C>],
    nonces: &[Scalar<C>],
    commitments_out: Option<&mut [Affine<C>]>,
) -> Result<CompactProof<C, N>> {
    let table = T::coefficients(prefix);
    statement.check(table.len())?;
    check_elements(statement, elements)?;
    if witness.len() != statement.scalars || nonces.len() != statement.scalars || N < witness.len()
    {
        return Err(Error::Batch);
    }
    T::check_instance(prefix, statement, elements)?;
    let m = statement.equations.len();
    let mut commit = [Point::<C>::IDENTITY; MAX_EQUATIONS];
    for (a, eq) in commit.iter_mut().zip(statement.equations) {
        // Terms on the same element are merged: `k1 * P + k2 * P = (k1 + k2) * P`.
        // `ks` holds copies of the secret nonces: wiped below.
        let (elems, mut ks, n) = merge_terms::<C>(eq, nonces, None, table);
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
                Base::Variable | Base::Secret => {
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
        ks[..n].zeroize();
        *a = acc;
    }
    let mut commit_affine = [Affine::<C>::IDENTITY; MAX_EQUATIONS];
    group::normalize_slice::<C>(&commit[..m], &mut commit_affine[..m])?;
    let mut enc = [C::Compressed::default(); MAX_EQUATIONS];
    for (e, a) in enc.iter_mut().zip(&commit_affine[..m]) {
        *e = C::encode_compressed(a);
    }
    let c = T::challenge(prefix, elements.encodings, &enc[..m])?;
    if let Some(out) = commitments_out {
        if out.len() != m {
            return Err(Error::Batch);
        }
        out.copy_from_slice(&commit_affine[..m]);
        // Published: the commitments are part of a batchable proof (nonces times public
        // elements). The nonces stay secret.
        validation::publish(out);
    }
    let mut proof = CompactProof::<C, N>::empty(witness.len());
    proof.challenge = c;
    for ((r, k), w) in proof.responses.iter_mut().zip(nonces).zip(witness) {
        // `c * w` is as secret as the witness: wiped once the response is formed.
        let mut cw = c * w;
        *r = if T::ADDITIVE { *k + cw } else { *k - cw };
        cw.zeroize();
    }
    // Published: the proof is the prover's message. `c` is a hash output and each response
    // `k +- c w` is masked by its one-time nonce `k`; the witness and `c w` stay secret.
    validation::publish(&mut proof.challenge);
    validation::publish(&mut proof.responses[..witness.len()]);
    Ok(proof)
}

/// `k * coeff`, `coeff` read from `table` (indices are checked by [`Statement::check`]; an
/// index outside the table gives 0). Constant time in `k`; the branch is on the public
/// statement.
fn scale<C: Curve>(k: Scalar<C>, coeff: Coefficient, table: &[Scalar<C>]) -> Scalar<C> {
    match coeff {
        Coefficient::One => k,
        Coefficient::Index(i) => table
            .get(usize::from(i))
            .map_or(Scalar::<C>::ZERO, |c| k * c),
    }
}

/// The terms of `eq` with coefficients `coeffs[scalar] * coeff` (by scalar index), those on the
/// same element summed, plus the image terms scaled by `lhs` when given. Element indices are
/// public, so the merging is data-independent; the arithmetic is constant time.
fn merge_terms<C: Curve>(
    eq: &Equation,
    coeffs: &[Scalar<C>],
    lhs: Option<Scalar<C>>,
    table: &[Scalar<C>],
) -> ([u8; MERGED], [Scalar<C>; MERGED], usize) {
    let mut elems = [0u8; MERGED];
    let mut ks = [Scalar::<C>::ZERO; MERGED];
    let mut n = 0;
    let image = lhs.into_iter().flat_map(|c| {
        eq.image()
            .iter()
            .map(move |t| (t.element, scale::<C>(c, t.coeff, table)))
    });
    let terms = eq
        .terms()
        .iter()
        .map(|t| {
            (
                t.element,
                scale::<C>(coeffs[usize::from(t.scalar)], t.coeff, table),
            )
        })
        .chain(image);
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

/// `sum k_i * P_i` over public data, variable time, in chunks of at most 4 terms (one chunk
/// for every ARC equation).
fn vartime_terms<C: Curve>(points: &[Point<C>], scalars: &[Scalar<C>]) -> Point<C> {
    super::count::vartime(points.len() as u64);
    let mut acc = Point::<C>::IDENTITY;
    for (p, s) in points.chunks(4).zip(scalars.chunks(4)) {
        let part = match (p, s) {
            ([p0], [s0]) => group::vartime_lincomb::<C, 1>(&[*p0], &[*s0]),
            ([p0, p1], [s0, s1]) => group::vartime_lincomb::<C, 2>(&[*p0, *p1], &[*s0, *s1]),
            ([p0, p1, p2], [s0, s1, s2]) => {
                group::vartime_lincomb::<C, 3>(&[*p0, *p1, *p2], &[*s0, *s1, *s2])
            }
            ([p0, p1, p2, p3], [s0, s1, s2, s3]) => {
                group::vartime_lincomb::<C, 4>(&[*p0, *p1, *p2, *p3], &[*s0, *s1, *s2, *s3])
            }
            _ => Point::<C>::IDENTITY,
        };
        acc = acc.vartime_add(&part);
    }
    acc
}

/// The simulator's commitments `A_j = sum response * M_j -/+ c * image_j` (sigma-protocols:
/// `-`, legacy: `+`), affine, into `out[..#equations]`. Variable time over public data; the
/// terms on a [`Base::Secret`] element are constant time, and so is every step after them for
/// an equation that has one (complete addition, normalisation): such a commitment is secret.
fn vartime_simulate<C: Curve, T: SigmaTranscript<C>>(
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    table: &[Scalar<C>],
    responses: &[Scalar<C>],
    c: Scalar<C>,
    out: &mut [Affine<C>],
) -> Result<()> {
    let c_lhs = if T::ADDITIVE { -c } else { c };
    let m = statement.equations.len();
    let mut commit = [Point::<C>::IDENTITY; MAX_EQUATIONS];
    for (a, eq) in commit.iter_mut().zip(statement.equations) {
        let (elems, ks, m_terms) = merge_terms::<C>(eq, responses, Some(c_lhs), table);
        let mut acc = Point::<C>::IDENTITY;
        let mut pts = [Point::<C>::IDENTITY; MERGED];
        let mut sc = [Scalar::<C>::ZERO; MERGED];
        let mut n = 0;
        let mut secret: Option<Point<C>> = None;
        for (&e, s) in elems[..m_terms].iter().zip(&ks[..m_terms]) {
            let e = usize::from(e);
            match elements.bases[e] {
                Base::Secret => {
                    super::count::variable(1);
                    let p = group::mul_affine::<C>(&elements.points[e], s);
                    secret = Some(secret.map_or(p, |q| q.add_complete(&p)));
                }
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
        let public = acc.vartime_add(&vartime_terms::<C>(&pts[..n], &sc[..n]));
        // Whether an equation has a secret term is a property of the statement (public).
        *a = match secret {
            Some(q) => public.add_complete(&q),
            None => public,
        };
    }
    group::normalize_slice::<C>(&commit[..m], &mut out[..m])
}

/// Verifies a compact proof. Variable time over public inputs, constant time in the elements
/// marked [`Base::Secret`] up to the verdict. Heap-free.
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
    let table = T::coefficients(prefix);
    statement.check(table.len())?;
    check_elements(statement, elements)?;
    if proof.len != statement.scalars || proof.len > N {
        return Err(Error::InvalidProof);
    }
    T::check_instance(prefix, statement, elements)?;
    let m = statement.equations.len();
    let mut commit_affine = [Affine::<C>::IDENTITY; MAX_EQUATIONS];
    vartime_simulate::<C, T>(
        statement,
        elements,
        table,
        &proof.responses[..proof.len],
        proof.challenge,
        &mut commit_affine[..m],
    )?;
    let mut enc = [C::Compressed::default(); MAX_EQUATIONS];
    for (e, a) in enc.iter_mut().zip(&commit_affine[..m]) {
        *e = C::encode_compressed(a);
    }
    let c2 = T::challenge(prefix, elements.encodings, &enc[..m])?;
    let mut valid = c2.ct_eq(&proof.challenge);
    // Published: the verdict. With a `Base::Secret` element, `c2` and the commitments stay
    // secret: for a forged proof they depend on the verifier's key.
    validation::publish(&mut valid);
    if bool::from(valid) {
        Ok(())
    } else {
        Err(Error::InvalidProof)
    }
}

/// Verifies a batchable proof: recomputes the challenge from the commitments and checks every
/// equation `commitment_j + c * image_j = sum response * M_j`. Variable time: every input is
/// public. Heap-free.
///
/// # Errors
/// [`Error::InvalidProof`] whatever failed.
pub fn verify_batchable<C: Curve, T: SigmaTranscript<C>, const M: usize, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    proof: &BatchableProof<C, M, N>,
) -> Result<()> {
    vartime_verify_batchable::<C, T, M, N>(prefix, statement, elements, proof)
        .map_err(|_| Error::InvalidProof)
}

fn vartime_verify_batchable<C: Curve, T: SigmaTranscript<C>, const M: usize, const N: usize>(
    prefix: &T::Prefix,
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    proof: &BatchableProof<C, M, N>,
) -> Result<()> {
    let table = T::coefficients(prefix);
    statement.check(table.len())?;
    check_elements(statement, elements)?;
    let m = statement.equations.len();
    if proof.len != statement.scalars || proof.len > N || proof.equations != m || m > M {
        return Err(Error::InvalidProof);
    }
    T::check_instance(prefix, statement, elements)?;
    let mut enc = [C::Compressed::default(); MAX_EQUATIONS];
    for (e, a) in enc.iter_mut().zip(&proof.commitments[..m]) {
        *e = C::encode_compressed(a);
    }
    let c = T::challenge(prefix, elements.encodings, &enc[..m])?;
    let mut simulated = [Affine::<C>::IDENTITY; MAX_EQUATIONS];
    vartime_simulate::<C, T>(
        statement,
        elements,
        table,
        &proof.responses[..proof.len],
        c,
        &mut simulated[..m],
    )?;
    if simulated[..m] == proof.commitments[..m] {
        Ok(())
    } else {
        Err(Error::InvalidProof)
    }
}
