//! draft-irtf-cfrg-sigma-protocols-03 with draft-irtf-cfrg-fiat-shamir-03: the third transcript
//! backend of the linear-relation prover of [`super::sigma`].
//!
//! What differs from the [`Shake128Transcript`](super::sigma::Shake128Transcript) of the ARC-01
//! vectors:
//!
//! * the sponge starts from a 32-byte session id ([`derive_session_id`] of a tag naming the
//!   application, the flavor `DSFS`/`CMPT` and the ciphersuite) padded to the SHAKE128 rate,
//!   with no protocol-id block and no length-prefixed label;
//! * the instance encoding (`SerializeLinearRelation`) carries each term's scalar coefficient and
//!   every image (left-hand-side) term, and leaves the generator (element 0) out;
//! * the challenge is `DecodeField(Squeeze(Ns + 16))`, the bytes read **little-endian**;
//! * verifiers validate the instance ([`validate_instance`]): no element index that no equation
//!   uses, no identity element or image, no all-identity column of the matrix. ARC-01's
//!   presentation statement allocates `UPrimeCommit` and uses it in no equation, so that check
//!   is switchable: [`Sigma03Transcript<true>`] validates, [`Sigma03Transcript<false>`] does not
//!   (element 0 must be the generator in both: the encoding leaves it out).
//!
//! Two proof flavors: compact (`challenge || responses`, [`super::sigma::prove`] /
//! [`super::sigma::verify`]) and batchable (`commitments || responses`,
//! [`super::sigma::prove_batchable`] / [`super::sigma::verify_batchable`]). [`Relation`] holds
//! a whole instance (statement, element values, coefficients) and decodes and encodes the
//! instance bytes of the vector files.
//!
//! Byte-exact against the -03 vectors of `mmaker/draft-irtf-cfrg-sigma-protocols` at
//! `91cc933` (`test-vectors/sigma-03/`). Nothing here allocates but [`LinearRelation`], the
//! heap-backed relation of any size (ACT's spend relation, `crate::act`), which runs the same
//! sponge, challenge decoding and instance encoding through the compact NARG.

use core::fmt;

use elliptic_curve::ff::Field;
use shake::digest::{ExtendableOutput, Update, XofReader};

use super::sigma::{
    reduce_wide, Base, Coefficient, Elements, Equation, ImageTerm, SigmaTranscript, Statement,
    Term, MAX_COEFFICIENTS, MAX_ELEMENTS, MAX_EQUATIONS, MAX_IMAGE_TERMS, MAX_SCALARS, MAX_TERMS,
};
use crate::group::{self, validation, Affine, Curve, FixedBaseTable, Point, Scalar};
use crate::{Error, Result};

/// The SHAKE128 rate in bytes: the session id is padded to one block.
const RATE: usize = 168;

/// The domain-separation label of `DeriveSessionID` (fiat-shamir-03 §"Session identifier").
pub const SESSION_ID_LABEL: &[u8; 32] = b"irtf-cfrg-fiat-shamir/session-id";

/// The ciphersuite identifier of P-256 with SHAKE128 (sigma-protocols-03 §"Ciphersuites"), a
/// mandatory component of every tag.
pub const P256_CIPHERSUITE: &str = "sigma-proofs_Shake128_P256";

// ---------------------------------------------------------------------------------------------
// Fiat-Shamir: the duplex sponge, session ids, challenge decoding

/// The SHAKE128 duplex sponge of fiat-shamir-03 §"Duplex sponge interface".
///
/// `squeeze(n)` returns the next `n` bytes of `SHAKE128(session_id || 0^136 || absorbed)`:
/// consecutive squeezes continue one output stream, a non-empty absorb after a squeeze restarts
/// it (over everything absorbed so far), an empty absorb changes nothing. Squeezed bytes are
/// never fed back. Public data only (it holds no secret in the protocols here).
#[derive(Clone)]
pub struct DuplexSponge {
    absorbed: shake::Shake128,
    reader: Option<shake::Shake128Reader>,
}

impl fmt::Debug for DuplexSponge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DuplexSponge")
    }
}

impl DuplexSponge {
    /// `DS.Init(session_id)`.
    pub fn new(session_id: &[u8; 32]) -> Self {
        let mut absorbed = shake::Shake128::default();
        absorbed.update(session_id);
        absorbed.update(&[0u8; RATE - 32]);
        Self {
            absorbed,
            reader: None,
        }
    }

    /// `DS.Absorb(x)`.
    pub fn absorb(&mut self, x: &[u8]) {
        if x.is_empty() {
            return;
        }
        self.reader = None;
        self.absorbed.update(x);
    }

    /// `DS.Squeeze(out.len())` into `out`.
    pub fn squeeze(&mut self, out: &mut [u8]) {
        let absorbed = &self.absorbed;
        self.reader
            .get_or_insert_with(|| absorbed.clone().finalize_xof())
            .read(out);
    }
}

/// `DeriveSessionID(tag)` (fiat-shamir-03 §"Session identifier"): a sponge on
/// [`SESSION_ID_LABEL`] absorbs the tag and squeezes 32 bytes.
pub fn derive_session_id(tag: &[u8]) -> [u8; 32] {
    derive_session_id_pieces(&[tag])
}

/// [`derive_session_id`] of the concatenation of `pieces` (absorbing is associative).
pub(crate) fn derive_session_id_pieces(pieces: &[&[u8]]) -> [u8; 32] {
    let mut ds = DuplexSponge::new(SESSION_ID_LABEL);
    for p in pieces {
        ds.absorb(p);
    }
    let mut sid = [0u8; 32];
    ds.squeeze(&mut sid);
    sid
}

/// `DecodeField(bytes, n, 1)` over the scalar field (fiat-shamir-03 §"Decoding"): the `Ns + 16`
/// bytes read as a **little-endian** integer, reduced mod the group order.
///
/// # Errors
/// [`Error::InvalidLength`] unless `bytes` is exactly `Ns + 16` bytes long.
pub fn decode_uint<C: Curve>(bytes: &[u8]) -> Result<Scalar<C>> {
    const MAX: usize = 48 + 16;
    let n = C::SCALAR_LEN + 16;
    if bytes.len() != n || n > MAX {
        return Err(Error::InvalidLength);
    }
    let mut be = [0u8; MAX];
    for (d, s) in be[..n].iter_mut().zip(bytes.iter().rev()) {
        *d = *s;
    }
    Ok(reduce_wide::<C>(&be[..n]))
}

/// The two NARG-string flavors (sigma-protocols-03 §"Non-interactive argument string
/// serialization"); each tag names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// `commitments || responses`, marker `DSFS`.
    Batchable,
    /// `challenge || responses`, marker `CMPT`.
    Compact,
}

impl Flavor {
    /// The flavor marker a tag must contain verbatim.
    pub const fn marker(self) -> &'static str {
        match self {
            Flavor::Batchable => "DSFS",
            Flavor::Compact => "CMPT",
        }
    }
}

/// The session id of `application` for `flavor` on P-256:
/// `DeriveSessionID(application || "-" || marker || "-with-" || "sigma-proofs_Shake128_P256")`,
/// the tag shape of sigma-protocols-03 §"Tag and session identifier" (`application` names the
/// application, its version and epoch).
pub fn p256_session_id(application: &[u8], flavor: Flavor) -> [u8; 32] {
    derive_session_id_pieces(&[
        application,
        b"-",
        flavor.marker().as_bytes(),
        b"-with-",
        P256_CIPHERSUITE.as_bytes(),
    ])
}

// ---------------------------------------------------------------------------------------------
// The transcript backend

/// The sigma-protocols-03 transcript: `c = DecodeField(Squeeze(Ns + 16))` of a duplex sponge on
/// the session id that absorbed `SerializeLinearRelation(instance) || commitments`.
///
/// `VALIDATE = true` runs [`validate_instance`] in [`super::sigma::prove`] and every verifier,
/// as the draft requires; `false` skips it (for statements such as ARC-01's presentation, which
/// allocates an element no equation uses). Both refuse an element 0 other than the generator
/// and identity commitments.
///
/// Through [`SigmaTranscript::prefix`] the session pieces are concatenated into the tag and the
/// statement may use no coefficient but 1; [`Self::prefix_with`] takes a session id and a
/// coefficient table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sigma03Transcript<const VALIDATE: bool>;

/// The constant part of a [`Sigma03Transcript`]: the sponge after the session id and the
/// structure of the instance (everything but the element encodings), and the coefficient
/// table, so the coefficients the prover and verifier compute with are those absorbed.
#[derive(Clone)]
pub struct Sigma03Prefix<C: Curve> {
    sponge: DuplexSponge,
    coefficients: [Scalar<C>; MAX_COEFFICIENTS],
    n_coefficients: usize,
}

impl<C: Curve> fmt::Debug for Sigma03Prefix<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sigma03Prefix")
            .field("coefficients", &self.n_coefficients)
            .finish_non_exhaustive()
    }
}

impl<const VALIDATE: bool> Sigma03Transcript<VALIDATE> {
    /// `DS.Init(session_id)` and the structural part of `SerializeLinearRelation`: the
    /// equation count, then per equation the image terms `LE32(element) || coeff` and the terms
    /// `LE32(scalar) || LE32(element) || coeff`, each list after its `LE32` count (coefficients
    /// as `Ns` big-endian bytes; [`Coefficient::Index`] reads `coefficients`).
    ///
    /// # Errors
    /// [`Error::Batch`] for a statement beyond the engine's bounds, a coefficient index outside
    /// `coefficients` or more than [`MAX_COEFFICIENTS`] coefficients.
    pub fn prefix_with<C: Curve>(
        session_id: &[u8; 32],
        statement: &Statement<'_>,
        coefficients: &[Scalar<C>],
    ) -> Result<Sigma03Prefix<C>> {
        if coefficients.len() > MAX_COEFFICIENTS {
            return Err(Error::Batch);
        }
        statement.check(coefficients.len())?;
        let mut sponge = DuplexSponge::new(session_id);
        write_statement::<C>(&mut |b| sponge.absorb(b), statement.equations, coefficients);
        let mut table = [Scalar::<C>::ZERO; MAX_COEFFICIENTS];
        table[..coefficients.len()].copy_from_slice(coefficients);
        Ok(Sigma03Prefix {
            sponge,
            coefficients: table,
            n_coefficients: coefficients.len(),
        })
    }
}

impl<C: Curve, const VALIDATE: bool> SigmaTranscript<C> for Sigma03Transcript<VALIDATE> {
    const ADDITIVE: bool = true;
    type Prefix = Sigma03Prefix<C>;

    /// `session` is the tag, in pieces: the session id is `DeriveSessionID(concat(session))`.
    fn prefix(session: &[&'static [u8]], statement: &Statement<'_>) -> Result<Self::Prefix> {
        let sid = derive_session_id_pieces(session);
        Self::prefix_with::<C>(&sid, statement, &[])
    }

    fn challenge(
        prefix: &Self::Prefix,
        elements: &[C::Compressed],
        commitments: &[C::Compressed],
    ) -> Result<Scalar<C>> {
        let generator = C::encode_compressed(&Affine::<C>::generator());
        match elements.split_first() {
            Some((g, rest)) if *g == generator => {
                let mut ds = prefix.sponge.clone();
                for e in rest {
                    ds.absorb(e.as_ref());
                }
                let identity = C::Compressed::default();
                for a in commitments {
                    // `Group.serialize` is undefined on the identity (it encodes as zeros here).
                    if *a == identity {
                        return Err(Error::IdentityElement);
                    }
                    ds.absorb(a.as_ref());
                }
                let mut wide = [0u8; 48 + 16];
                let n = C::SCALAR_LEN + 16;
                ds.squeeze(&mut wide[..n]);
                decode_uint::<C>(&wide[..n])
            }
            _ => Err(Error::InvalidInstance),
        }
    }

    fn coefficients(prefix: &Self::Prefix) -> &[Scalar<C>] {
        &prefix.coefficients[..prefix.n_coefficients.min(MAX_COEFFICIENTS)]
    }

    fn check_instance(
        prefix: &Self::Prefix,
        statement: &Statement<'_>,
        elements: &Elements<'_, C>,
    ) -> Result<()> {
        if VALIDATE {
            validate_instance(
                statement,
                elements,
                <Self as SigmaTranscript<C>>::coefficients(prefix),
            )
        } else {
            Ok(())
        }
    }
}

/// The structural part of `SerializeLinearRelation` for a fixed-size statement:
/// `LE32(#equations)`, then each equation ([`write_equation`]) with its
/// [`Coefficient::Index`] terms read from `coefficients` (an index outside it, which
/// `Statement::check` refuses first, would write 1).
fn write_statement<C: Curve>(
    sink: &mut impl FnMut(&[u8]),
    equations: &[Equation],
    coefficients: &[Scalar<C>],
) {
    let coeff = |c: Coefficient| match c {
        Coefficient::One => C::scalar_bytes(&Scalar::<C>::ONE),
        Coefficient::Index(i) => C::scalar_bytes(
            coefficients
                .get(usize::from(i))
                .unwrap_or(&Scalar::<C>::ONE),
        ),
    };
    sink(&(equations.len() as u32).to_le_bytes());
    for eq in equations {
        write_equation::<C>(
            sink,
            eq.image()
                .iter()
                .map(|t| (u32::from(t.element), coeff(t.coeff))),
            eq.terms()
                .iter()
                .map(|t| (u32::from(t.scalar), u32::from(t.element), coeff(t.coeff))),
        );
    }
}

/// One equation of `SerializeLinearRelation` (sigma-protocols-03 §"Serialization"),
/// piece by piece into `sink`: `LE32(#image) (LE32(element) || coeff)*` then
/// `LE32(#terms) (LE32(scalar) || LE32(element) || coeff)*`, coefficients as `Ns` big-endian
/// bytes. The one writer of the instance encoding: the fixed-size statements' transcript prefix
/// ([`Sigma03Transcript::prefix_with`]) and encoder ([`Relation::encode_into`]) and
/// [`LinearRelation::serialize`] all go through it.
fn write_equation<C: Curve>(
    sink: &mut impl FnMut(&[u8]),
    image: impl ExactSizeIterator<Item = (u32, C::ScalarBytes)>,
    terms: impl ExactSizeIterator<Item = (u32, u32, C::ScalarBytes)>,
) {
    sink(&(image.len() as u32).to_le_bytes());
    for (e, c) in image {
        sink(&e.to_le_bytes());
        sink(c.as_ref());
    }
    sink(&(terms.len() as u32).to_le_bytes());
    for (s, e, c) in terms {
        sink(&s.to_le_bytes());
        sink(&e.to_le_bytes());
        sink(c.as_ref());
    }
}

/// `coeff * P`, variable time (public data).
fn vartime_scaled<C: Curve>(p: &Affine<C>, coeff: Coefficient, table: &[Scalar<C>]) -> Point<C> {
    match coeff {
        Coefficient::One => Point::<C>::from(*p),
        Coefficient::Index(i) => match table.get(usize::from(i)) {
            Some(c) => group::vartime_mul::<C>(p, c),
            None => Point::<C>::IDENTITY,
        },
    }
}

/// `ValidateInstance` (sigma-protocols-03 §"Instance validation", checks 1 to 10): at least one
/// equation, each with terms and image terms (1, 2); indices in range (3, 4); every element
/// but the generator used by some equation (5); every scalar used by some term (6); element 0
/// the generator (7); no identity element (8); no equation whose image is the identity (9);
/// for every scalar an equation where its terms do not sum to the identity (10). Variable time:
/// the instance is public.
///
/// # Errors
/// [`Error::InvalidInstance`] for a failed check; [`Error::Batch`] when `elements` does not
/// match the statement's element count.
pub fn validate_instance<C: Curve>(
    statement: &Statement<'_>,
    elements: &Elements<'_, C>,
    coefficients: &[Scalar<C>],
) -> Result<()> {
    if elements.points.len() != statement.elements {
        return Err(Error::Batch);
    }
    statement
        .check(coefficients.len())
        .map_err(|_| Error::InvalidInstance)?;
    let mut used_elements = [false; MAX_ELEMENTS];
    let mut used_scalars = [false; MAX_SCALARS];
    for eq in statement.equations {
        for t in eq.image() {
            used_elements[usize::from(t.element)] = true;
        }
        for t in eq.terms() {
            used_elements[usize::from(t.element)] = true;
            used_scalars[usize::from(t.scalar)] = true;
        }
    }
    let points = elements.points;
    if used_elements[1..statement.elements].contains(&false)
        || used_scalars[..statement.scalars].contains(&false)
        || points.first() != Some(&Affine::<C>::generator())
        || points.iter().any(|p| bool::from(p.is_identity()))
    {
        return Err(Error::InvalidInstance);
    }
    for eq in statement.equations {
        let image = eq.image().iter().fold(Point::<C>::IDENTITY, |acc, t| {
            acc.vartime_add(&vartime_scaled(
                &points[usize::from(t.element)],
                t.coeff,
                coefficients,
            ))
        });
        if bool::from(image.is_identity()) {
            return Err(Error::InvalidInstance);
        }
    }
    for s in 0..statement.scalars {
        let nonzero_column = statement.equations.iter().any(|eq| {
            let mut hit = false;
            let mut acc = Point::<C>::IDENTITY;
            for t in eq.terms().iter().filter(|t| usize::from(t.scalar) == s) {
                hit = true;
                acc = acc.vartime_add(&vartime_scaled(
                    &points[usize::from(t.element)],
                    t.coeff,
                    coefficients,
                ));
            }
            hit && !bool::from(acc.is_identity())
        });
        if !nonzero_column {
            return Err(Error::InvalidInstance);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A whole instance

/// A linear relation with its element values and coefficients (sigma-protocols-03
/// §"Representation"), held in fixed arrays: what [`Relation::decode`] reads from the
/// `SerializeLinearRelation` bytes and [`Relation::encode_into`] writes. Element 0 is the
/// generator. Public data.
#[derive(Clone)]
pub struct Relation<C: Curve> {
    equations: [Equation; MAX_EQUATIONS],
    n_equations: usize,
    scalars: usize,
    points: [Affine<C>; MAX_ELEMENTS],
    encodings: [C::Compressed; MAX_ELEMENTS],
    bases: [Base<'static, C>; MAX_ELEMENTS],
    n_elements: usize,
    coefficients: [Scalar<C>; MAX_COEFFICIENTS],
    n_coefficients: usize,
}

impl<C: Curve> fmt::Debug for Relation<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Relation")
            .field("equations", &&self.equations[..self.n_equations])
            .field("scalars", &self.scalars)
            .field("elements", &&self.points[..self.n_elements])
            .field("coefficients", &&self.coefficients[..self.n_coefficients])
            .finish()
    }
}

/// A little-endian `u32` reader over instance bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(Error::InvalidLength);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A count in `1..=max`: 0 is an invalid instance, more than `max` beyond the engine.
    fn count(&mut self, max: usize) -> Result<usize> {
        match self.u32()? {
            0 => Err(Error::InvalidInstance),
            n if n as usize > max => Err(Error::Batch),
            n => Ok(n as usize),
        }
    }

    /// An index below `max` (the engine's bound), as `u8`.
    fn index(&mut self, max: usize) -> Result<u8> {
        match u8::try_from(self.u32()?) {
            Ok(i) if usize::from(i) < max => Ok(i),
            _ => Err(Error::Batch),
        }
    }
}

impl<C: Curve> Relation<C> {
    /// A relation from a statement, its element values (element 0 the generator) and the
    /// coefficient table its [`Coefficient::Index`] terms name.
    ///
    /// # Errors
    /// [`Error::Batch`] for a statement beyond the engine's bounds, a coefficient index outside
    /// the table, a table longer than [`MAX_COEFFICIENTS`] or a point count other than
    /// `statement.elements`.
    pub fn new(
        statement: &Statement<'_>,
        points: &[Affine<C>],
        coefficients: &[Scalar<C>],
    ) -> Result<Self> {
        if coefficients.len() > MAX_COEFFICIENTS || points.len() != statement.elements {
            return Err(Error::Batch);
        }
        statement.check(coefficients.len())?;
        let mut r = Self::empty();
        r.equations[..statement.equations.len()].copy_from_slice(statement.equations);
        r.n_equations = statement.equations.len();
        r.scalars = statement.scalars;
        r.coefficients[..coefficients.len()].copy_from_slice(coefficients);
        r.n_coefficients = coefficients.len();
        for (i, p) in points.iter().enumerate() {
            r.set_element(i, *p);
        }
        r.n_elements = points.len();
        Ok(r)
    }

    fn empty() -> Self {
        Self {
            equations: [Equation::default(); MAX_EQUATIONS],
            n_equations: 0,
            scalars: 0,
            points: [Affine::<C>::IDENTITY; MAX_ELEMENTS],
            encodings: [C::Compressed::default(); MAX_ELEMENTS],
            bases: [Base::Variable; MAX_ELEMENTS],
            n_elements: 0,
            coefficients: [Scalar::<C>::ZERO; MAX_COEFFICIENTS],
            n_coefficients: 0,
        }
    }

    fn set_element(&mut self, i: usize, p: Affine<C>) {
        self.points[i] = p;
        self.encodings[i] = C::encode_compressed(&p);
        self.bases[i] = if i == 0 && p == Affine::<C>::generator() {
            Base::Generator
        } else {
            Base::Variable
        };
    }

    /// Strict inverse of `SerializeLinearRelation` (sigma-protocols-03 §"Serialization"):
    /// `num_elements` is one more than the largest element index, the remaining bytes must be
    /// exactly the compressed elements 1 onwards, coefficients canonical. Coefficients equal
    /// to 1 become [`Coefficient::One`]; the others fill the coefficient table (deduplicated).
    /// Decoding does not run [`validate_instance`].
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for truncated input or an element block of the wrong length;
    /// [`Error::InvalidInstance`] for an empty equation list, image or term list;
    /// [`Error::NonCanonicalScalar`]; [`Error::InvalidPoint`] / [`Error::IdentityElement`] for
    /// an element; [`Error::Batch`] beyond the engine's bounds.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = Self::empty();
        let mut rd = Reader(bytes);
        let n_eq = rd.count(MAX_EQUATIONS)?;
        let mut max_element = 0u8;
        let mut max_scalar = 0u8;
        for i in 0..n_eq {
            let mut eq = Equation::default();
            let n_img = rd.count(MAX_IMAGE_TERMS)?;
            for t in eq.image[..n_img].iter_mut() {
                let element = rd.index(MAX_ELEMENTS)?;
                let coeff = r.read_coefficient(&mut rd)?;
                max_element = max_element.max(element);
                *t = ImageTerm { element, coeff };
            }
            eq.image_len = n_img as u8;
            let n_terms = rd.count(MAX_TERMS)?;
            for t in eq.terms[..n_terms].iter_mut() {
                let scalar = rd.index(MAX_SCALARS)?;
                let element = rd.index(MAX_ELEMENTS)?;
                let coeff = r.read_coefficient(&mut rd)?;
                max_element = max_element.max(element);
                max_scalar = max_scalar.max(scalar);
                *t = Term {
                    scalar,
                    element,
                    coeff,
                };
            }
            eq.len = n_terms as u8;
            r.equations[i] = eq;
        }
        r.n_equations = n_eq;
        r.scalars = usize::from(max_scalar) + 1;
        let n_elements = usize::from(max_element) + 1;
        if rd.0.len() != (n_elements - 1) * C::COMPRESSED_LEN {
            return Err(Error::InvalidLength);
        }
        r.set_element(0, Affine::<C>::generator());
        for (i, chunk) in rd.0.chunks_exact(C::COMPRESSED_LEN).enumerate() {
            r.set_element(i + 1, C::decode_compressed(chunk)?);
        }
        r.n_elements = n_elements;
        Ok(r)
    }

    fn read_coefficient(&mut self, rd: &mut Reader<'_>) -> Result<Coefficient> {
        let c = group::decode_scalar::<C>(rd.take(C::SCALAR_LEN)?)?;
        if c == Scalar::<C>::ONE {
            return Ok(Coefficient::One);
        }
        let used = &self.coefficients[..self.n_coefficients];
        let i = match used.iter().position(|x| *x == c) {
            Some(i) => i,
            None if self.n_coefficients < MAX_COEFFICIENTS => {
                self.coefficients[self.n_coefficients] = c;
                self.n_coefficients += 1;
                self.n_coefficients - 1
            }
            None => return Err(Error::Batch),
        };
        // `i < MAX_COEFFICIENTS <= u8::MAX`.
        Ok(Coefficient::Index(i as u8))
    }

    /// Length of `SerializeLinearRelation(self)`.
    pub fn encoded_len(&self) -> usize {
        let ns = C::SCALAR_LEN;
        self.statement().equations.iter().fold(4, |n, eq| {
            n + 8 + eq.image().len() * (4 + ns) + eq.terms().len() * (8 + ns)
        }) + self.n_elements.saturating_sub(1) * C::COMPRESSED_LEN
    }

    /// Writes `SerializeLinearRelation(self)` into `out` (exactly [`Self::encoded_len`] bytes).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.encoded_len() {
            return Err(Error::InvalidLength);
        }
        let mut w = Writer(out);
        write_statement::<C>(
            &mut |b| w.put(b),
            self.statement().equations,
            self.coefficients(),
        );
        for e in &self.encodings[1..self.n_elements.max(1)] {
            w.put(e.as_ref());
        }
        Ok(())
    }

    /// The statement (counts and equations).
    pub fn statement(&self) -> Statement<'_> {
        Statement {
            scalars: self.scalars,
            elements: self.n_elements,
            equations: &self.equations[..self.n_equations],
        }
    }

    /// The element values, encodings and multiplication hints (the generator table for element
    /// 0, variable-base for the others).
    pub fn elements(&self) -> Elements<'_, C> {
        Elements {
            points: &self.points[..self.n_elements],
            encodings: &self.encodings[..self.n_elements],
            bases: &self.bases[..self.n_elements],
        }
    }

    /// The coefficient table.
    pub fn coefficients(&self) -> &[Scalar<C>] {
        &self.coefficients[..self.n_coefficients]
    }

    /// [`validate_instance`] of this relation.
    ///
    /// # Errors
    /// As [`validate_instance`].
    pub fn validate(&self) -> Result<()> {
        validate_instance(&self.statement(), &self.elements(), self.coefficients())
    }

    /// The transcript prefix of this relation for `session_id` (both [`Sigma03Transcript`]s
    /// share it).
    ///
    /// # Errors
    /// As [`Sigma03Transcript::prefix_with`].
    pub fn prefix(&self, session_id: &[u8; 32]) -> Result<Sigma03Prefix<C>> {
        Sigma03Transcript::<true>::prefix_with(session_id, &self.statement(), self.coefficients())
    }
}

/// A writer over a buffer of exactly the right length (checked by the caller).
struct Writer<'a>(&'a mut [u8]);

impl Writer<'_> {
    fn put(&mut self, b: &[u8]) {
        let buf = core::mem::take(&mut self.0);
        let (head, rest) = buf.split_at_mut(b.len().min(buf.len()));
        head.copy_from_slice(&b[..head.len()]);
        self.0 = rest;
    }
}

// ---------------------------------------------------------------------------------------------
// Relations of any size (heap), compact NARG with caller-supplied nonces

/// One equation of a [`LinearRelation`]: `sum coeff * element = sum coeff * scalar * element`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearEquation<C: Curve> {
    /// Image (left-hand side) terms `(element index, coefficient)`.
    pub image: Vec<(u32, Scalar<C>)>,
    /// Terms `(scalar index, element index, coefficient)`.
    pub terms: Vec<(u32, u32, Scalar<C>)>,
}

/// A linear relation of any size with its element values (sigma-protocols-03
/// §"Representation"), on the heap: the engine of relations too large for the fixed arrays of
/// [`Relation`] (ACT's spend relation at `L = 64`: 261 equations, 391 scalars, 137 elements,
/// about 70 distinct coefficients). The same transcript as every other sigma-03 proof here
/// ([`DuplexSponge`], [`decode_uint`]); the instance bytes are `SerializeLinearRelation`.
/// Element 0 is the generator. Public data.
#[derive(Clone, Debug)]
pub struct LinearRelation<C: Curve> {
    scalars: usize,
    points: Vec<Affine<C>>,
    encodings: Vec<C::Compressed>,
    equations: Vec<LinearEquation<C>>,
}

/// An element's representation `sum x * element` over other elements (relation indices), for
/// [`LinearRelation::prove_compact_opened`].
pub type Opening<'a, C> = &'a [(u32, Scalar<C>)];

impl<C: Curve> LinearRelation<C> {
    /// A relation over `scalars` witness scalars and the elements `points` (element 0 the
    /// generator is prepended: `points[i]` gets index `i + 1`), with no equation yet.
    /// `encodings[i]` must be the compressed encoding of `points[i]` (the caller has them from
    /// one batched affine conversion).
    ///
    /// # Errors
    /// [`Error::Batch`] when the two slices differ in length.
    pub fn new(scalars: usize, points: &[Affine<C>], encodings: &[C::Compressed]) -> Result<Self> {
        if points.len() != encodings.len() {
            return Err(Error::Batch);
        }
        let mut p = Vec::with_capacity(points.len() + 1);
        p.push(Affine::<C>::generator());
        p.extend_from_slice(points);
        let mut e = Vec::with_capacity(points.len() + 1);
        e.push(C::encode_compressed(&Affine::<C>::generator()));
        e.extend_from_slice(encodings);
        Ok(Self {
            scalars,
            points: p,
            encodings: e,
            equations: Vec::new(),
        })
    }

    /// Appends an equation.
    pub fn push(&mut self, equation: LinearEquation<C>) {
        self.equations.push(equation);
    }

    /// The number of witness scalars.
    pub fn scalars(&self) -> usize {
        self.scalars
    }

    /// The number of equations.
    pub fn equations(&self) -> usize {
        self.equations.len()
    }

    /// `SerializeLinearRelation` (sigma-protocols-03 §"Serialization"): `LE32(#equations)`,
    /// per equation the image `LE32(#) (LE32(element) || coeff)*` and the terms
    /// `LE32(#) (LE32(scalar) || LE32(element) || coeff)*`, then elements 1 onwards.
    pub fn serialize(&self) -> Vec<u8> {
        let ns = C::SCALAR_LEN;
        let len = self.equations.iter().fold(4, |n, eq| {
            n + 8 + eq.image.len() * (4 + ns) + eq.terms.len() * (8 + ns)
        }) + self.encodings.len().saturating_sub(1) * C::COMPRESSED_LEN;
        let mut out = Vec::with_capacity(len);
        let le = |n: usize| (n as u32).to_le_bytes();
        out.extend_from_slice(&le(self.equations.len()));
        for eq in &self.equations {
            write_equation::<C>(
                &mut |b| out.extend_from_slice(b),
                eq.image.iter().map(|(e, c)| (*e, C::scalar_bytes(c))),
                eq.terms
                    .iter()
                    .map(|(s, e, c)| (*s, *e, C::scalar_bytes(c))),
            );
        }
        for e in self.encodings.iter().skip(1) {
            out.extend_from_slice(e.as_ref());
        }
        out
    }

    fn point(&self, e: u32) -> Result<&Affine<C>> {
        self.points.get(e as usize).ok_or(Error::InvalidInstance)
    }

    /// `ValidateInstance` (sigma-protocols-03 §"Instance validation", as
    /// [`validate_instance`]): equations with images and terms, indices in range, every
    /// element and scalar used, element 0 the generator, no identity element, no identity
    /// image, no all-identity scalar column. Variable time (the instance is public); a column
    /// entry of one term is `coeff * P` with `P` not the identity, so only entries of several
    /// terms are multiplied out.
    ///
    /// # Errors
    /// [`Error::InvalidInstance`].
    pub fn vartime_validate(&self) -> Result<()> {
        self.vartime_validate_images().map(|_| ())
    }

    /// [`Self::vartime_validate`], returning the value of every image of several terms (the
    /// others `None`): the verifier multiplies that one point by `-c` instead of each of its
    /// terms (ACT's range equations: `s*H1 + sum 2^j Com_j`, computed once, with the
    /// coefficients' one-digit recodings, as Horner's rule would).
    fn vartime_validate_images(&self) -> Result<Vec<Option<Point<C>>>> {
        let mut images = Vec::with_capacity(self.equations.len());
        let mut used_elements = vec![false; self.points.len()];
        let mut used_scalars = vec![false; self.scalars];
        let mut nonzero_column = vec![false; self.scalars];
        if self.equations.is_empty()
            || self.points.first() != Some(&Affine::<C>::generator())
            || self.points.iter().any(|p| bool::from(p.is_identity()))
        {
            return Err(Error::InvalidInstance);
        }
        for eq in &self.equations {
            if eq.image.is_empty() || eq.terms.is_empty() {
                return Err(Error::InvalidInstance);
            }
            let mut points = Vec::with_capacity(eq.image.len());
            let mut coeffs = Vec::with_capacity(eq.image.len());
            for (e, c) in &eq.image {
                points.push(*self.point(*e)?);
                coeffs.push(*c);
                used_elements[*e as usize] = true;
            }
            // One image term: `coeff * P` with `P` not the identity (checked above) is the
            // identity only for a zero coefficient (prime order), so no multiplication.
            let image_is_identity = match coeffs.as_slice() {
                [c] => {
                    images.push(None);
                    bool::from(c.is_zero())
                }
                _ => {
                    let image = group::vartime_msm::<C>(&points, &coeffs)?;
                    images.push(Some(image));
                    bool::from(image.is_identity())
                }
            };
            if image_is_identity {
                return Err(Error::InvalidInstance);
            }
            for (i, (s, e, c)) in eq.terms.iter().enumerate() {
                self.point(*e)?;
                let s = *s as usize;
                if s >= self.scalars {
                    return Err(Error::InvalidInstance);
                }
                used_elements[*e as usize] = true;
                used_scalars[s] = true;
                if nonzero_column[s] {
                    continue;
                }
                let others = eq.terms.iter().filter(|t| t.0 as usize == s).count();
                nonzero_column[s] = if others == 1 {
                    !bool::from(c.is_zero())
                } else if eq.terms[..i].iter().any(|t| t.0 as usize == s) {
                    false
                } else {
                    let sum = eq.terms.iter().filter(|t| t.0 as usize == s).try_fold(
                        Point::<C>::IDENTITY,
                        |acc, t| {
                            Ok::<_, Error>(
                                acc.vartime_add(&group::vartime_mul::<C>(self.point(t.1)?, &t.2)),
                            )
                        },
                    )?;
                    !bool::from(sum.is_identity())
                };
            }
        }
        if used_elements[1..].contains(&false)
            || used_scalars.contains(&false)
            || nonzero_column.contains(&false)
        {
            return Err(Error::InvalidInstance);
        }
        Ok(images)
    }

    /// The challenge of the compact NARG: a [`DuplexSponge`] on `session_id` absorbs
    /// `instance` (this relation's [`Self::serialize`]) and the commitments, and squeezes
    /// `Ns + 16` bytes for [`decode_uint`].
    fn challenge(
        session_id: &[u8; 32],
        instance: &[u8],
        commitments: &[Point<C>],
    ) -> Result<Scalar<C>> {
        let mut affine = vec![Affine::<C>::IDENTITY; commitments.len()];
        group::normalize_slice::<C>(commitments, &mut affine)?;
        // Published: the commitments are determined by the proof `c || z` and the instance
        // (the verifier recomputes them); the nonces behind them stay secret.
        validation::publish(&mut affine[..]);
        let mut ds = DuplexSponge::new(session_id);
        ds.absorb(instance);
        for a in &affine {
            // `Group.serialize` is undefined on the identity: no proof has one.
            if bool::from(a.is_identity()) {
                return Err(Error::InvalidProof);
            }
            ds.absorb(C::encode_compressed(a).as_ref());
        }
        let mut wide = [0u8; 48 + 16];
        let n = C::SCALAR_LEN + 16;
        ds.squeeze(&mut wide[..n]);
        decode_uint::<C>(&wide[..n])
    }

    /// The end of both provers: the challenge from the commitments, then `c || z` with
    /// `z_i = nonce_i + c * w_i` (constant time in the witness and nonces; each `z_i` wiped).
    fn respond(
        &self,
        session_id: &[u8; 32],
        instance: &[u8],
        commitments: &[Point<C>],
        witness: &[Scalar<C>],
        nonces: &[Scalar<C>],
    ) -> Result<Vec<u8>> {
        let c = Self::challenge(session_id, instance, commitments)?;
        let mut out = Vec::with_capacity((1 + self.scalars) * C::SCALAR_LEN);
        out.extend_from_slice(C::scalar_bytes(&c).as_ref());
        for (n, w) in nonces.iter().zip(witness) {
            let mut z = *n + c * w;
            out.extend_from_slice(C::scalar_bytes(&z).as_ref());
            zeroize::Zeroize::zeroize(&mut z);
        }
        // Published: the proof is the prover's message (`c` a hash output, each `z_i` masked by
        // its one-time nonce).
        validation::publish(&mut out[..]);
        Ok(out)
    }

    /// `ProveCompact` with the given nonces (one per scalar; sigma-protocols-03 §5.5): commits
    /// `T_j = sum coeff * nonce * element`, derives the challenge from `instance` (which must be
    /// [`Self::serialize`]) and answers `z_i = nonce_i + c * w_i`; returns `c || z` encoded.
    /// Constant time in the witness and nonces (the shape is public). `tables[e]`, when
    /// present, is a fixed-base table of element `e` (element 0 always uses the generator's).
    ///
    /// # Errors
    /// [`Error::Batch`] when `witness`, `nonces` or `tables` have the wrong length;
    /// [`Error::InvalidInstance`] for an index out of range; [`Error::InvalidProof`] for an
    /// identity commitment (probability `~2^-256` with derived nonces).
    pub fn prove_compact(
        &self,
        session_id: &[u8; 32],
        instance: &[u8],
        witness: &[Scalar<C>],
        nonces: &[Scalar<C>],
        tables: &[Option<&FixedBaseTable<C>>],
    ) -> Result<Vec<u8>> {
        // No element opened: the same products (terms on one element merged into one).
        let openings = vec![None; self.points.len()];
        self.prove_compact_opened(session_id, instance, witness, nonces, tables, &openings)
    }

    /// [`Self::prove_compact`] with openings: `openings[e]`, when present, is a representation
    /// `element e = sum x * element e'` over elements with a fixed-base table in `tables` (or
    /// the generator), known to the prover. A term on `e` is then computed on those elements,
    /// and the terms of one equation on one element are merged into one fixed-base
    /// multiplication, so no variable-base multiplication is left for an opened element. The
    /// commitments are the same group elements, so the proof is byte-identical to
    /// [`Self::prove_compact`]'s. Constant time in the witness, nonces and openings (the shape,
    /// which elements are opened on which, is public).
    ///
    /// # Errors
    /// As [`Self::prove_compact`]; [`Error::Batch`] when `openings` has the wrong length or an
    /// opening names an element without a table.
    pub fn prove_compact_opened(
        &self,
        session_id: &[u8; 32],
        instance: &[u8],
        witness: &[Scalar<C>],
        nonces: &[Scalar<C>],
        tables: &[Option<&FixedBaseTable<C>>],
        openings: &[Option<Opening<'_, C>>],
    ) -> Result<Vec<u8>> {
        if witness.len() != self.scalars
            || nonces.len() != self.scalars
            || tables.len() != self.points.len()
            || openings.len() != self.points.len()
        {
            return Err(Error::Batch);
        }
        let mut commitments = Vec::with_capacity(self.equations.len());
        // The elements and scalars of one equation, merged by element (the indices are
        // public; the scalars are wiped).
        // Sized once for the longest equation (a reallocation would free a buffer of secret
        // scalars unwiped).
        let cap = self
            .equations
            .iter()
            .map(|eq| {
                eq.terms
                    .iter()
                    .map(
                        |(_, e, _)| match openings.get(*e as usize).copied().flatten() {
                            Some(op) => op.len(),
                            None => 1,
                        },
                    )
                    .sum::<usize>()
            })
            .max()
            .unwrap_or(0);
        let mut elems: Vec<u32> = Vec::with_capacity(cap);
        let mut ks: zeroize::Zeroizing<Vec<Scalar<C>>> =
            zeroize::Zeroizing::new(Vec::with_capacity(cap));
        for eq in &self.equations {
            elems.clear();
            ks.clear();
            for (s, e, c) in &eq.terms {
                let k = *nonces.get(*s as usize).ok_or(Error::InvalidInstance)? * c;
                let single = [(*e, Scalar::<C>::ONE)];
                let op = openings.get(*e as usize).copied().flatten();
                for (e2, x) in op.unwrap_or(&single) {
                    let kx = if op.is_some() { k * x } else { k };
                    match elems.iter().position(|m| m == e2) {
                        Some(i) => ks[i] += kx,
                        None => {
                            elems.push(*e2);
                            ks.push(kx);
                        }
                    }
                }
            }
            let mut t = Point::<C>::IDENTITY;
            for (e, k) in elems.iter().zip(ks.iter()) {
                let p = if *e == 0 {
                    group::mul_generator::<C>(k)
                } else {
                    match tables.get(*e as usize).copied().flatten() {
                        Some(table) => table.mul(k),
                        None if openings.get(*e as usize).copied().flatten().is_some() => {
                            return Err(Error::Batch)
                        }
                        None => group::mul_affine::<C>(self.point(*e)?, k),
                    }
                };
                t += p;
            }
            commitments.push(t);
        }
        self.respond(session_id, instance, &commitments, witness, nonces)
    }

    /// `VerifyCompact`: strict decoding of `c || z` (exact length, canonical scalars),
    /// [`Self::vartime_validate`], then `T_j = sum coeff * z * element - c * image_j` (terms on
    /// one element merged; elements with a fixed-base table in `tables`, and the generator,
    /// through their tables; the others by one variable-time multi-scalar multiplication) and
    /// the challenge comparison. Public inputs only.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] whichever check failed (the instance included).
    pub fn vartime_verify_compact(
        &self,
        session_id: &[u8; 32],
        instance: &[u8],
        proof: &[u8],
        tables: &[Option<&FixedBaseTable<C>>],
    ) -> Result<()> {
        let ns = C::SCALAR_LEN;
        if proof.len() != (1 + self.scalars) * ns {
            return Err(Error::InvalidProof);
        }
        let images = self
            .vartime_validate_images()
            .map_err(|_| Error::InvalidProof)?;
        let mut scalars = Vec::with_capacity(self.scalars + 1);
        for chunk in proof.chunks_exact(ns) {
            scalars.push(group::decode_scalar::<C>(chunk).map_err(|_| Error::InvalidProof)?);
        }
        let (c, z) = scalars.split_first().ok_or(Error::InvalidProof)?;
        // The elements, then the images of several terms (one inversion for those).
        let image_points: Vec<Point<C>> = images.iter().flatten().copied().collect();
        let mut bases = self.points.clone();
        bases.resize(
            self.points.len() + image_points.len(),
            Affine::<C>::IDENTITY,
        );
        group::normalize_slice::<C>(&image_points, &mut bases[self.points.len()..])?;
        let mut next_image = self.points.len();
        let mut commitments = Vec::with_capacity(self.equations.len());
        // Equations with one variable base leave it to one batch: `(base, scalar)` jobs and
        // the equation each adds to.
        let mut jobs: Vec<(usize, Scalar<C>)> = Vec::new();
        let mut job_eq: Vec<usize> = Vec::new();
        let mut merged: Vec<(u32, Scalar<C>)> = Vec::new();
        let mut pts = Vec::new();
        let mut ks = Vec::new();
        let mut var: Vec<usize> = Vec::new();
        for (j, (eq, image)) in self.equations.iter().zip(&images).enumerate() {
            // One scalar per element: terms and image terms on the same element are merged;
            // an image of several terms is one base of its own with the scalar `-c`.
            merged.clear();
            let terms = eq.terms.iter().map(|(s, e, coeff)| {
                z.get(*s as usize)
                    .map(|zs| (*e, *zs * coeff))
                    .ok_or(Error::InvalidProof)
            });
            let image_terms = eq
                .image
                .iter()
                .filter(|_| image.is_none())
                .map(|(e, coeff)| Ok((*e, -(*c * coeff))));
            for t in terms.chain(image_terms) {
                let (e, k) = t?;
                match merged.iter_mut().find(|(m, _)| *m == e) {
                    Some((_, acc)) => *acc += k,
                    None => merged.push((e, k)),
                }
            }
            var.clear();
            pts.clear();
            ks.clear();
            let mut t = Point::<C>::IDENTITY;
            for (e, k) in &merged {
                let table = if *e == 0 {
                    None
                } else {
                    tables.get(*e as usize).copied().flatten()
                };
                match table {
                    Some(table) => t = t.vartime_add(&table.vartime_mul(k)),
                    None if *e == 0 => t = t.vartime_add(&C::generator_table().vartime_mul(k)),
                    None => {
                        self.point(*e).map_err(|_| Error::InvalidProof)?;
                        var.push(*e as usize);
                        ks.push(*k);
                    }
                }
            }
            if image.is_some() {
                var.push(next_image);
                ks.push(-*c);
                next_image += 1;
            }
            match var.len() {
                0 => {}
                1 => {
                    jobs.push((var[0], ks[0]));
                    job_eq.push(j);
                }
                _ => {
                    pts.extend(var.iter().map(|i| bases[*i]));
                    t = t.vartime_add(&group::vartime_msm::<C>(&pts, &ks)?);
                }
            }
            commitments.push(t);
        }
        let mut products = vec![Point::<C>::IDENTITY; jobs.len()];
        group::vartime_mul_batch::<C>(&bases, &jobs, &mut products)?;
        for (p, j) in products.iter().zip(&job_eq) {
            if let Some(t) = commitments.get_mut(*j) {
                *t = t.vartime_add(p);
            }
        }
        let expected = Self::challenge(session_id, instance, &commitments)?;
        if expected == *c {
            Ok(())
        } else {
            Err(Error::InvalidProof)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arc::sigma::{self, CompactProof};
    use crate::arc::statements;
    use crate::group::NistP256;

    type C = NistP256;

    fn points(n: usize) -> [Affine<C>; MAX_ELEMENTS] {
        let mut out = [Affine::<C>::IDENTITY; MAX_ELEMENTS];
        for (i, p) in out[..n].iter_mut().enumerate() {
            *p = group::to_affine(&group::mul_generator::<C>(&Scalar::<C>::from(i as u64 + 1)));
        }
        out
    }

    /// ARC-01's presentation statement fails -03 validation only because `UPrimeCommit`
    /// (element 3) is in no equation: one more equation that uses it makes it pass.
    #[test]
    fn arc_presentation_statement_needs_switchable_validation() {
        let mut eqs = [Equation::default(); MAX_EQUATIONS];
        let st = statements::presentation_statement(1, &mut eqs);
        let pts = points(st.elements);
        let r = Relation::<C>::new(&st, &pts[..st.elements], &[]).unwrap();
        assert_eq!(r.validate(), Err(Error::InvalidInstance));
        let mut more = [Equation::default(); MAX_EQUATIONS];
        more[..st.equations.len()].copy_from_slice(st.equations);
        more[st.equations.len()] = Equation::new(3, &[(0, 0)]);
        let st2 = Statement {
            equations: &more[..st.equations.len() + 1],
            ..st
        };
        let r2 = Relation::<C>::new(&st2, &pts[..st.elements], &[]).unwrap();
        assert_eq!(r2.validate(), Ok(()));
    }

    /// An unused element: the validating transcript refuses to prove and to verify, the
    /// unvalidated one proves and verifies (the proof is sound for the equations it has).
    #[test]
    fn validation_switch() {
        let x = Scalar::<C>::from(7u64);
        let xg = group::to_affine(&group::mul_generator::<C>(&x));
        let extra = points(3)[2];
        let eqs = [Equation::new(1, &[(0, 0)])];
        let st = Statement {
            scalars: 1,
            elements: 3,
            equations: &eqs,
        };
        let r = Relation::<C>::new(&st, &[Affine::<C>::generator(), xg, extra], &[]).unwrap();
        let sid = p256_session_id(b"unit-test", Flavor::Compact);
        let prefix = r.prefix(&sid).unwrap();
        let nonce = [Scalar::<C>::from(11u64)];
        let strict = sigma::prove::<C, Sigma03Transcript<true>, 1>(
            &prefix,
            &r.statement(),
            &r.elements(),
            &[x],
            &nonce,
        );
        assert_eq!(strict.unwrap_err(), Error::InvalidInstance);
        let proof: CompactProof<C, 1> = sigma::prove::<C, Sigma03Transcript<false>, 1>(
            &prefix,
            &r.statement(),
            &r.elements(),
            &[x],
            &nonce,
        )
        .unwrap();
        sigma::verify::<C, Sigma03Transcript<false>, 1>(
            &prefix,
            &r.statement(),
            &r.elements(),
            &proof,
        )
        .unwrap();
        assert_eq!(
            sigma::verify::<C, Sigma03Transcript<true>, 1>(
                &prefix,
                &r.statement(),
                &r.elements(),
                &proof
            ),
            Err(Error::InvalidProof)
        );
    }

    /// Coefficients other than 1 go through the table: `X = 3x * G` proves with the witness
    /// `x`, and the instance encoding round-trips with the coefficient in it.
    #[test]
    fn coefficients_round_trip_and_prove() {
        let x = Scalar::<C>::from(5u64);
        let three = Scalar::<C>::from(3u64);
        let xg = group::to_affine(&group::mul_generator::<C>(&(x * three)));
        let eqs = [Equation::with_coefficients(
            &[(1, Coefficient::One)],
            &[(0, 0, Coefficient::Index(0))],
        )];
        let st = Statement {
            scalars: 1,
            elements: 2,
            equations: &eqs,
        };
        let r = Relation::<C>::new(&st, &[Affine::<C>::generator(), xg], &[three]).unwrap();
        let mut bytes = [0u8; 256];
        let n = r.encoded_len();
        r.encode_into(&mut bytes[..n]).unwrap();
        let back = Relation::<C>::decode(&bytes[..n]).unwrap();
        assert_eq!(back.coefficients(), &[three]);
        let mut again = [0u8; 256];
        back.encode_into(&mut again[..n]).unwrap();
        assert_eq!(bytes[..n], again[..n]);
        let sid = p256_session_id(b"unit-test", Flavor::Batchable);
        let prefix = back.prefix(&sid).unwrap();
        let proof = sigma::prove_batchable::<C, Sigma03Transcript<true>, 1, 1>(
            &prefix,
            &back.statement(),
            &back.elements(),
            &[x],
            &[Scalar::<C>::from(9u64)],
        )
        .unwrap();
        sigma::verify_batchable::<C, Sigma03Transcript<true>, 1, 1>(
            &prefix,
            &back.statement(),
            &back.elements(),
            &proof,
        )
        .unwrap();
        // The same proof under coefficient 1 fails: the coefficient is bound.
        let plain = [Equation::new(1, &[(0, 0)])];
        let st1 = Statement {
            equations: &plain,
            ..st
        };
        let r1 = Relation::<C>::new(&st1, &[Affine::<C>::generator(), xg], &[]).unwrap();
        let p1 = r1.prefix(&sid).unwrap();
        assert!(sigma::verify_batchable::<C, Sigma03Transcript<true>, 1, 1>(
            &p1,
            &r1.statement(),
            &r1.elements(),
            &proof
        )
        .is_err());
    }
}
