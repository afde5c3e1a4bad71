//! decaf448 (RFC 9496 §5), the group of the decaf448-SHAKE256 suite (RFC 9497 §4.2), on the
//! `ed448-goldilocks` crate.
//!
//! The curve crate provides the point arithmetic (internal representatives on the twisted
//! Edwards curve isogenous to edwards448), the strict `Decode` and the `Encode` of RFC 9496
//! §5.3.1 and §5.3.2, the element derivation map of §5.3.4 (`from_uniform_bytes`) and the
//! scalar field. This module adds what RFC 9497 names and the crate does not have:
//!
//! - HashToGroup = `hash_to_decaf448`: 112 bytes of `expand_message_xof` (RFC 9380 §5.3.2,
//!   over SHAKE256 from `shake` 0.1; its code is in the expanders' module, `group::prime`, and
//!   re-exported here as [`expand_message_xof`]) through the §5.3.4 map. The curve
//!   crate's `GroupDigest` for decaf448 computes the same function (the tests check that), but
//!   through its pre-release `hash2curve` and `shake` (digest 0.11) APIs; this module uses only
//!   the crate's point, map and scalar types, a narrower surface to follow across its releases.
//! - HashToScalar: 64 expanded bytes read as a little-endian integer and reduced modulo the
//!   order, in constant time.
//! - strict scalar decoding (56 little-endian bytes, below the order), random scalars from 64
//!   bytes of the caller's RNG (reduced, zero rejected; the RNG is never handed to the curve
//!   crate), and [`Shake256x64`], the suite's `Hash` as a `digest` 0.11 fixed-output hash.
//!
//! [`Decaf448`] is the [`PrimeGroup`] of the suite: elements need no normalisation (the
//! `Normal` type is the element itself), and the only expander is `expand_message_xof` with
//! SHAKE256 (an `Xmd` expansion is refused with [`Error::UnsupportedValue`]).
//!
//! Every operation on secret scalars or points is constant time: our scalar multiplications
//! (signed 4-bit windows, and a precomputed table for the generator) read every table entry
//! through constant-time selects; the curve crate's scalar reductions (`rem_wide_vartime`) are
//! variable time in the modulus only, and its field inversions and square roots are fixed
//! exponentiations.

use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

use ed448_goldilocks::elliptic_curve::{
    array::Array, consts::U64 as EcU64, ff::Field, group::Group as _, ops::Reduce,
};
use ed448_goldilocks::{CompressedDecaf, DecafPoint, DecafScalar};
use elliptic_curve::consts::{U112, U56};
use rand_core::CryptoRng;
use sha2::digest::{
    self, consts::U64, ExtendableOutput, FixedOutput, FixedOutputReset, HashMarker, OutputSizeUser,
    Reset, Update, XofReader,
};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// RFC 9380 §5.3.2 over SHAKE256 (owned by the expanders' module, `group::prime`; this is its
/// public path).
pub use super::prime::expand_message_xof;
use super::prime::{MessageExpansion, PrimeGroup, Xof};
use crate::{Error, Result};

/// `Ne`: the length of an element encoding.
pub const ELEMENT_LEN: usize = 56;
/// `Ns`: the length of a scalar encoding.
pub const SCALAR_LEN: usize = 56;
/// The length of the uniform bytes HashToGroup expands the input to (RFC 9496 §5.3.4).
pub const UNIFORM_BYTES_LEN: usize = 112;
/// The length of the uniform bytes HashToScalar and RandomScalar reduce (RFC 9497 §4.2).
pub const WIDE_SCALAR_LEN: usize = 64;

/// The newtype impls `Element` and `Scalar` share over the crate's types: constant-time
/// equality (and `PartialEq` through it), selection, `+`, `-` and negation.
macro_rules! newtype_ops {
    ($t:ident, $inner:ty) => {
        impl ConstantTimeEq for $t {
            fn ct_eq(&self, other: &Self) -> Choice {
                self.0.ct_eq(&other.0)
            }
        }

        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                self.ct_eq(other).into()
            }
        }

        impl Eq for $t {}

        impl ConditionallySelectable for $t {
            fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
                Self(<$inner>::conditional_select(&a.0, &b.0, choice))
            }
        }

        impl Add for $t {
            type Output = Self;
            fn add(self, rhs: Self) -> Self {
                Self(self.0 + rhs.0)
            }
        }

        impl Sub for $t {
            type Output = Self;
            fn sub(self, rhs: Self) -> Self {
                Self(self.0 - rhs.0)
            }
        }

        impl Neg for $t {
            type Output = Self;
            fn neg(self) -> Self {
                Self(-self.0)
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Elements

/// A decaf448 group element (RFC 9496 §5).
///
/// Equality ([`ConstantTimeEq`], `==`) is the group's (RFC 9496 §5.3.3), not that of the
/// internal representatives.
#[derive(Clone, Copy, Default)]
pub struct Element(DecafPoint);

impl Element {
    /// The identity element.
    pub const IDENTITY: Self = Self(DecafPoint::IDENTITY);
    /// The generator (RFC 9496 §5.3; encoded as `66…66 33…33`).
    pub const GENERATOR: Self = Self(DecafPoint::GENERATOR);

    /// `Encode` (RFC 9496 §5.3.2): the canonical 56-byte encoding (the identity encodes as all
    /// zeros). Constant time.
    pub fn to_bytes(&self) -> [u8; ELEMENT_LEN] {
        self.0.compress().0
    }

    /// `Decode` (RFC 9496 §5.3.1) followed by the identity check of RFC 9497
    /// `DeserializeElement`: exactly 56 bytes, a canonical non-negative field element `s`, a
    /// square where the decoding needs one, and not the identity.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let p = Self::from_bytes_allow_identity(bytes)?;
        if bool::from(p.is_identity()) {
            return Err(Error::IdentityElement);
        }
        Ok(p)
    }

    /// `Decode` (RFC 9496 §5.3.1) alone: as [`Element::from_bytes`] but the identity (all
    /// zeros) is accepted.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::InvalidPoint`].
    pub fn from_bytes_allow_identity(bytes: &[u8]) -> Result<Self> {
        let bytes: [u8; ELEMENT_LEN] = bytes.try_into().map_err(|_| Error::InvalidLength)?;
        Option::<DecafPoint>::from(CompressedDecaf(bytes).decompress())
            .map(Self)
            .ok_or(Error::InvalidPoint)
    }

    /// The element derivation function of RFC 9496 §5.3.4: two applications of the map, one
    /// on each 56-byte half, added. Constant time.
    pub fn from_uniform_bytes(bytes: &[u8; UNIFORM_BYTES_LEN]) -> Self {
        Self(DecafPoint::from_uniform_bytes(bytes))
    }

    /// `hash_to_decaf448` with `expand_message_xof` over SHAKE256 (RFC 9380 §5.3.2; RFC 9496
    /// §5.3.4): RFC 9497's HashToGroup for decaf448-SHAKE256. Message and DST are given as
    /// pieces that are concatenated.
    ///
    /// # Errors
    /// [`Error::HashToCurve`] when the DST is empty.
    pub fn hash_to_group(msg: &[&[u8]], dst: &[&[u8]]) -> Result<Self> {
        let mut uniform = [0u8; UNIFORM_BYTES_LEN];
        expand_message_xof(msg, dst, &mut uniform)?;
        let p = Self::from_uniform_bytes(&uniform);
        uniform.zeroize();
        Ok(p)
    }

    /// Whether this is the identity. Constant time.
    pub fn is_identity(&self) -> Choice {
        self.0.is_identity()
    }

    /// `2 * self`.
    pub fn double(&self) -> Self {
        Self(self.0.double())
    }

    /// `k * self`, constant time in `k` and in the element: a signed 4-bit window (113 digits
    /// in `[-8, 8]`, each table entry chosen by a full scan with constant-time selects), 448
    /// doublings and 113 additions.
    pub fn mul(&self, k: &Scalar) -> Self {
        let table = multiples_table(self);
        let mut kb = k.to_bytes();
        let mut digits = signed_radix16(&kb);
        kb.zeroize();
        let mut acc = Self::IDENTITY;
        for &d in digits.iter().rev() {
            acc = acc.double().double().double().double();
            acc = acc + select_signed(&table, d);
        }
        digits.zeroize();
        acc
    }

    /// `k * G`, constant time in `k`: one constant-time table scan and one addition per 4-bit
    /// digit, no doubling, over the process-wide table of `j * 16^i * G` (113 × 8 entries,
    /// about 200 KB, built on first use).
    pub fn mul_generator(k: &Scalar) -> Self {
        let tables = generator_tables();
        let mut kb = k.to_bytes();
        let mut digits = signed_radix16(&kb);
        kb.zeroize();
        let mut acc = Self::IDENTITY;
        for (table, &d) in tables.iter().zip(digits.iter()) {
            acc = acc + select_signed(table, d);
        }
        digits.zeroize();
        acc
    }

    /// `sum k_i * P_i`, constant time in every scalar and point.
    pub fn lincomb<const N: usize>(points: &[Self; N], scalars: &[Scalar; N]) -> Self {
        points
            .iter()
            .zip(scalars)
            .fold(Self::IDENTITY, |acc, (p, k)| acc + p.mul(k))
    }

    /// `k * self` in variable time: only for a public `k` and a public element.
    ///
    /// A signed 4-bit window over the scalar's nibbles (113 digits in `[-8, 8]`), with a
    /// table of `P, 2P, …, 8P`; about a third of the additions of the constant-time
    /// double-and-add.
    pub fn vartime_mul(&self, k: &Scalar) -> Self {
        let table = multiples_table(self);
        let digits = signed_radix16(&k.to_bytes());
        let mut acc = Self::IDENTITY;
        for &d in digits.iter().rev() {
            acc = acc.double().double().double().double();
            match d {
                0 => {}
                d if d > 0 => acc = acc + table[(d - 1) as usize],
                d => acc = acc - table[(-d - 1) as usize],
            }
        }
        acc
    }

    /// `sum k_i * P_i` in variable time (Straus with the window of [`Element::vartime_mul`]):
    /// only for public scalars and points. Allocates one table per point.
    ///
    /// # Errors
    /// [`Error::Batch`] when the slices differ in length.
    pub fn vartime_msm(points: &[Self], scalars: &[Scalar]) -> Result<Self> {
        if points.len() != scalars.len() {
            return Err(Error::Batch);
        }
        let tables: Vec<[Self; 8]> = points.iter().map(multiples_table).collect();
        let digits: Vec<[i8; 113]> = scalars
            .iter()
            .map(|k| signed_radix16(&k.to_bytes()))
            .collect();
        let mut acc = Self::IDENTITY;
        for i in (0..113).rev() {
            acc = acc.double().double().double().double();
            for (table, ds) in tables.iter().zip(&digits) {
                match ds[i] {
                    0 => {}
                    d if d > 0 => acc = acc + table[(d - 1) as usize],
                    d => acc = acc - table[(-d - 1) as usize],
                }
            }
        }
        Ok(acc)
    }

    /// `sum k_i * P_i` for a fixed number of terms, variable time, on the stack (public data
    /// only).
    pub fn vartime_lincomb<const N: usize>(points: &[Self; N], scalars: &[Scalar; N]) -> Self {
        let tables: [[Self; 8]; N] = core::array::from_fn(|i| multiples_table(&points[i]));
        let digits: [[i8; 113]; N] =
            core::array::from_fn(|i| signed_radix16(&scalars[i].to_bytes()));
        let mut acc = Self::IDENTITY;
        for i in (0..113).rev() {
            acc = acc.double().double().double().double();
            for (table, ds) in tables.iter().zip(&digits) {
                match ds[i] {
                    0 => {}
                    d if d > 0 => acc = acc + table[(d - 1) as usize],
                    d => acc = acc - table[(-d - 1) as usize],
                }
            }
        }
        acc
    }

    /// `a * G + b * P` in variable time (public data only): the generator part from the
    /// precomputed tables (no doubling), the other by the window of [`Element::vartime_mul`].
    pub fn vartime_mul_generator_add(a: &Scalar, b: &Scalar, p: &Self) -> Self {
        let tables = generator_tables();
        let digits = signed_radix16(&a.to_bytes());
        let mut acc = p.vartime_mul(b);
        for (table, &d) in tables.iter().zip(digits.iter()) {
            match d {
                0 => {}
                d if d > 0 => acc = acc + table[(d - 1) as usize],
                d => acc = acc - table[(-d - 1) as usize],
            }
        }
        acc
    }
}

/// `[P, 2P, …, 8P]`.
fn multiples_table(p: &Element) -> [Element; 8] {
    let mut t = [*p; 8];
    for i in 1..8 {
        t[i] = t[i - 1] + *p;
    }
    t
}

/// `d * P` from `table = [P, …, 8P]` for a digit `d` in `[-8, 8]`, constant time in `d`: every
/// entry is read, the sign applied with a select.
fn select_signed(table: &[Element; 8], d: i8) -> Element {
    let neg = (d >> 7) as u8 & 1;
    let abs = ((d ^ (d >> 7)) - (d >> 7)) as u8;
    let mut t = Element::IDENTITY;
    for (j, entry) in table.iter().enumerate() {
        t = Element::conditional_select(&t, entry, abs.ct_eq(&(j as u8 + 1)));
    }
    Element::conditional_select(&t, &-t, Choice::from(neg))
}

/// The generator tables: `tables[i] = [16^i G, 2 * 16^i G, …, 8 * 16^i G]`.
fn generator_tables() -> &'static [[Element; 8]; 113] {
    static TABLES: std::sync::OnceLock<Box<[[Element; 8]; 113]>> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let mut tables = Box::new([[Element::IDENTITY; 8]; 113]);
        let mut base = Element::GENERATOR;
        for table in tables.iter_mut() {
            *table = multiples_table(&base);
            base = base.double().double().double().double();
        }
        tables
    })
}

/// The 56 little-endian bytes of a reduced scalar as 113 signed digits in `[-8, 8]`, least
/// significant first (`k = sum d_i 16^i`). Branch-free: masks, shifts and additions only.
fn signed_radix16(bytes: &[u8; SCALAR_LEN]) -> [i8; 113] {
    let mut d = [0i8; 113];
    for (i, b) in bytes.iter().enumerate() {
        d[2 * i] = (b & 15) as i8;
        d[2 * i + 1] = (b >> 4) as i8;
    }
    // Scalars are below 2^446, so the carry out of the top nibble lands in d[112].
    for i in 0..112 {
        let carry = (d[i] + 8) >> 4;
        d[i] -= carry << 4;
        d[i + 1] += carry;
    }
    d
}

impl fmt::Debug for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("decaf448::Element(")?;
        for b in self.to_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

newtype_ops!(Element, DecafPoint);

impl Mul<&Scalar> for &Element {
    type Output = Element;
    fn mul(self, k: &Scalar) -> Element {
        Element::mul(self, k)
    }
}

impl Zeroize for Element {
    fn zeroize(&mut self) {
        self.0 = DecafPoint::IDENTITY;
    }
}

// ---------------------------------------------------------------------------------------------
// Scalars

/// A scalar modulo the decaf448 group order
/// `2^446 - 13818066809895115352007386748515426880336692474882178609894547503885`.
///
/// Equality is constant time; `Debug` does not print the value.
#[derive(Clone, Copy, Default)]
pub struct Scalar(DecafScalar);

impl Scalar {
    /// Zero.
    pub const ZERO: Self = Self(DecafScalar::ZERO);
    /// One.
    pub const ONE: Self = Self(DecafScalar::ONE);

    /// `SerializeScalar` (RFC 9497 §4.2): 56 bytes, little-endian.
    pub fn to_bytes(&self) -> [u8; SCALAR_LEN] {
        self.0.to_bytes()
    }

    /// `DeserializeScalar` (RFC 9497 §4.2): exactly 56 little-endian bytes of a value below
    /// the order. Constant time in the value.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bytes: [u8; SCALAR_LEN] = bytes.try_into().map_err(|_| Error::InvalidLength)?;
        let repr = Array::from(bytes);
        Option::<DecafScalar>::from(DecafScalar::from_canonical_bytes(&repr))
            .map(Self)
            .ok_or(Error::NonCanonicalScalar)
    }

    /// A 512-bit little-endian integer reduced modulo the order, constant time.
    pub fn from_wide_bytes(bytes: &[u8; WIDE_SCALAR_LEN]) -> Self {
        let mut wide = Array::<u8, EcU64>::from(*bytes);
        let s = <DecafScalar as Reduce<Array<u8, EcU64>>>::reduce(&wide);
        wide.zeroize();
        Self(s)
    }

    /// HashToScalar of RFC 9497 §4.2: `expand_message_xof` over SHAKE256 to 64 bytes, read as
    /// a little-endian integer and reduced modulo the order. Message and DST are given as
    /// pieces that are concatenated.
    ///
    /// # Errors
    /// [`Error::HashToCurve`] when the DST is empty.
    pub fn hash_to_scalar(msg: &[&[u8]], dst: &[&[u8]]) -> Result<Self> {
        let mut uniform = [0u8; WIDE_SCALAR_LEN];
        expand_message_xof(msg, dst, &mut uniform)?;
        let s = Self::from_wide_bytes(&uniform);
        uniform.zeroize();
        Ok(s)
    }

    /// RandomScalar (RFC 9497 §4.2 with erratum 8392): 64 bytes from `fill_bytes` reduced
    /// modulo the order, drawn again while the result is zero (probability about 2^-446).
    /// The bytes are wiped after use.
    pub fn random_from(mut fill_bytes: impl FnMut(&mut [u8])) -> Self {
        let mut wide = [0u8; WIDE_SCALAR_LEN];
        loop {
            fill_bytes(&mut wide);
            let s = Self::from_wide_bytes(&wide);
            if !crate::group::declassify(s.is_zero()) {
                wide.zeroize();
                return s;
            }
        }
    }

    /// Whether the scalar is zero. Constant time.
    pub fn is_zero(&self) -> Choice {
        self.0.is_zero()
    }

    /// The multiplicative inverse, constant time.
    ///
    /// # Errors
    /// [`Error::ZeroScalar`] for zero.
    pub fn invert(&self) -> Result<Self> {
        let inv = Field::invert(&self.0);
        if crate::group::declassify(inv.is_none()) {
            return Err(Error::ZeroScalar);
        }
        Ok(Self(inv.unwrap_or(DecafScalar::ZERO)))
    }

    /// Inverts every scalar in place with one inversion (Montgomery's trick), constant time.
    /// `scratch` must be as long as `scalars`.
    ///
    /// # Errors
    /// [`Error::ZeroScalar`] if any scalar is zero (nothing is changed then), [`Error::Batch`]
    /// on mismatched lengths.
    pub fn batch_invert(scalars: &mut [Self], scratch: &mut [Self]) -> Result<()> {
        if scalars.len() != scratch.len() {
            return Err(Error::Batch);
        }
        let mut any_zero = Choice::from(0);
        for s in scalars.iter() {
            any_zero |= s.is_zero();
        }
        if crate::group::declassify(any_zero) {
            return Err(Error::ZeroScalar);
        }
        // scratch[i] = s_0 * … * s_{i-1}; then walk back with the inverse of the full product.
        let mut acc = Self::ONE;
        for (s, p) in scalars.iter().zip(scratch.iter_mut()) {
            *p = acc;
            acc = acc * *s;
        }
        let mut inv = acc.invert()?;
        for (s, p) in scalars.iter_mut().zip(scratch.iter()).rev() {
            let next = inv * *s;
            *s = inv * *p;
            inv = next;
        }
        inv.zeroize();
        acc.zeroize();
        Ok(())
    }
}

impl From<u64> for Scalar {
    fn from(v: u64) -> Self {
        Self(DecafScalar::from(v))
    }
}

impl fmt::Debug for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("decaf448::Scalar(..)")
    }
}

newtype_ops!(Scalar, DecafScalar);

impl Mul for Scalar {
    type Output = Self;
    fn mul(self, rhs: Self) -> Self {
        Self(self.0 * rhs.0)
    }
}

impl Zeroize for Scalar {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

// ---------------------------------------------------------------------------------------------
// the suite hash

/// SHAKE256 with a 64-byte output: the `Hash` of decaf448-SHAKE256 (RFC 9497 §4.2, `Nh = 64`)
/// as a `digest` 0.11 fixed-output hash (so `Digest` applies).
#[derive(Clone, Default)]
pub struct Shake256x64(shake::Shake256);

impl fmt::Debug for Shake256x64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Shake256x64 { .. }")
    }
}

impl HashMarker for Shake256x64 {}

impl OutputSizeUser for Shake256x64 {
    type OutputSize = U64;
}

impl Update for Shake256x64 {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
}

impl FixedOutput for Shake256x64 {
    fn finalize_into(self, out: &mut digest::Output<Self>) {
        self.0.finalize_xof().read(out);
    }
}

impl Reset for Shake256x64 {
    fn reset(&mut self) {
        *self = Self::default();
    }
}

impl FixedOutputReset for Shake256x64 {
    fn finalize_into_reset(&mut self, out: &mut digest::Output<Self>) {
        core::mem::take(self).finalize_into(out);
    }
}

// ---------------------------------------------------------------------------------------------
// The PrimeGroup implementation

/// The decaf448 group (RFC 9496 §5), a marker type for [`PrimeGroup`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decaf448;

impl PrimeGroup for Decaf448 {
    type Element = Element;
    type Normal = Element;
    type Scalar = Scalar;
    type ElementBytes = Array<u8, U56>;
    type ScalarBytes = Array<u8, U56>;
    type ScalarPairBytes = Array<u8, U112>;
    const NE: usize = ELEMENT_LEN;
    const NS: usize = SCALAR_LEN;

    fn encode_element(p: &Element) -> Self::ElementBytes {
        p.to_bytes().into()
    }
    fn decode_element(bytes: &[u8]) -> Result<Element> {
        Element::from_bytes(bytes)
    }
    fn encode_scalar(s: &Scalar) -> Self::ScalarBytes {
        s.to_bytes().into()
    }
    fn decode_scalar(bytes: &[u8]) -> Result<Scalar> {
        Scalar::from_bytes(bytes)
    }
    fn hash_to_group(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Element> {
        match e {
            MessageExpansion::Xof(Xof::Shake256) => Element::hash_to_group(msg, dst),
            // RFC 9380 and RFC 9497 define decaf448 hashing with SHAKE256 only.
            MessageExpansion::Xmd(_) => Err(Error::UnsupportedValue),
        }
    }
    fn hash_to_scalar(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar> {
        match e {
            MessageExpansion::Xof(Xof::Shake256) => Scalar::hash_to_scalar(msg, dst),
            MessageExpansion::Xmd(_) => Err(Error::UnsupportedValue),
        }
    }
    fn random_scalar(rng: &mut (impl CryptoRng + ?Sized)) -> Scalar {
        Scalar::random_from(|b| rng.fill_bytes(b))
    }
    fn scalar_is_zero(s: &Scalar) -> Choice {
        s.is_zero()
    }
    fn invert_scalar(s: &Scalar) -> Result<Scalar> {
        s.invert()
    }
    fn batch_invert(scalars: &mut [Scalar], scratch: &mut [Scalar]) -> Result<()> {
        Scalar::batch_invert(scalars, scratch)
    }
    fn identity() -> Element {
        Element::IDENTITY
    }
    fn normal_identity() -> Element {
        Element::IDENTITY
    }
    fn is_identity(p: &Element) -> bool {
        bool::from(p.is_identity())
    }
    fn add_normal(a: &Element, b: &Element) -> Element {
        *a + *b
    }
    fn normalize(p: &Element) -> Element {
        *p
    }
    fn normalize_array<const N: usize>(points: &[Element; N]) -> [Element; N] {
        *points
    }
    fn normalize_slice(points: &[Element], out: &mut [Element]) -> Result<()> {
        if points.len() != out.len() {
            return Err(Error::Batch);
        }
        out.copy_from_slice(points);
        Ok(())
    }
    fn mul_generator(k: &Scalar) -> Element {
        Element::mul_generator(k)
    }
    fn mul(p: &Element, k: &Scalar) -> Element {
        p.mul(k)
    }
    fn mul_normal(p: &Element, k: &Scalar) -> Element {
        p.mul(k)
    }
    fn vartime_mul(p: &Element, k: &Scalar) -> Element {
        p.vartime_mul(k)
    }
    fn vartime_msm(points: &[Element], scalars: &[Scalar]) -> Result<Element> {
        Element::vartime_msm(points, scalars)
    }
    fn vartime_lincomb2(points: &[Element; 2], scalars: &[Scalar; 2]) -> Element {
        Element::vartime_lincomb(points, scalars)
    }
    fn vartime_mul_generator_add(a: &Scalar, b: &Scalar, p: &Element) -> Element {
        Element::vartime_mul_generator_add(a, b, p)
    }
}
