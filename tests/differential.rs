//! Differential tests: the crate's own arithmetic (`src/group/`) against the RustCrypto curve
//! crates (`p256`, `p384`, `elliptic-curve`'s `hash2curve`), on both curves, with inputs biased
//! to the edges (values next to 0, `p` and `n`, single bits, all-ones limbs, the identity, `P`
//! and `-P`, equal points in different Jacobian representations) and seeded random ones.
//!
//! Every comparison is counted; each test prints its own count and asserts zero mismatches, and
//! the last test of a full run prints `differential: <N> comparisons, <M> mismatches` (run with
//! `--nocapture`; a filtered run prints only the per-test lines). `DIFFERENTIAL_ITERS=<k>`
//! multiplies the random iterations (and adds longer MSMs), `DIFFERENTIAL_SEED=<u64>` changes
//! the seed (printed by every test).
//!
//! Pluggable: a field backend implements [`FieldImpl`] and gets one line in the test list at the
//! bottom; a scalar-multiplication routine is one more entry in [`single_muls`] or
//! [`multi_muls`].

#[path = "support/tally.rs"]
mod tally;

use core::fmt::{self, Debug};
use core::marker::PhantomData;
use core::ops::{Add, Mul, Neg, Sub};

use elliptic_curve::ff::{Field, PrimeField};
use p256::NistP256;
use p384::NistP384;
use privacy_tokens::group::{
    self, Affine, Curve, FieldOps, FixedBaseTable, GeneratorTable, LadderBlind, Point, Scalar, Xmd,
};
use rand::{rngs::StdRng, Rng, RngExt};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use tally::Tally;

// ---------------------------------------------------------------------------------------------
// The references

/// A curve of the crate, with the curve crate's own types as the reference.
trait RefCurve: Curve {
    /// The curve crate's base-field element.
    type RefFe: PrimeField<Repr = <Self::Fe as FieldOps>::Repr> + Debug;
    /// The curve crate's projective point.
    type RefPoint: Copy
        + Debug
        + PartialEq
        + Add<Output = Self::RefPoint>
        + Sub<Output = Self::RefPoint>
        + Neg<Output = Self::RefPoint>
        + Mul<Scalar<Self>, Output = Self::RefPoint>;
    /// The reference point as the `primeorder` type (the same type, named generically).
    fn ref_po(p: &Self::RefPoint) -> primeorder::ProjectivePoint<Self>;
    /// The `primeorder` point as the reference point.
    fn po_ref(p: &primeorder::ProjectivePoint<Self>) -> Self::RefPoint;
    /// The generator.
    fn ref_generator() -> Self::RefPoint;
    /// The identity.
    fn ref_identity() -> Self::RefPoint;
    /// SEC1 encoding, compressed or not; the identity as `COMPRESSED_LEN` or `UNCOMPRESSED_LEN`
    /// zeros (the crate's rule).
    fn ref_encode(p: &Self::RefPoint, compress: bool) -> Vec<u8>;
    /// Uncompressed SEC1 encoding (the identity as zeros).
    fn ref_sec1(p: &Self::RefPoint) -> Vec<u8> {
        Self::ref_encode(p, false)
    }
    /// SEC1 decoding (either form) by the curve crate.
    fn ref_from_sec1(bytes: &[u8]) -> Option<Self::RefPoint>;
    /// `GroupDigest::hash_from_bytes` with `ExpandMsgXmd<xmd>`.
    fn ref_hash_to_curve(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Option<Self::RefPoint>;
    /// `GroupDigest::hash_to_scalar` with `ExpandMsgXmd<xmd>`.
    fn ref_hash_to_scalar(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Option<Scalar<Self>>;
}

/// The curve crate's `hash_to_field::<N, ExpandMsgXmd<H>, K, T, Length>(msg, dst)` with the
/// hash `H` that `xmd` names (what its `hash_from_bytes` / `hash_to_scalar` run; called directly
/// because their security-level bound refuses SHA-256 on P-384, which `expand_message_xmd`
/// itself does not depend on).
macro_rules! with_xmd {
    ($xmd:expr, $n:literal, $t:ty, $msg:expr, $dst:expr) => {{
        use elliptic_curve::consts::{U16, U24, U32};
        use hash2curve::{hash_to_field, ExpandMsgXmd, MapToCurve};
        match $xmd {
            Xmd::Sha256 => hash_to_field::<
                $n,
                ExpandMsgXmd<sha2::Sha256>,
                U16,
                $t,
                <Self as MapToCurve>::Length,
            >($msg, $dst)
            .ok(),
            Xmd::Sha384 => hash_to_field::<
                $n,
                ExpandMsgXmd<sha2::Sha384>,
                U24,
                $t,
                <Self as MapToCurve>::Length,
            >($msg, $dst)
            .ok(),
            Xmd::Sha512 => hash_to_field::<
                $n,
                ExpandMsgXmd<sha2::Sha512>,
                U32,
                $t,
                <Self as MapToCurve>::Length,
            >($msg, $dst)
            .ok(),
        }
    }};
}

macro_rules! ref_curve {
    ($curve:ty, $krate:ident) => {
        impl RefCurve for $curve {
            type RefFe = <$curve as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;
            type RefPoint = $krate::ProjectivePoint;

            fn ref_po(p: &Self::RefPoint) -> primeorder::ProjectivePoint<Self> {
                *p
            }

            fn po_ref(p: &primeorder::ProjectivePoint<Self>) -> Self::RefPoint {
                *p
            }

            fn ref_generator() -> Self::RefPoint {
                $krate::ProjectivePoint::GENERATOR
            }

            fn ref_identity() -> Self::RefPoint {
                $krate::ProjectivePoint::IDENTITY
            }

            fn ref_encode(p: &Self::RefPoint, compress: bool) -> Vec<u8> {
                use elliptic_curve::sec1::ToSec1Point;
                let e = p.to_affine().to_sec1_point(compress);
                match (e.is_identity(), compress) {
                    (true, false) => vec![0; Self::UNCOMPRESSED_LEN],
                    (true, true) => vec![0; Self::COMPRESSED_LEN],
                    (false, _) => e.as_bytes().to_vec(),
                }
            }

            fn ref_from_sec1(bytes: &[u8]) -> Option<Self::RefPoint> {
                use elliptic_curve::sec1::FromSec1Point;
                let e = $krate::Sec1Point::from_bytes(bytes).ok()?;
                $krate::AffinePoint::from_sec1_point(&e)
                    .into_option()
                    .map(Into::into)
            }

            fn ref_hash_to_curve(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Option<Self::RefPoint> {
                use hash2curve::MapToCurve;
                let [u0, u1] = with_xmd!(xmd, 2, Self::RefFe, msg, dst)?;
                Some(Self::map_to_curve(u0) + Self::map_to_curve(u1))
            }

            fn ref_hash_to_scalar(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Option<Scalar<Self>> {
                with_xmd!(xmd, 1, Scalar<Self>, msg, dst).map(|[s]| s)
            }
        }
    };
}

ref_curve!(NistP256, p256);
ref_curve!(NistP384, p384);

/// Bytes that compare as bytes and print as hex.
#[derive(Clone)]
struct Hex<B: AsRef<[u8]>>(B);

impl<B: AsRef<[u8]>> PartialEq for Hex<B> {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_ref() == other.0.as_ref()
    }
}

impl<B: AsRef<[u8]>> Debug for Hex<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0.as_ref()))
    }
}

fn hex_of(b: impl AsRef<[u8]>) -> String {
    hex::encode(b.as_ref())
}

// ---------------------------------------------------------------------------------------------
// Big-endian byte arithmetic for the edge values

/// `a + k` (big-endian, wrapping at the length of `a`).
fn be_add(a: &[u8], k: u64) -> Vec<u8> {
    let mut out = a.to_vec();
    let mut carry = u128::from(k);
    for b in out.iter_mut().rev() {
        let s = u128::from(*b) + (carry & 0xff);
        *b = s as u8;
        carry = (carry >> 8) + (s >> 8);
    }
    out
}

/// `a - b` (big-endian, same lengths, wrapping).
fn be_sub(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = a.to_vec();
    let mut borrow = 0i16;
    for (o, y) in out.iter_mut().zip(b.iter()).rev() {
        let d = i16::from(*o) - i16::from(*y) - borrow;
        borrow = i16::from(d < 0);
        *o = d.rem_euclid(256) as u8;
    }
    out
}

/// `a + b` (big-endian, same lengths) and whether it carried out.
fn be_add_be(a: &[u8], b: &[u8]) -> (Vec<u8>, bool) {
    let mut out = a.to_vec();
    let mut carry = 0u16;
    for (o, y) in out.iter_mut().zip(b.iter()).rev() {
        let v = u16::from(*o) + u16::from(*y) + carry;
        *o = v as u8;
        carry = v >> 8;
    }
    (out, carry != 0)
}

/// `a >> 1` (big-endian).
fn be_shr1(a: &[u8]) -> Vec<u8> {
    let mut out = a.to_vec();
    let mut carry = 0u8;
    for b in out.iter_mut() {
        let next = *b & 1;
        *b = (*b >> 1) | (carry << 7);
        carry = next;
    }
    out
}

/// `2^i` on `len` big-endian bytes.
fn be_bit(len: usize, i: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    out[len - 1 - i / 8] = 1 << (i % 8);
    out
}

/// Every subset of the 64-bit limbs set to all ones (the others all zeros).
fn limb_patterns(len: usize) -> Vec<Vec<u8>> {
    let limbs = len / 8;
    (0..1usize << limbs)
        .map(|mask| {
            let mut v = vec![0u8; len];
            for l in 0..limbs {
                if mask >> l & 1 == 1 {
                    v[len - 8 * (l + 1)..len - 8 * l].fill(0xff);
                }
            }
            v
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Field backends

/// A base-field implementation under test, with the curve crate's field as its reference.
/// A new backend (an assembly or SIMD field) implements this and adds one line to the test
/// list at the bottom.
trait FieldImpl {
    /// The element under test.
    type Fe: Copy + Debug;
    /// The reference element (its `Repr` is the canonical big-endian encoding).
    type Ref: PrimeField + Debug;
    /// Strict decoding (`None` unless below `p`).
    fn from_repr(r: &Repr<Self>) -> Option<Self::Fe>;
    /// Canonical encoding.
    fn to_repr(a: &Self::Fe) -> Repr<Self>;
    fn zero() -> Self::Fe;
    fn one() -> Self::Fe;
    fn add(a: &Self::Fe, b: &Self::Fe) -> Self::Fe;
    fn sub(a: &Self::Fe, b: &Self::Fe) -> Self::Fe;
    fn mul(a: &Self::Fe, b: &Self::Fe) -> Self::Fe;
    fn square(a: &Self::Fe) -> Self::Fe;
    fn double(a: &Self::Fe) -> Self::Fe;
    /// `4 a` and `8 a` (the backends' shift-and-fold routines, not repeated doublings).
    fn times4(a: &Self::Fe) -> Self::Fe;
    fn times8(a: &Self::Fe) -> Self::Fe;
    fn neg(a: &Self::Fe) -> Self::Fe;
    /// The inverse; zero maps to zero.
    fn invert(a: &Self::Fe) -> Self::Fe;
    /// A square root if there is one.
    fn sqrt(a: &Self::Fe) -> Option<Self::Fe>;
    fn is_zero(a: &Self::Fe) -> bool;
    fn is_odd(a: &Self::Fe) -> bool;
    /// Constant-time equality.
    fn ct_eq(a: &Self::Fe, b: &Self::Fe) -> bool;
    /// Constant-time selection: `b` when `choice`.
    fn select(a: &Self::Fe, b: &Self::Fe, choice: bool) -> Self::Fe;
    /// Constant-time conditional assignment: `a = b` when `choice`.
    fn assign(a: &mut Self::Fe, b: &Self::Fe, choice: bool);
}

type Repr<F> = <<F as FieldImpl>::Ref as PrimeField>::Repr;

/// The crate's own field of a curve (`P256Fe`, `P384Fe`, through `FieldOps`), with the
/// crate's inversion and square-root chains (`Curve::invert_field`, `Curve::pow_c1`).
struct Ours<C>(PhantomData<C>);

impl<C: RefCurve> FieldImpl for Ours<C> {
    type Fe = C::Fe;
    type Ref = C::RefFe;
    fn from_repr(r: &Repr<Self>) -> Option<C::Fe> {
        <C::Fe as FieldOps>::from_repr(*r).into()
    }
    fn to_repr(a: &C::Fe) -> Repr<Self> {
        FieldOps::to_repr(a)
    }
    fn zero() -> C::Fe {
        <C::Fe as FieldOps>::ZERO
    }
    fn one() -> C::Fe {
        <C::Fe as FieldOps>::ONE
    }
    fn add(a: &C::Fe, b: &C::Fe) -> C::Fe {
        *a + *b
    }
    fn sub(a: &C::Fe, b: &C::Fe) -> C::Fe {
        *a - *b
    }
    fn mul(a: &C::Fe, b: &C::Fe) -> C::Fe {
        *a * *b
    }
    fn square(a: &C::Fe) -> C::Fe {
        FieldOps::square(a)
    }
    fn double(a: &C::Fe) -> C::Fe {
        FieldOps::double(a)
    }
    fn times4(a: &C::Fe) -> C::Fe {
        FieldOps::times4(a)
    }
    fn times8(a: &C::Fe) -> C::Fe {
        FieldOps::times8(a)
    }
    fn neg(a: &C::Fe) -> C::Fe {
        -*a
    }
    fn invert(a: &C::Fe) -> C::Fe {
        C::invert_field(a)
    }
    fn sqrt(a: &C::Fe) -> Option<C::Fe> {
        // p = 3 mod 4: a^((p+1)/4) = a^((p-3)/4) * a, a root whenever one exists.
        let r = C::pow_c1(a) * *a;
        bool::from(FieldOps::square(&r).ct_eq(a)).then_some(r)
    }
    fn is_zero(a: &C::Fe) -> bool {
        FieldOps::is_zero(a).into()
    }
    fn is_odd(a: &C::Fe) -> bool {
        FieldOps::is_odd(a).into()
    }
    fn ct_eq(a: &C::Fe, b: &C::Fe) -> bool {
        ConstantTimeEq::ct_eq(a, b).into()
    }
    fn select(a: &C::Fe, b: &C::Fe, choice: bool) -> C::Fe {
        C::Fe::conditional_select(a, b, Choice::from(u8::from(choice)))
    }
    fn assign(a: &mut C::Fe, b: &C::Fe, choice: bool) {
        a.conditional_assign(b, Choice::from(u8::from(choice)));
    }
}

/// Encodings next to the edges, canonical or not: 0..3, p-1..p-4, (p-1)/2 and neighbours, p..p+2,
/// 2^(8L)-1..2^(8L)-3, 2^i, 2^i - 1 and p - 2^i for every bit, every all-ones limb pattern, and
/// the Montgomery constants R, R^2, R^-1 (R = 2^(8L)).
fn field_edges<R: PrimeField>() -> Vec<Vec<u8>> {
    let len = R::Repr::default().as_ref().len();
    let pm1 = (-R::ONE).to_repr().as_ref().to_vec();
    let p = be_add(&pm1, 1);
    let mut out = Vec::new();
    for k in 0..4u64 {
        out.push(R::from(k).to_repr().as_ref().to_vec());
        out.push((-R::from(k + 1)).to_repr().as_ref().to_vec());
        out.push(be_add(&p, k)); // p + k: not canonical
        out.push(be_sub(&vec![0xff; len], &be_add(&vec![0; len], k))); // 2^(8L) - 1 - k
    }
    let half = be_shr1(&pm1);
    out.push(be_sub(&half, &be_add(&vec![0; len], 1)));
    out.push(half.clone());
    out.push(be_add(&half, 1));
    out.push(be_add(&half, 2));
    for i in 0..8 * len {
        let bit = be_bit(len, i);
        out.push(bit.clone());
        out.push(be_sub(&bit, &be_add(&vec![0; len], 1)));
        out.push(be_sub(&p, &bit));
    }
    out.extend(limb_patterns(len));
    let r = R::from(2).pow_vartime([8 * len as u64]);
    for v in [r, r.square(), r.invert().unwrap_or(R::ZERO)] {
        out.push(v.to_repr().as_ref().to_vec());
    }
    out
}

/// Checks one field result against the reference: the canonical encoding, and (through
/// `ct_eq` and `is_zero`) that the internal representation is the canonical one.
fn check_fe<F: FieldImpl>(
    t: &mut Tally,
    what: &str,
    ours: &F::Fe,
    theirs: &F::Ref,
    input: &dyn Fn() -> String,
) {
    let r = theirs.to_repr();
    t.check(what, &Hex(F::to_repr(ours)), &Hex(r), input);
    if let Some(back) = F::from_repr(&r) {
        let what = format!("{what}: ct_eq with the decoded reference");
        t.check(&what, &F::ct_eq(ours, &back), &true, input);
    }
    let what = format!("{what}: is_zero");
    t.check(
        &what,
        &F::is_zero(ours),
        &bool::from(theirs.is_zero()),
        input,
    );
}

/// `a = <hex>, b = <hex>`.
fn pair_input<R: PrimeField>(a: &R, b: &R) -> String {
    format!("a = {}, b = {}", hex_of(a.to_repr()), hex_of(b.to_repr()))
}

/// Binary operations on one pair.
fn field_pair<F: FieldImpl>(t: &mut Tally, a: &(F::Fe, F::Ref), b: &(F::Fe, F::Ref)) {
    let input = || pair_input(&a.1, &b.1);
    check_fe::<F>(t, "a + b", &F::add(&a.0, &b.0), &(a.1 + b.1), &input);
    check_fe::<F>(t, "a - b", &F::sub(&a.0, &b.0), &(a.1 - b.1), &input);
    check_fe::<F>(t, "a * b", &F::mul(&a.0, &b.0), &(a.1 * b.1), &input);
    t.check("ct_eq(a, b)", &F::ct_eq(&a.0, &b.0), &(a.1 == b.1), &input);
}

/// Unary operations, selection and the codec on one element (`b` is a second operand).
fn field_unary<F: FieldImpl>(t: &mut Tally, a: &(F::Fe, F::Ref), b: &(F::Fe, F::Ref)) {
    let input = || pair_input(&a.1, &b.1);
    check_fe::<F>(t, "a^2", &F::square(&a.0), &a.1.square(), &input);
    check_fe::<F>(t, "2a", &F::double(&a.0), &a.1.double(), &input);
    check_fe::<F>(t, "4a", &F::times4(&a.0), &a.1.double().double(), &input);
    let eight = a.1.double().double().double();
    check_fe::<F>(t, "8a", &F::times8(&a.0), &eight, &input);
    check_fe::<F>(t, "-a", &F::neg(&a.0), &-a.1, &input);
    let inv = Option::<F::Ref>::from(a.1.invert()).unwrap_or(F::Ref::ZERO);
    check_fe::<F>(t, "1/a (0 -> 0)", &F::invert(&a.0), &inv, &input);
    let ours = F::sqrt(&a.0).map(|r| Hex(F::to_repr(&r)));
    let theirs = Option::<F::Ref>::from(a.1.sqrt()).map(|r| Hex(r.to_repr()));
    t.check("sqrt(a)", &ours, &theirs, &input);
    t.check(
        "is_odd(a)",
        &F::is_odd(&a.0),
        &bool::from(a.1.is_odd()),
        &input,
    );
    t.check(
        "to_repr(a)",
        &Hex(F::to_repr(&a.0)),
        &Hex(a.1.to_repr()),
        &input,
    );
    for c in [false, true] {
        let theirs = F::Ref::conditional_select(&a.1, &b.1, Choice::from(u8::from(c)));
        check_fe::<F>(
            t,
            "select(a, b, c)",
            &F::select(&a.0, &b.0, c),
            &theirs,
            &input,
        );
        let mut x = a.0;
        F::assign(&mut x, &b.0, c);
        check_fe::<F>(t, "conditional_assign(a, b, c)", &x, &theirs, &input);
    }
}

/// A uniformly random reference element (the curve crates' `random` takes rand_core 0.6).
fn random_ref<F: PrimeField>(rng: &mut StdRng) -> F {
    loop {
        let mut r = F::Repr::default();
        rng.fill_bytes(r.as_mut());
        if let Some(x) = Option::<F>::from(F::from_repr(r)) {
            return x;
        }
    }
}

/// The field suite: decoding of every edge encoding, unary operations on every canonical edge
/// and random value, binary operations on all pairs of canonical edges, random pairs, and
/// products and sums that land next to 0 and p (the final conditional subtraction).
fn field_suite<F: FieldImpl>(t: &mut Tally, rng: &mut StdRng) {
    let iters = tally::iters();
    // Constants.
    check_fe::<F>(t, "ZERO", &F::zero(), &F::Ref::ZERO, &|| "ZERO".into());
    check_fe::<F>(t, "ONE", &F::one(), &F::Ref::ONE, &|| "ONE".into());
    // Decoding.
    let mut edges: Vec<(F::Fe, F::Ref)> = Vec::new();
    for bytes in field_edges::<F::Ref>() {
        let mut r = Repr::<F>::default();
        r.as_mut().copy_from_slice(&bytes);
        let input = || hex_of(&bytes);
        let ours = F::from_repr(&r);
        let theirs: Option<F::Ref> = F::Ref::from_repr(r).into();
        t.check(
            "from_repr accepts",
            &ours.is_some(),
            &theirs.is_some(),
            &input,
        );
        if let (Some(o), Some(th)) = (ours, theirs) {
            t.check(
                "to_repr(from_repr(x)) = x",
                &Hex(F::to_repr(&o)),
                &Hex(r),
                &input,
            );
            check_fe::<F>(t, "from_repr(x)", &o, &th, &input);
            edges.push((o, th));
        }
    }
    let random = |rng: &mut StdRng| {
        let r = random_ref::<F::Ref>(rng);
        (F::from_repr(&r.to_repr()).expect("canonical"), r)
    };
    let randoms: Vec<(F::Fe, F::Ref)> = (0..2000 * iters).map(|_| random(rng)).collect();
    // The edges as raw Montgomery limbs: the element x R^-1 is stored as the limbs of x, so
    // these reach the limb patterns (all-ones words at the top, single words, 2^i - 1) that
    // decoding scrambles, the carry paths of times4 and times8 among them.
    let len = Repr::<F>::default().as_ref().len();
    let r_inv = F::Ref::from(2)
        .pow_vartime([8 * len as u64])
        .invert()
        .unwrap();
    let raw: Vec<(F::Fe, F::Ref)> = edges
        .iter()
        .map(|(_, x)| {
            let v = *x * r_inv;
            (F::from_repr(&v.to_repr()).expect("canonical"), v)
        })
        .collect();
    // Unary operations.
    let all: Vec<&(F::Fe, F::Ref)> = edges
        .iter()
        .chain(raw.iter())
        .chain(randoms.iter())
        .collect();
    for (i, a) in all.iter().enumerate() {
        field_unary::<F>(t, a, all[(i + 1) % all.len()]);
    }
    // All pairs of edges, then random pairs and edge x random.
    for a in &edges {
        for b in &edges {
            field_pair::<F>(t, a, b);
        }
    }
    // Raw-limb edges against the raw values below 4 and 2^(32 k) (the product's reduction
    // steps: b = 2^(64 i) drives step i + 1).
    let r = r_inv.invert().unwrap();
    let raw_small: Vec<&(F::Fe, F::Ref)> = raw
        .iter()
        .filter(|(_, v)| {
            let x = (*v * r).to_repr();
            let bytes = x.as_ref();
            let nonzero: Vec<usize> = (0..len).filter(|&i| bytes[i] != 0).collect();
            match nonzero[..] {
                [] => true,
                [i] => i == len - 1 && bytes[i] < 4 || bytes[i] == 1 && (len - 1 - i) % 4 == 0,
                _ => false,
            }
        })
        .collect();
    assert!(raw_small.len() > 2 * len / 8);
    for a in &raw {
        for b in &raw_small {
            field_pair::<F>(t, a, b);
            field_pair::<F>(t, b, a);
        }
    }
    for _ in 0..50_000 * iters {
        let a = random(rng);
        let b = if rng.random::<bool>() {
            random(rng)
        } else {
            edges[rng.random_range(0..edges.len())]
        };
        field_pair::<F>(t, &a, &b);
        field_pair::<F>(t, &b, &a);
    }
    // Results next to 0 and p: a * (t/a), a + (t - a), (a + t) - a, sqrt(t)^2.
    let mut targets: Vec<F::Ref> = (0..17u64).map(F::Ref::from).collect();
    targets.extend((1..17u64).map(|k| -F::Ref::from(k)));
    let two_inv = F::Ref::from(2).invert().unwrap();
    targets.extend([two_inv, -two_inv, two_inv + F::Ref::ONE]);
    for _ in 0..200 * iters {
        let a = random(rng);
        let a_inv = a.1.invert().unwrap_or(F::Ref::ONE);
        for target in &targets {
            let ours = |x: &F::Ref| F::from_repr(&x.to_repr()).expect("canonical");
            let input = || {
                format!(
                    "a = {}, t = {}",
                    hex_of(a.1.to_repr()),
                    hex_of(target.to_repr())
                )
            };
            let b = *target * a_inv;
            check_fe::<F>(t, "a * (t/a)", &F::mul(&a.0, &ours(&b)), &(a.1 * b), &input);
            let c = *target - a.1;
            check_fe::<F>(
                t,
                "a + (t - a)",
                &F::add(&a.0, &ours(&c)),
                &(a.1 + c),
                &input,
            );
            let d = *target + a.1;
            check_fe::<F>(
                t,
                "(t + a) - a",
                &F::sub(&ours(&d), &a.0),
                &(d - a.1),
                &input,
            );
        }
    }
    for target in &targets {
        if let Some(r) = Option::<F::Ref>::from(target.sqrt()) {
            for r in [r, -r] {
                let ours = F::from_repr(&r.to_repr()).expect("canonical");
                let input = || format!("r = {}", hex_of(r.to_repr()));
                check_fe::<F>(t, "r^2 = target", &F::square(&ours), &r.square(), &input);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Points

/// A test point `k * G`: the reference, and the crate's affine, `Z = 1` and `Z != 1` forms.
#[derive(Clone)]
struct Pt<C: RefCurve> {
    label: String,
    r: C::RefPoint,
    aff: Affine<C>,
    z1: Point<C>,
    zr: Point<C>,
}

/// The crate's affine point from the reference (through the uncompressed SEC1 encoding).
fn ours_from_ref<C: RefCurve>(p: &C::RefPoint) -> Affine<C> {
    if *p == C::ref_identity() {
        return group::affine_identity::<C>();
    }
    C::decode_uncompressed(&C::ref_sec1(p)).expect("the reference's points decode")
}

/// Checks a point of the crate against the reference: the uncompressed encoding of its affine
/// form, and projective equality (`ct_eq`, no inversion) with the reference converted back.
fn check_point<C: RefCurve>(
    t: &mut Tally,
    what: &str,
    ours: &Point<C>,
    theirs: &C::RefPoint,
    input: &dyn Fn() -> String,
) {
    check_affine::<C>(t, what, &group::to_affine(ours), theirs, input);
    let back = Point::<C>::from(ours_from_ref::<C>(theirs));
    let what = format!("{what}: ct_eq");
    t.check(&what, &bool::from(ours.ct_eq(&back)), &true, input);
}

/// Checks an affine point of the crate against the reference.
fn check_affine<C: RefCurve>(
    t: &mut Tally,
    what: &str,
    ours: &Affine<C>,
    theirs: &C::RefPoint,
    input: &dyn Fn() -> String,
) {
    let enc = C::encode_uncompressed(ours);
    t.check(
        what,
        &Hex(enc.as_ref().to_vec()),
        &Hex(C::ref_sec1(theirs)),
        input,
    );
}

fn pt<C: RefCurve>(t: &mut Tally, label: impl Into<String>, k: &Scalar<C>) -> Pt<C> {
    let label = label.into();
    let r = C::ref_generator() * *k;
    let aff = ours_from_ref::<C>(&r);
    // A Jacobian form with Z != 1 (for most k), itself checked.
    let zr = C::generator_table().vartime_mul(k);
    check_point::<C>(t, "input: GeneratorTable::vartime_mul", &zr, &r, &|| {
        label.clone()
    });
    Pt {
        label,
        r,
        aff,
        z1: Point::<C>::from(aff),
        zr,
    }
}

/// A scalar from big-endian bytes of any length, reduced modulo `n`.
fn scalar_from_be<C: Curve>(bytes: &[u8]) -> Scalar<C> {
    let base = Scalar::<C>::from(256u64);
    bytes.iter().fold(Scalar::<C>::ZERO, |acc, &b| {
        acc * base + Scalar::<C>::from(u64::from(b))
    })
}

fn pow2<C: Curve>(i: usize) -> Scalar<C> {
    Scalar::<C>::from(2u64).pow_vartime([i as u64])
}

/// The last rows' doubling-case scalars of the fixed-base tables (`docs/arithmetic.md`; the
/// sets are pinned by `fixed_base`'s `odd_rows_exceptions_are_exactly_the_named`): for the odd
/// recoding at width `w` with `m = ceil(bits / w)` rows, `±2 top 2^(w (m - 1))` with `top` 1
/// (P-256, w = 5), 15 (P-256, w = 7; P-384, w = 5) and 63 (P-384, w = 7): four per curve, the
/// odd member recoded as itself, the even one as `n - k` with its digits negated.
fn fixed_base_doubling_scalars<C: Curve>() -> Vec<(String, Scalar<C>)> {
    let bits = C::SCALAR_LEN * 8;
    let mut out = Vec::new();
    for (w, top) in [
        (5usize, if bits == 256 { 1u64 } else { 15 }),
        (7, if bits == 256 { 15 } else { 63 }),
    ] {
        let m = bits.div_ceil(w);
        let k = Scalar::<C>::from(2 * top) * pow2::<C>(w * (m - 1));
        out.push((
            format!("fixed-base doubling w={w} odd 2*{top}*2^{}", w * (m - 1)),
            k,
        ));
        out.push((
            format!("fixed-base doubling w={w} even -2*{top}*2^{}", w * (m - 1)),
            -k,
        ));
    }
    out
}

/// Scalars biased to the edges: 0..=64 and n-1..n-64 (every scalar whose last ladder addition
/// can be exceptional in `mul_ct`'s odd recoding, `k' = n + 2 d_0` with `|2 d_0| <= 62`: the
/// doubling case is `n - 38` and 38 on P-384, none on P-256; and the signed batch ladder's
/// `n + 2 d_0`, `|d_0| <= 16`), the fixed-base tables' last-row doubling cases (four per curve,
/// [`fixed_base_doubling_scalars`]), (n±1)/2, (n-3)/2, powers of two, 2^i - 1, n - 2^i at limb
/// and word boundaries, the radix-32 digit extremes (all 16, all 15, all -16), all-ones and
/// alternating bit patterns, random scalars of low and high Hamming weight, and uniform ones.
fn scalar_edges<C: Curve>(rng: &mut StdRng, uniform: usize) -> Vec<(String, Scalar<C>)> {
    let bits = C::SCALAR_LEN * 8;
    let mut out: Vec<(String, Scalar<C>)> = fixed_base_doubling_scalars::<C>();
    for j in 0..=64u64 {
        out.push((format!("{j}"), Scalar::<C>::from(j)));
        if j > 0 {
            out.push((format!("n-{j}"), -Scalar::<C>::from(j)));
        }
    }
    let half = Scalar::<C>::from(2u64).invert().unwrap();
    out.push(("(n+1)/2".into(), half));
    out.push(("(n-1)/2".into(), -half));
    out.push(("(n-3)/2".into(), -half - Scalar::<C>::ONE));
    let mut exps: Vec<usize> = (0..bits).filter(|i| i % 32 == 0 || i % 32 == 31).collect();
    exps.extend([1, 2, 4, 5, 6, bits - 2]);
    for i in exps {
        out.push((format!("2^{i}"), pow2::<C>(i)));
        out.push((format!("2^{i}-1"), pow2::<C>(i) - Scalar::<C>::ONE));
        out.push((format!("n-2^{i}"), -pow2::<C>(i)));
    }
    let digits = bits.div_ceil(5);
    let thirty_two = Scalar::<C>::from(32u64);
    for (name, d) in [("16", 16u64), ("15", 15)] {
        let s = (0..digits).fold(Scalar::<C>::ZERO, |acc, _| {
            acc * thirty_two + Scalar::<C>::from(d)
        });
        out.push((format!("radix-32 digits all {name}"), s));
        out.push((format!("radix-32 digits all -{name}"), -s));
    }
    for (name, byte) in [
        ("0xff", 0xffu8),
        ("0x55", 0x55),
        ("0xaa", 0xaa),
        ("0x80", 0x80),
    ] {
        let s = scalar_from_be::<C>(&vec![byte; C::SCALAR_LEN]);
        out.push((format!("bytes all {name} mod n"), s));
    }
    for _ in 0..4 {
        let low = (0..3).fold(Scalar::<C>::ZERO, |acc, _| {
            acc + pow2::<C>(rng.random_range(0..bits))
        });
        out.push((format!("low weight {}", hex_of(low.to_repr())), low));
        let mut b = vec![0u8; C::SCALAR_LEN];
        for _ in 0..3 {
            let mut r = vec![0u8; C::SCALAR_LEN];
            rng.fill_bytes(&mut r);
            b.iter_mut().zip(r.iter()).for_each(|(x, y)| *x |= y);
        }
        let high = scalar_from_be::<C>(&b);
        out.push((format!("high weight {}", hex_of(high.to_repr())), high));
    }
    for _ in 0..uniform {
        let s = group::random_scalar::<C>(&mut *rng);
        out.push((format!("uniform {}", hex_of(s.to_repr())), s));
    }
    out
}

/// The point cases: the identity, G, -G, 2G, 3G, (n±1)/2·G, and P, -P, 2P, P + G, P - G for a
/// random P, and a second random point.
fn point_cases<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) -> Vec<Pt<C>> {
    let one = Scalar::<C>::ONE;
    let half = Scalar::<C>::from(2u64).invert().unwrap();
    let r = group::random_scalar::<C>(&mut *rng);
    let s = group::random_scalar::<C>(&mut *rng);
    let cases = [
        ("identity", Scalar::<C>::ZERO),
        ("G", one),
        ("-G", -one),
        ("2G", one.double()),
        ("-2G", -one.double()),
        ("3G", one.double() + one),
        ("(n+1)/2 G", half),
        ("(n-1)/2 G", -half),
        ("P", r),
        ("-P", -r),
        ("2P", r.double()),
        ("P+G", r + one),
        ("P-G", r - one),
        ("Q", s),
    ];
    cases
        .iter()
        .map(|(name, k)| pt::<C>(t, format!("{name} (k = {})", hex_of(k.to_repr())), k))
        .collect()
}

/// Addition (complete, mixed, variable time, operators), doubling, negation, equality, `Sum`,
/// and the SEC1 codecs on every point and pair of points.
fn point_ops<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) {
    check_affine::<C>(
        t,
        "Affine::generator",
        &Affine::<C>::generator(),
        &C::ref_generator(),
        &|| "G".into(),
    );
    check_point::<C>(
        t,
        "Point::generator",
        &Point::<C>::generator(),
        &C::ref_generator(),
        &|| "G".into(),
    );
    check_point::<C>(
        t,
        "group::identity",
        &group::identity::<C>(),
        &C::ref_identity(),
        &|| "O".into(),
    );
    let cases = point_cases::<C>(t, rng);
    for a in &cases {
        let input = || a.label.clone();
        check_point::<C>(t, "double (Z != 1)", &a.zr.double(), &(a.r + a.r), &input);
        check_point::<C>(t, "double (Z = 1)", &a.z1.double(), &(a.r + a.r), &input);
        check_point::<C>(t, "-P (Jacobian)", &-a.zr, &-a.r, &input);
        check_affine::<C>(t, "-P (affine)", &-a.aff, &-a.r, &input);
        check_affine::<C>(t, "to_affine", &a.zr.to_affine(), &a.r, &input);
        let is_id = a.r == C::ref_identity();
        t.check("is_identity", &group::is_identity(&a.zr), &is_id, &input);
        t.check(
            "affine is_identity",
            &bool::from(a.aff.is_identity()),
            &is_id,
            &input,
        );
        let comp = C::encode_compressed(&a.aff);
        t.check(
            "encode_compressed",
            &Hex(comp.as_ref().to_vec()),
            &Hex(C::ref_encode(&a.r, true)),
            &input,
        );
        let po = C::ref_po(&a.r);
        let ours = Point::<C>::from_primeorder(&po);
        check_point::<C>(t, "JacobianPoint::from_primeorder", &ours, &a.r, &input);
        let ours = Affine::<C>::from_primeorder(&po.to_affine());
        check_affine::<C>(t, "AffinePoint::from_primeorder", &ours, &a.r, &input);
        let back = C::ref_sec1(&C::po_ref(&a.zr.to_primeorder()));
        let what = "JacobianPoint::to_primeorder";
        t.check(what, &Hex(back), &Hex(C::ref_sec1(&a.r)), &input);
        let back = C::ref_sec1(&C::po_ref(&a.aff.to_primeorder().into()));
        let what = "AffinePoint::to_primeorder";
        t.check(what, &Hex(back), &Hex(C::ref_sec1(&a.r)), &input);
        for b in &cases {
            let input = || format!("a = {}, b = {}", a.label, b.label);
            let sum = a.r + b.r;
            let diff = a.r - b.r;
            // zr: Z != 1, z1: Z = 1, aff: affine.
            let pairs: [(&str, Point<C>, &C::RefPoint); 14] = [
                ("add_complete(zr, zr)", a.zr.add_complete(&b.zr), &sum),
                ("add_complete(zr, z1)", a.zr.add_complete(&b.z1), &sum),
                ("add_complete(z1, zr)", a.z1.add_complete(&b.zr), &sum),
                (
                    "add_affine_complete(zr)",
                    a.zr.add_affine_complete(&b.aff),
                    &sum,
                ),
                (
                    "add_affine_complete(z1)",
                    a.z1.add_affine_complete(&b.aff),
                    &sum,
                ),
                ("zr + aff", a.zr + b.aff, &sum),
                ("zr - zr", a.zr - b.zr, &diff),
                ("zr - aff", a.zr - b.aff, &diff),
                ("vartime_add(zr, zr)", a.zr.vartime_add(&b.zr), &sum),
                ("vartime_add(z1, zr)", a.z1.vartime_add(&b.zr), &sum),
                ("vartime_add_affine", a.zr.vartime_add_affine(&b.aff), &sum),
                ("vartime_sub_affine", a.zr.vartime_sub_affine(&b.aff), &diff),
                ("Sum", [a.zr, b.z1].into_iter().sum(), &sum),
                ("+=, -=, +=", add_assigns(a.zr, &b.zr, &b.aff), &sum),
            ];
            for (what, ours, theirs) in &pairs {
                check_point::<C>(t, what, ours, theirs, &input);
            }
            for c in [0u8, 1] {
                let (ch, pick) = (Choice::from(c), if c == 1 { &b.r } else { &a.r });
                let ours = Point::<C>::conditional_select(&a.zr, &b.zr, ch);
                check_point::<C>(t, "Point::conditional_select", &ours, pick, &input);
                let ours = Affine::<C>::conditional_select(&a.aff, &b.aff, ch);
                check_affine::<C>(t, "Affine::conditional_select", &ours, pick, &input);
                let mut ours = a.zr;
                ours.conditional_assign(&b.zr, ch);
                check_point::<C>(t, "Point::conditional_assign", &ours, pick, &input);
            }
            let eq = a.r == b.r;
            t.check(
                "Point ct_eq (Z != 1, Z = 1)",
                &bool::from(a.zr.ct_eq(&b.z1)),
                &eq,
                &input,
            );
            t.check("Point == (Z != 1, Z != 1)", &(a.zr == b.zr), &eq, &input);
            t.check(
                "ct_eq_affine",
                &bool::from(group::ct_eq_affine(&a.aff, &b.aff)),
                &eq,
                &input,
            );
        }
    }
    decoding::<C>(t, &cases);
}

/// `a += b; a -= q; a += q` (with `q` the affine form of `b`).
fn add_assigns<C: RefCurve>(mut a: Point<C>, b: &Point<C>, q: &Affine<C>) -> Point<C> {
    a += *b;
    a -= *q;
    a += *q;
    a
}

/// SEC1 decoding of the crate (strict: canonical, on the curve, not the identity) against the
/// curve crate's, on encodings built from the field edges and from valid points.
fn decoding<C: RefCurve>(t: &mut Tally, cases: &[Pt<C>]) {
    let len = C::SCALAR_LEN;
    let mut compressed: Vec<Vec<u8>> = vec![vec![0; len + 1]];
    for x in field_edges::<C::RefFe>() {
        for tag in [2u8, 3, 4, 0] {
            let mut b = vec![tag];
            b.extend_from_slice(&x);
            compressed.push(b);
        }
    }
    let ref_of = |b: &[u8]| {
        C::ref_from_sec1(b)
            .filter(|p| *p != C::ref_identity())
            .map(|p| Hex(C::ref_sec1(&p)))
    };
    type Decode<C> = fn(&[u8]) -> Result<Affine<C>, privacy_tokens::Error>;
    let mut check_all = |what: &str, decode: Decode<C>, inputs: &[Vec<u8>]| {
        for b in inputs {
            let ours = decode(b)
                .ok()
                .map(|p| Hex(C::encode_uncompressed(&p).as_ref().to_vec()));
            t.check(what, &ours, &ref_of(b), &|| hex_of(b));
        }
    };
    check_all("decode_compressed", C::decode_compressed, &compressed);
    let p = be_add((-C::RefFe::ONE).to_repr().as_ref(), 1);
    let mut uncompressed: Vec<Vec<u8>> = vec![vec![0; 2 * len + 1]];
    for c in cases.iter().filter(|c| c.r != C::ref_identity()) {
        let e = C::ref_sec1(&c.r);
        let (x, y) = (&e[1..=len], &e[len + 1..]);
        let neg_y = be_sub(&p, y);
        let (y_plus_p, carry) = be_add_be(y, &p);
        let mut variants: Vec<(&[u8], Vec<u8>)> = vec![
            (x, y.to_vec()),
            (x, neg_y.clone()),
            (x, be_add(y, 1)),
            (x, vec![0; len]),
            (x, be_add(&neg_y, 1)),
            (&[0xff; 66][..len], y.to_vec()),
        ];
        if !carry {
            // y + p: a non-canonical coordinate of a valid point.
            variants.push((x, y_plus_p));
        }
        for (x, y) in variants {
            for tag in [4u8, 6, 7] {
                let mut b = vec![tag];
                b.extend_from_slice(x);
                b.extend_from_slice(&y);
                uncompressed.push(b);
            }
        }
    }
    check_all("decode_uncompressed", C::decode_uncompressed, &uncompressed);
}

// ---------------------------------------------------------------------------------------------
// Scalar multiplication

/// A single-point multiplication under test.
type SingleMul<C> = Box<dyn Fn(&Pt<C>, &Scalar<C>) -> Point<C>>;

/// Every single-point multiplication of the crate. A new ladder is one more entry.
fn single_muls<C: RefCurve>(blind: &LadderBlind<C>) -> Vec<(&'static str, SingleMul<C>)> {
    let b1 = blind.clone();
    let b2 = blind.clone();
    let b3 = blind.clone();
    vec![
        ("group::mul (Z != 1)", Box::new(|p, k| group::mul(&p.zr, k))),
        ("group::mul (Z = 1)", Box::new(|p, k| group::mul(&p.z1, k))),
        ("Point * Scalar", Box::new(|p, k| p.zr * *k)),
        (
            "group::mul_affine",
            Box::new(|p, k| group::mul_affine(&p.aff, k)),
        ),
        (
            "group::vartime_mul",
            Box::new(|p, k| group::vartime_mul(&p.aff, k)),
        ),
        (
            "group::vartime_lincomb::<1>",
            Box::new(|p, k| group::vartime_lincomb(&[p.zr], &[*k])),
        ),
        (
            "group::vartime_msm (1 term)",
            Box::new(|p, k| group::vartime_msm(&[p.aff], &[*k]).expect("equal lengths")),
        ),
        (
            "group::vartime_mul_generator_add (a = 0)",
            Box::new(|p, k| group::vartime_mul_generator_add(&Scalar::<C>::ZERO, k, &p.aff)),
        ),
        (
            "group::mul_multi_ct::<1>",
            Box::new(move |p, k| group::mul_multi_ct(&[p.zr], &[*k], &b1)),
        ),
        (
            "group::mul_multi_shared_ct::<1, 1>",
            Box::new(move |p, k| group::mul_multi_shared_ct(&[p.zr], &[[*k]], &b2)[0]),
        ),
        (
            "group::mul_multi_shared_batch_ct::<1, 1> (one set)",
            Box::new(move |p, k| group::mul_multi_shared_batch_ct(&[[p.zr]], &[[*k]], &b3)[0][0]),
        ),
    ]
}

/// A multiplication through a fixed-base table under test.
type FixedMul<C> = fn(&FixedBaseTable<C>, &Scalar<C>) -> Point<C>;

/// Multiplications by a fixed base through its table (built once per base).
fn fixed_muls<C: RefCurve>() -> Vec<(&'static str, FixedMul<C>)> {
    vec![
        ("FixedBaseTable::mul", |t, k| t.mul(k)),
        ("FixedBaseTable::vartime_mul", |t, k| t.vartime_mul(k)),
        ("group::mul_fixed_ct::<1>", |t, k| {
            group::mul_fixed_ct([t], &[*k])
        }),
        ("group::vartime_mul_fixed::<1>", |t, k| {
            group::vartime_mul_fixed([t], &[*k])
        }),
        ("group::vartime_mul_generator_and_fixed (a = 0)", |t, k| {
            group::vartime_mul_generator_and_fixed(&Scalar::<C>::ZERO, t, k)
        }),
    ]
}

/// A multiplication of the generator under test.
type GeneratorMul<C> = Box<dyn Fn(&Scalar<C>) -> Point<C>>;

/// Multiplications of the generator.
fn generator_muls<C: RefCurve>() -> Vec<(&'static str, GeneratorMul<C>)> {
    let fresh = std::rc::Rc::new(GeneratorTable::<C>::new());
    let fresh2 = fresh.clone();
    vec![
        (
            "group::mul_generator",
            Box::new(|k| group::mul_generator::<C>(k)),
        ),
        (
            "GeneratorTable::mul (process table)",
            Box::new(|k| C::generator_table().mul(k)),
        ),
        (
            "GeneratorTable::vartime_mul",
            Box::new(|k| C::generator_table().vartime_mul(k)),
        ),
        ("GeneratorTable::new().mul", Box::new(move |k| fresh.mul(k))),
        (
            "GeneratorTable::new().vartime_mul",
            Box::new(move |k| fresh2.vartime_mul(k)),
        ),
        (
            "group::vartime_mul_generator_add (b = 0)",
            Box::new(|k| {
                group::vartime_mul_generator_add(k, &Scalar::<C>::ZERO, &Affine::<C>::generator())
            }),
        ),
        (
            "group::vartime_mul_generator_add (P = O)",
            Box::new(|k| group::vartime_mul_generator_add(k, k, &group::affine_identity::<C>())),
        ),
    ]
}

/// The blinds of the multi-point ladders: a random one, and `rho = 1` (the ladder starts at G,
/// which the inputs contain, so the exceptional additions and the fallback are reached). A zero
/// blind is unrepresentable (`from_secret` refuses it).
fn blinds<C: RefCurve>(rng: &mut StdRng) -> Vec<(&'static str, LadderBlind<C>)> {
    assert!(LadderBlind::<C>::from_secret(&Scalar::<C>::ZERO).is_none());
    vec![
        ("random", LadderBlind::<C>::random(rng)),
        (
            "rho = 1",
            LadderBlind::<C>::from_secret(&Scalar::<C>::ONE).expect("non-zero blind"),
        ),
    ]
}

/// Single-point, generator and fixed-base multiplications on every point and edge scalar.
fn single_mul<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) {
    let iters = tally::iters();
    let scalars = scalar_edges::<C>(rng, 8 * iters);
    let cases = point_cases::<C>(t, rng);
    let blind = LadderBlind::<C>::random(rng);
    let muls = single_muls::<C>(&blind);
    // All scalars on G, P and the identity; a sixth of them on every other point.
    for (i, p) in cases.iter().enumerate() {
        let main = matches!(i, 0 | 1 | 8);
        for (j, (name, k)) in scalars.iter().enumerate() {
            if !main && j % 6 != i % 6 {
                continue;
            }
            let theirs = p.r * *k;
            let input = || format!("P = {}, k = {name}", p.label);
            for (what, f) in &muls {
                check_point::<C>(t, what, &f(p, k), &theirs, &input);
            }
        }
    }
    let gens = generator_muls::<C>();
    for (name, k) in &scalars {
        let theirs = C::ref_generator() * *k;
        for (what, f) in &gens {
            check_point::<C>(t, what, &f(k), &theirs, &|| format!("k = {name}"));
        }
    }
    let fixed = fixed_muls::<C>();
    for p in cases
        .iter()
        .filter(|c| matches!(c.label.as_bytes()[0], b'i' | b'G' | b'P' | b'-'))
    {
        // The 5-bit tables (per key) and the 7-bit ones (the process-wide generators).
        for (width, table) in [
            ("new", FixedBaseTable::<C>::new(&p.aff)),
            ("new_wide", FixedBaseTable::<C>::new_wide(&p.aff)),
        ] {
            check_affine::<C>(t, "FixedBaseTable::base", table.base(), &p.r, &|| {
                format!("{} ({width})", p.label)
            });
            for (j, (name, k)) in scalars.iter().enumerate() {
                // A third of the scalars, and every last-row doubling case.
                if j % 3 != 0 && !name.starts_with("fixed-base doubling") {
                    continue;
                }
                let theirs = p.r * *k;
                let input = || format!("P = {}, k = {name}, FixedBaseTable::{width}", p.label);
                for (what, f) in &fixed {
                    check_point::<C>(t, what, &f(&table, k), &theirs, &input);
                }
            }
        }
    }
}

/// A multi-point multiplication under test.
type MultiMul<C, const N: usize> = Box<dyn Fn(&[&Pt<C>; N], &[Scalar<C>; N]) -> Point<C>>;

/// Every `N`-term multiplication of the crate. A new multi-point ladder is one more entry.
fn multi_muls<C: RefCurve, const N: usize>(
    blinds: &[(&'static str, LadderBlind<C>)],
) -> Vec<(String, MultiMul<C, N>)> {
    let mut out: Vec<(String, MultiMul<C, N>)> = Vec::new();
    for (name, blind) in blinds {
        let (b1, b2, b3) = (blind.clone(), blind.clone(), blind.clone());
        out.push((
            format!("group::mul_multi_ct::<{N}> (blind {name})"),
            Box::new(move |p, k| group::mul_multi_ct(&p.map(|p| p.zr), k, &b1)),
        ));
        out.push((
            format!("group::mul_multi_shared_ct::<{N}, 1> (blind {name})"),
            Box::new(move |p, k| group::mul_multi_shared_ct(&p.map(|p| p.z1), &[*k], &b2)[0]),
        ));
        out.push((
            format!("group::mul_multi_shared_batch_ct::<{N}, 1> (blind {name})"),
            Box::new(move |p, k| {
                group::mul_multi_shared_batch_ct(&[p.map(|p| p.zr)], &[*k], &b3)[0][0]
            }),
        ));
    }
    out.push((
        format!("group::vartime_lincomb::<{N}>"),
        Box::new(|p, k| group::vartime_lincomb(&p.map(|p| p.zr), k)),
    ));
    out.push((
        format!("group::vartime_msm ({N} terms)"),
        Box::new(|p, k| group::vartime_msm(&p.map(|p| p.aff), k).expect("equal lengths")),
    ));
    out.push((
        format!("sum of group::mul ({N} terms)"),
        Box::new(|p, k| (0..N).map(|i| group::mul(&p[i].zr, &k[i])).sum()),
    ));
    out
}

/// The reference `sum k_i P_i`.
fn ref_lincomb<C: RefCurve>(p: &[&Pt<C>], k: &[Scalar<C>]) -> C::RefPoint {
    p.iter()
        .zip(k.iter())
        .fold(C::ref_identity(), |acc, (p, k)| acc + p.r * *k)
}

/// Point tuples with relations between them (equal, opposite, doubled, the identity, G).
fn point_tuples<C: RefCurve, const N: usize>(cases: &[Pt<C>]) -> Vec<[&Pt<C>; N]> {
    let by = |name: &str| {
        cases
            .iter()
            .find(|c| c.label.starts_with(&format!("{name} ")))
            .expect("a point case")
    };
    let sets: [[&str; 3]; 9] = [
        ["G", "P", "Q"],
        ["P", "P", "P"],
        ["P", "-P", "Q"],
        ["P", "2P", "-P"],
        ["P", "identity", "G"],
        ["identity", "identity", "identity"],
        ["G", "-G", "2G"],
        ["G", "G", "(n+1)/2"],
        ["P+G", "P-G", "G"],
    ];
    sets.iter()
        .map(|s| core::array::from_fn(|i| by(s[i])))
        .collect()
}

/// Scalar tuples: equal, opposite, summing to zero or one, edges, uniform.
fn scalar_tuples<C: Curve, const N: usize>(rng: &mut StdRng) -> Vec<[Scalar<C>; N]> {
    let one = Scalar::<C>::ONE;
    let half = Scalar::<C>::from(2u64).invert().unwrap();
    let mut r = || group::random_scalar::<C>(&mut *rng);
    let (a, b) = (r(), r());
    let bases: Vec<[Scalar<C>; 3]> = vec![
        [Scalar::<C>::ZERO; 3],
        [one; 3],
        [one, -one, one],
        [a, a, a],
        [a, -a, b],
        [-one, -one, -one],
        [one.double(), -one.double(), half],
        [half, -half, half],
        [
            -Scalar::<C>::from(2u64),
            -Scalar::<C>::from(32u64),
            Scalar::<C>::from(16u64),
        ],
        [a, b, r()],
        [r(), r(), r()],
    ];
    bases
        .iter()
        .map(|s| core::array::from_fn(|i| s[i]))
        .collect()
}

/// `N`-term multiplications on related points and scalars, shared-table products with several
/// outputs, and batches across the chunk boundary of the batched ladder.
fn multi_mul<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) {
    let cases = point_cases::<C>(t, rng);
    let blinds = blinds::<C>(rng);
    multi_mul_n::<C, 2>(t, rng, &cases, &blinds);
    multi_mul_n::<C, 3>(t, rng, &cases, &blinds);
    // Several outputs over shared tables: [k], [k reversed], [-k + 1].
    let tuples = point_tuples::<C, 2>(&cases);
    let ks = scalar_tuples::<C, 2>(rng);
    for (bi, (bname, blind)) in blinds.iter().enumerate() {
        for (i, p) in tuples.iter().enumerate() {
            let k = ks[(i + bi) % ks.len()];
            let sets = [k, [k[1], k[0]], [-k[0] + Scalar::<C>::ONE, -k[1]]];
            let ours = group::mul_multi_shared_ct(&p.map(|p| p.zr), &sets, blind);
            let what = format!("mul_multi_shared_ct::<2, 3> (blind {bname})");
            check_products::<C, 2>(t, &what, &ours, p, &sets);
        }
    }
    // Batches: 0, 1, 3 sets, and one past the chunk of one inversion (128).
    let blind = &blinds[0].1;
    let k = ks[ks.len() - 1];
    let sets = [k, [k[1], -k[0]]];
    for n in [0usize, 1, 3, 129] {
        let pts: Vec<[&Pt<C>; 2]> = (0..n).map(|i| tuples[i % tuples.len()]).collect();
        let jac: Vec<[Point<C>; 2]> = pts.iter().map(|p| p.map(|p| p.zr)).collect();
        let out = group::mul_multi_shared_batch_ct(&jac, &sets, blind);
        t.check("mul_multi_shared_batch_ct length", &out.len(), &n, &|| {
            format!("{n} sets")
        });
        for (b, (o, p)) in out.iter().zip(pts.iter()).enumerate() {
            let what = format!("mul_multi_shared_batch_ct::<2, 2> (set {b} of {n})");
            check_products::<C, 2>(t, &what, o, p, &sets);
        }
    }
}

/// Checks the products `ours[j] = sum_i sets[j][i] P_i` of a shared-table ladder.
fn check_products<C: RefCurve, const N: usize>(
    t: &mut Tally,
    what: &str,
    ours: &[Point<C>],
    p: &[&Pt<C>; N],
    sets: &[[Scalar<C>; N]],
) {
    t.check(
        &format!("{what}: outputs"),
        &ours.len(),
        &sets.len(),
        &|| what.into(),
    );
    for (o, s) in ours.iter().zip(sets.iter()) {
        let input = || format!("P = {:?}, k = {s:?}", p.map(|p| &p.label));
        check_point::<C>(t, what, o, &ref_lincomb::<C>(p, s), &input);
    }
}

/// `N`-term multiplications of every implementation on the point and scalar tuples, and with
/// fixed-base tables.
fn multi_mul_n<C: RefCurve, const N: usize>(
    t: &mut Tally,
    rng: &mut StdRng,
    cases: &[Pt<C>],
    blinds: &[(&'static str, LadderBlind<C>)],
) {
    let muls = multi_muls::<C, N>(blinds);
    let tuples = point_tuples::<C, N>(cases);
    let ks = scalar_tuples::<C, N>(rng);
    for p in &tuples {
        for k in &ks {
            let theirs = ref_lincomb::<C>(p, k);
            let input = || format!("P = {:?}, k = {k:?}", p.map(|p| &p.label));
            for (what, f) in &muls {
                check_point::<C>(t, what, &f(p, k), &theirs, &input);
            }
        }
    }
    // Two fixed bases: mul_fixed_ct / vartime_mul_fixed, and a*G + b*P with a table.
    let tables: Vec<FixedBaseTable<C>> = tuples[0]
        .iter()
        .map(|p| FixedBaseTable::new(&p.aff))
        .collect();
    for k in &ks {
        let p = &tuples[0];
        let input = || format!("P = {:?}, k = {k:?}", p.map(|p| &p.label));
        let theirs = ref_lincomb::<C>(&p[..2], &k[..2]);
        let tb = [&tables[0], &tables[1]];
        let k2 = [k[0], k[1]];
        check_point::<C>(
            t,
            "mul_fixed_ct::<2>",
            &group::mul_fixed_ct(tb, &k2),
            &theirs,
            &input,
        );
        check_point::<C>(
            t,
            "vartime_mul_fixed::<2>",
            &group::vartime_mul_fixed(tb, &k2),
            &theirs,
            &input,
        );
        let same = [&tables[1], &tables[1]];
        let theirs_same = p[1].r * (k[0] + k[1]);
        check_point::<C>(
            t,
            "mul_fixed_ct::<2> (same base)",
            &group::mul_fixed_ct(same, &k2),
            &theirs_same,
            &input,
        );
        let theirs = C::ref_generator() * k[0] + p[1].r * k[1];
        let ours = group::vartime_mul_generator_and_fixed(&k[0], &tables[1], &k[1]);
        check_point::<C>(t, "vartime_mul_generator_and_fixed", &ours, &theirs, &input);
        let ours = group::vartime_mul_generator_add(&k[0], &k[1], &p[1].aff);
        check_point::<C>(t, "vartime_mul_generator_add", &ours, &theirs, &input);
    }
}

/// `vartime_msm` over lengths around Straus' special cases and Pippenger's threshold (512),
/// with repeated, opposite and identity points and edge scalars. The points are `a_i G` built by
/// the reference, so the expected sum is one reference multiplication `(sum k_i a_i) G`.
fn msm<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) {
    let iters = tally::iters();
    let mut lengths = vec![0usize, 1, 2, 3, 4, 16, 17, 100, 511, 512, 513, 700];
    if iters > 1 {
        lengths.extend([2048, 4096 * iters.min(4)]);
    }
    let max = lengths.iter().copied().max().unwrap_or(0);
    let one = Scalar::<C>::ONE;
    let (a0, q) = (
        group::random_scalar::<C>(&mut *rng),
        group::random_scalar::<C>(&mut *rng),
    );
    let (p0, step) = (C::ref_generator() * a0, C::ref_generator() * q);
    // Discrete logs: a few special ones first, then a0, a0 + q, ... with repeats and negations.
    let mut logs = vec![Scalar::<C>::ZERO, one, -one, a0, a0, -a0, a0.double(), one];
    let mut refs = vec![
        C::ref_identity(),
        C::ref_generator(),
        -C::ref_generator(),
        p0,
        p0,
        -p0,
        p0 + p0,
        C::ref_generator(),
    ];
    let (mut a, mut p) = (a0, p0);
    while logs.len() < max {
        let i = logs.len();
        if i % 50 == 0 {
            logs.push(logs[i - 7]);
            refs.push(refs[i - 7]);
        } else if i % 77 == 0 {
            logs.push(-logs[i - 3]);
            refs.push(-refs[i - 3]);
        } else {
            a += q;
            p = p + step;
            logs.push(a);
            refs.push(p);
        }
    }
    let points: Vec<Affine<C>> = refs.iter().map(ours_from_ref::<C>).collect();
    let edge = scalar_edges::<C>(rng, 0);
    let scalars: Vec<Scalar<C>> = (0..max)
        .map(|i| {
            if i % 5 == 0 {
                edge[(i / 5) % edge.len()].1
            } else {
                group::random_scalar::<C>(&mut *rng)
            }
        })
        .collect();
    for &n in &lengths {
        let e = logs[..n]
            .iter()
            .zip(scalars[..n].iter())
            .fold(Scalar::<C>::ZERO, |acc, (a, k)| acc + *a * k);
        let theirs = C::ref_generator() * e;
        let ours = group::vartime_msm(&points[..n], &scalars[..n]).expect("equal lengths");
        check_point::<C>(t, "vartime_msm", &ours, &theirs, &|| format!("{n} terms"));
        // The same terms with every scalar negated, and all scalars equal (one big bucket).
        let neg: Vec<Scalar<C>> = scalars[..n].iter().map(|k| -*k).collect();
        let ours = group::vartime_msm(&points[..n], &neg).expect("equal lengths");
        check_point::<C>(t, "vartime_msm (negated)", &ours, &-theirs, &|| {
            format!("{n} terms")
        });
        let k = scalars[n / 2 % max.max(1)];
        let same = vec![k; n];
        let e = logs[..n].iter().fold(Scalar::<C>::ZERO, |acc, a| acc + *a) * k;
        let ours = group::vartime_msm(&points[..n], &same).expect("equal lengths");
        check_point::<C>(
            t,
            "vartime_msm (equal scalars)",
            &ours,
            &(C::ref_generator() * e),
            &|| format!("{n} terms"),
        );
    }
    let short = group::vartime_msm(&points[..2], &scalars[..1]).is_err();
    t.check(
        "vartime_msm rejects unequal lengths",
        &short,
        &true,
        &|| "2 points, 1 scalar".into(),
    );
}

/// `to_affine`, `normalize_slice` and `normalize_array` with identities at the ends, in the
/// middle and everywhere.
fn normalize<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) {
    let cases = point_cases::<C>(t, rng);
    let id = &cases[0];
    let mut pool: Vec<&Pt<C>> = Vec::new();
    for i in 0..300 {
        pool.push(&cases[(i * 7 + 3) % cases.len()]);
    }
    let mut inputs: Vec<Vec<&Pt<C>>> = Vec::new();
    for n in [0usize, 1, 2, 3, 4, 5, 8, 9, 16, 64, 255] {
        inputs.push(pool[..n].to_vec());
        if n > 0 {
            let mut v = pool[..n].to_vec();
            v[0] = id;
            inputs.push(v.clone());
            v[n - 1] = id;
            v[n / 2] = id;
            inputs.push(v);
            inputs.push(vec![id; n]);
        }
    }
    for v in &inputs {
        let jac: Vec<Point<C>> = v.iter().map(|p| p.zr).collect();
        let mut out = vec![group::affine_identity::<C>(); jac.len()];
        let ok = group::normalize_slice(&jac, &mut out).is_ok();
        t.check("normalize_slice Ok", &ok, &true, &|| {
            format!("{} points", v.len())
        });
        for (i, (o, p)) in out.iter().zip(v.iter()).enumerate() {
            let input = || format!("point {i} of {}: {}", v.len(), p.label);
            check_affine::<C>(t, "normalize_slice", o, &p.r, &input);
        }
        if !jac.is_empty() {
            let mut short = vec![group::affine_identity::<C>(); jac.len() - 1];
            let err = group::normalize_slice(&jac, &mut short).is_err();
            t.check(
                "normalize_slice rejects unequal lengths",
                &err,
                &true,
                &|| format!("{} points", v.len()),
            );
        }
    }
    normalize_array_n::<C, 0>(t, &pool);
    normalize_array_n::<C, 1>(t, &pool);
    normalize_array_n::<C, 2>(t, &pool);
    normalize_array_n::<C, 7>(t, &pool);
    normalize_array_n::<C, 7>(t, &[id]);
    normalize_array_n::<C, 16>(t, &pool[5..]);
    for p in &cases {
        check_affine::<C>(
            t,
            "group::to_affine",
            &group::to_affine(&p.zr),
            &p.r,
            &|| p.label.clone(),
        );
    }
}

fn normalize_array_n<C: RefCurve, const N: usize>(t: &mut Tally, pool: &[&Pt<C>]) {
    let pts: [&Pt<C>; N] = core::array::from_fn(|i| pool[i % pool.len()]);
    let out = group::normalize_array(&pts.map(|p| p.zr));
    for (i, (o, p)) in out.iter().zip(pts.iter()).enumerate() {
        let input = || format!("point {i} of {N}: {}", p.label);
        check_affine::<C>(t, "normalize_array", o, &p.r, &input);
    }
}

// ---------------------------------------------------------------------------------------------
// Hash to curve, hash to scalar

/// `hash_to_curve` (the crate's own SSWU map on the curve crate's `hash_to_field`) and
/// `hash_to_scalar` against `GroupDigest::hash_from_bytes` / `hash_to_scalar`, for all three
/// expanders, several DSTs (one byte, RFC 9380's and RFC 9497's, 255 and 256 bytes: the
/// oversize DST is hashed first, split in pieces, empty, none at all) and message lengths
/// around the hash block sizes, the empty message included, whole and in pieces.
fn hashing<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) {
    let iters = tally::iters();
    let long: Vec<u8> = (0..256u16).map(|i| (i * 7 + 1) as u8).collect();
    let dsts: Vec<Vec<&[u8]>> = vec![
        vec![b"x"],
        vec![b"QUUX-V01-CS02-with-P256_XMD:SHA-256_SSWU_RO_"],
        vec![b"QUUX-V01-CS02-with-P384_XMD:SHA-384_SSWU_RO_"],
        vec![b"HashToGroup-", b"OPRFV1-", &[0x01], b"-", b"P384-SHA384"],
        vec![&long[..255]],
        vec![&long[..256]],
        vec![&long[..100], &long[100..256]],
        vec![b""],
        vec![],
    ];
    let mut lengths: Vec<usize> = vec![0, 1, 2, 31, 32, 33, 47, 48, 49, 55, 56, 63, 64, 65];
    lengths.extend([111, 112, 127, 128, 129, 255, 256, 1000, 4096]);
    let mut msgs: Vec<Vec<u8>> = Vec::new();
    for &n in &lengths {
        msgs.push(vec![0; n]);
        msgs.push(vec![0xff; n]);
        let mut m = vec![0u8; n];
        rng.fill_bytes(&mut m);
        msgs.push(m);
    }
    for _ in 0..40 * iters {
        let mut m = vec![0u8; rng.random_range(0..300)];
        rng.fill_bytes(&mut m);
        msgs.push(m);
    }
    for xmd in [Xmd::Sha256, Xmd::Sha384, Xmd::Sha512] {
        for (di, dst) in dsts.iter().enumerate() {
            for (mi, msg) in msgs.iter().enumerate() {
                // All messages with the main DSTs; a sample of them with the others.
                if di > 3 && mi % 4 != di % 4 {
                    continue;
                }
                let cut = if msg.is_empty() {
                    0
                } else {
                    rng.random_range(0..=msg.len())
                };
                let pieces: [&[u8]; 3] = [&msg[..cut], &[], &msg[cut..]];
                let whole: [&[u8]; 1] = [msg];
                let input = || format!("{xmd:?}, dst {dst:?}, msg {}", hex_of(msg));
                let theirs = C::ref_hash_to_curve(xmd, &whole, dst);
                for (how, m) in [("whole", &whole[..]), ("in pieces", &pieces[..])] {
                    let ours = C::hash_to_curve(xmd, m, dst).ok();
                    let what = format!("hash_to_curve ({how})");
                    match (&ours, &theirs) {
                        (Some(o), Some(th)) => check_point::<C>(t, &what, o, th, &input),
                        _ => {
                            t.check(&what, &ours.is_some(), &theirs.is_some(), &input);
                        }
                    }
                    let ours = C::hash_to_scalar(xmd, m, dst)
                        .ok()
                        .map(|s| Hex(s.to_repr()));
                    let theirs = C::ref_hash_to_scalar(xmd, &whole, dst).map(|s| Hex(s.to_repr()));
                    t.check(&format!("hash_to_scalar ({how})"), &ours, &theirs, &input);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scalars

/// The crate's scalar helpers (`decode_scalar`, `decode_nonzero_scalar`, `scalar_bytes`,
/// `invert`, `batch_invert`, `select_scalar`) against the curve crate's `Scalar`, on the
/// encodings next to 0, `n` and `2^(8 Ns)` (the field edges of the scalar field).
fn scalars<C: RefCurve>(t: &mut Tally, rng: &mut StdRng) {
    let mut decoded: Vec<Scalar<C>> = Vec::new();
    for bytes in field_edges::<Scalar<C>>() {
        let input = || hex_of(&bytes);
        let mut r = <Scalar<C> as PrimeField>::Repr::default();
        AsMut::<[u8]>::as_mut(&mut r).copy_from_slice(&bytes);
        let theirs: Option<Scalar<C>> = Scalar::<C>::from_repr(r).into();
        let ours = group::decode_scalar::<C>(&bytes).ok();
        t.check("decode_scalar", &ours, &theirs, &input);
        let nonzero = theirs.filter(|s| !bool::from(s.is_zero()));
        let ours = group::decode_nonzero_scalar::<C>(&bytes).ok();
        t.check("decode_nonzero_scalar", &ours, &nonzero, &input);
        for cut in [1, bytes.len() - 1, bytes.len() + 1] {
            let mut b = bytes.clone();
            b.resize(cut, 0);
            let ours = group::decode_scalar::<C>(&b).is_err();
            t.check("decode_scalar rejects other lengths", &ours, &true, &input);
        }
        if let Some(s) = theirs {
            let ours = Hex(C::scalar_bytes(&s).as_ref().to_vec());
            t.check("scalar_bytes", &ours, &Hex(s.to_repr().to_vec()), &input);
            decoded.push(s);
        }
    }
    decoded.extend((0..64).map(|_| group::random_scalar::<C>(&mut *rng)));
    for (i, s) in decoded.iter().enumerate() {
        let input = || hex_of(s.to_repr());
        let theirs: Option<Scalar<C>> = s.invert().into();
        t.check("invert", &group::invert::<C>(s).ok(), &theirs, &input);
        let other = decoded[(i + 1) % decoded.len()];
        for c in [0u8, 1] {
            let ours = group::select_scalar::<C>(s, &other, Choice::from(c));
            let theirs = Scalar::<C>::conditional_select(s, &other, Choice::from(c));
            t.check("select_scalar", &ours, &theirs, &input);
        }
    }
    // Batches of non-zero scalars of every length up to 40; with a zero, the batch fails and
    // nothing changes.
    let nonzero: Vec<Scalar<C>> = decoded
        .iter()
        .copied()
        .filter(|s| !bool::from(s.is_zero()))
        .collect();
    for n in 0..=40usize {
        let start = (n * 13) % nonzero.len();
        let batch: Vec<Scalar<C>> = (0..n)
            .map(|i| nonzero[(start + i) % nonzero.len()])
            .collect();
        let mut ours = batch.clone();
        let mut scratch = vec![Scalar::<C>::ZERO; n];
        let ok = group::batch_invert::<C>(&mut ours, &mut scratch).is_ok();
        t.check("batch_invert Ok", &ok, &true, &|| format!("{n} scalars"));
        let theirs: Vec<Scalar<C>> = batch.iter().map(|s| s.invert().unwrap()).collect();
        t.check("batch_invert", &ours, &theirs, &|| format!("{n} scalars"));
        if n > 0 {
            let mut with_zero = batch.clone();
            with_zero[n / 2] = Scalar::<C>::ZERO;
            let before = with_zero.clone();
            let err = group::batch_invert::<C>(&mut with_zero, &mut scratch).is_err();
            t.check("batch_invert rejects a zero", &err, &true, &|| {
                format!("{n} scalars")
            });
            t.check(
                "batch_invert leaves a failed batch",
                &with_zero,
                &before,
                &|| format!("{n} scalars"),
            );
            let err = group::batch_invert::<C>(&mut ours, &mut scratch[1..]).is_err();
            t.check("batch_invert rejects unequal lengths", &err, &true, &|| {
                format!("{n} scalars")
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The tests

macro_rules! differential_tests {
    ($($name:ident => $body:expr;)*) => {
        /// The number of tests in this binary (the last one to finish prints the summary).
        const TESTS: usize = [$(stringify!($name)),*].len();
        $(
            #[test]
            fn $name() {
                let mut t = Tally::new(stringify!($name), TESTS);
                let mut rng = t.rng();
                ($body)(&mut t, &mut rng);
                t.finish();
            }
        )*
    };
}

differential_tests! {
    // Field backends: one line each.
    field_p256 => field_suite::<Ours<NistP256>>;
    field_p384 => field_suite::<Ours<NistP384>>;
    points_p256 => point_ops::<NistP256>;
    points_p384 => point_ops::<NistP384>;
    single_mul_p256 => single_mul::<NistP256>;
    single_mul_p384 => single_mul::<NistP384>;
    multi_mul_p256 => multi_mul::<NistP256>;
    multi_mul_p384 => multi_mul::<NistP384>;
    msm_p256 => msm::<NistP256>;
    msm_p384 => msm::<NistP384>;
    normalize_p256 => normalize::<NistP256>;
    normalize_p384 => normalize::<NistP384>;
    hashing_p256 => hashing::<NistP256>;
    hashing_p384 => hashing::<NistP384>;
    scalars_p256 => scalars::<NistP256>;
    scalars_p384 => scalars::<NistP384>;
}
