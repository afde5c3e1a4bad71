//! Differential arithmetic: the crate's own P-256 and P-384 fields, point formulas, scalar
//! multiplications and hash-to-curve against the RustCrypto `p256` / `p384` crates. Any
//! mismatch panics (the crash the fuzzer reports).

use elliptic_curve::ff::{Field, PrimeField};
use elliptic_curve::group::Group;
use hash2curve::{ExpandMsgXmd, MapToCurve};
use primeorder::ProjectivePoint;
use privacy_tokens::group::{
    self, Affine, Curve, FieldOps, FixedBaseTable, JacobianPoint, Point, Scalar, Xmd,
};

use crate::adapt;

/// The reference base field of `diff_p256_field`: p256's field element (0.14 has no
/// `expose-field`; the type is reachable through `FieldArithmetic`).
pub type P256RefFe = <p256::NistP256 as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;
/// The reference base field of `diff_p384_field`.
pub type P384RefFe = <p384::NistP384 as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;

fn fe_eq<C: Curve, R: PrimeField>(ours: &C::Fe, theirs: &R, what: &str) {
    assert_eq!(
        hex::encode(FieldOps::to_repr(ours)),
        hex::encode(theirs.to_repr()),
        "{} {what} differs",
        core::any::type_name::<C::Fe>()
    );
}

/// `diff_p256_field`, `diff_p384_field`: two big-endian field encodings (`L` bytes each, `2L`
/// in all, short inputs padded with zeros); decoding by the crate's own field of `C`
/// (`group::P256Fe`, `group::P384Fe`) must agree with the curve crate's field element `R`, and
/// so must every operation on the decoded elements.
pub fn field_target<C: Curve, R: PrimeField<Repr = <C::Fe as FieldOps>::Repr>>(data: &[u8]) {
    let len = <R::Repr as Default>::default().as_ref().len();
    let mut buf = vec![0u8; 2 * len];
    let n = data.len().min(2 * len);
    buf[..n].copy_from_slice(&data[..n]);
    let repr = |bytes: &[u8]| {
        let mut r = R::Repr::default();
        r.as_mut().copy_from_slice(bytes);
        r
    };
    let (ab, bb) = (repr(&buf[..len]), repr(&buf[len..]));
    let (a, b) = (
        <C::Fe as FieldOps>::from_repr(ab),
        <C::Fe as FieldOps>::from_repr(bb),
    );
    let (ra, rb) = (R::from_repr(ab), R::from_repr(bb));
    assert_eq!(
        bool::from(a.is_some()),
        bool::from(ra.is_some()),
        "canonical check differs"
    );
    assert_eq!(
        bool::from(b.is_some()),
        bool::from(rb.is_some()),
        "canonical check differs"
    );
    let (Some(a), Some(ra)) = (Option::<C::Fe>::from(a), Option::<R>::from(ra)) else {
        return;
    };
    let (b, rb): (C::Fe, R) = match (Option::from(b), Option::<R>::from(rb)) {
        (Some(b), Some(rb)) => (b, rb),
        _ => (a, ra),
    };
    assert_eq!(
        FieldOps::to_repr(&a).as_ref(),
        ab.as_ref(),
        "to_bytes is not the input"
    );
    fe_eq::<C, R>(&a, &ra, "decoding");
    fe_eq::<C, R>(&(a * b), &(ra * rb), "mul");
    fe_eq::<C, R>(&FieldOps::square(&a), &ra.square(), "square");
    fe_eq::<C, R>(&(a + b), &(ra + rb), "add");
    fe_eq::<C, R>(&(a - b), &(ra - rb), "sub");
    fe_eq::<C, R>(&(-a), &(-ra), "negate");
    fe_eq::<C, R>(&FieldOps::double(&a), &ra.double(), "double");
    fe_eq::<C, R>(&FieldOps::times4(&a), &ra.double().double(), "times4");
    fe_eq::<C, R>(
        &FieldOps::times8(&a),
        &ra.double().double().double(),
        "times8",
    );
    assert_eq!(
        bool::from(FieldOps::is_zero(&a)),
        bool::from(ra.is_zero()),
        "is_zero differs"
    );
    assert_eq!(
        bool::from(FieldOps::is_odd(&a)),
        bool::from(ra.is_odd()),
        "is_odd differs"
    );
    let inv = C::invert_field(&a);
    match Option::<R>::from(ra.invert()) {
        Some(ri) => fe_eq::<C, R>(&inv, &ri, "invert"),
        None => assert!(
            bool::from(FieldOps::is_zero(&inv)),
            "invert of zero is not zero"
        ),
    }
    // sqrt(a) = a^((p+1)/4) = a * a^((p-3)/4) for p = 3 mod 4.
    let r = a * C::pow_c1(&a);
    match Option::<R>::from(ra.sqrt()) {
        Some(rs) => {
            assert_eq!(FieldOps::square(&r), a, "sqrt of a square is wrong");
            let x = hex::encode(FieldOps::to_repr(&r));
            let (y, z) = (hex::encode(rs.to_repr()), hex::encode((-rs).to_repr()));
            assert!(x == y || x == z, "sqrt differs");
        }
        None => assert_ne!(FieldOps::square(&r), a, "sqrt of a non-square squares back"),
    }
}

fn scalar<C: Curve>(bytes: &[u8], special: u8) -> Scalar<C> {
    match special % 4 {
        1 => Scalar::<C>::ZERO,
        2 => Scalar::<C>::ONE,
        3 => -Scalar::<C>::ONE,
        _ => {
            let mut repr = elliptic_curve::FieldBytes::<C>::default();
            repr.copy_from_slice(bytes);
            if let Some(s) = Option::from(Scalar::<C>::from_repr(repr)) {
                return s;
            }
            repr[0] = 0;
            Option::from(Scalar::<C>::from_repr(repr)).unwrap_or(Scalar::<C>::ONE)
        }
    }
}

fn same<C: Curve>(ours: &Point<C>, theirs: &ProjectivePoint<C>, what: &str)
where
    ProjectivePoint<C>: PartialEq + core::fmt::Debug,
{
    assert_eq!(ours.to_primeorder(), *theirs, "{what} differs");
}

/// `diff_point_p256` / `diff_point_p384`: `mode || ops || k1 || k2 || a || b || rho` (each
/// `Ns` bytes, zero-padded). `P = a G` (or the identity), `Q` one of `b G`, `P`, `-P`, the
/// identity or `2P`; the point formulas, and the group of scalar multiplications `ops % 4`
/// picks (single-point, generator, multi-point, fixed-base tables), must agree with the
/// `primeorder` arithmetic.
pub fn point_target<C: Curve>(data: &[u8])
where
    ProjectivePoint<C>: Group<Scalar = Scalar<C>> + PartialEq + core::fmt::Debug,
{
    let ns = C::SCALAR_LEN;
    let mut buf = vec![0u8; 2 + 5 * ns];
    let n = data.len().min(buf.len());
    buf[..n].copy_from_slice(&data[..n]);
    let (mode, ops) = (buf[0], buf[1]);
    let chunk = |i: usize| &buf[2 + i * ns..2 + (i + 1) * ns];
    let k1 = scalar::<C>(chunk(0), mode >> 3);
    let k2 = scalar::<C>(chunk(1), mode >> 5);
    let g = ProjectivePoint::<C>::generator();
    let rp = if mode & 0x80 != 0 {
        ProjectivePoint::<C>::identity()
    } else {
        g * scalar::<C>(chunk(2), 0)
    };
    let rq = match mode % 8 {
        1 => rp,
        2 => -rp,
        3 => ProjectivePoint::<C>::identity(),
        4 => rp.double(),
        _ => g * scalar::<C>(chunk(3), 0),
    };
    let (p, q) = (
        JacobianPoint::from_primeorder(&rp),
        JacobianPoint::from_primeorder(&rq),
    );
    same(&p, &rp, "conversion");
    let (pa, qa): (Affine<C>, Affine<C>) = (group::to_affine(&p), group::to_affine(&q));
    same(&Point::<C>::from(pa), &rp, "to_affine");
    same(&(p + q), &(rp + rq), "add");
    same(&p.add_affine_complete(&qa), &(rp + rq), "mixed add");
    same(&p.vartime_add(&q), &(rp + rq), "vartime add");
    same(&p.vartime_add_affine(&qa), &(rp + rq), "vartime mixed add");
    same(&p.vartime_sub_affine(&qa), &(rp - rq), "vartime mixed sub");
    same(&p.double(), &rp.double(), "double");
    same(&(-p), &(-rp), "negate");
    if !bool::from(pa.is_identity()) {
        let c = C::decode_compressed(C::encode_compressed(&pa).as_ref()).expect("decode");
        assert!(c == pa, "compressed round trip differs");
        let u = C::decode_uncompressed(C::encode_uncompressed(&pa).as_ref()).expect("decode");
        assert!(u == pa, "uncompressed round trip differs");
    }
    let pk1 = rp * k1;
    match ops % 4 {
        0 => {
            same(&group::mul(&p, &k1), &pk1, "mul");
            same(&group::mul_affine(&pa, &k1), &pk1, "mul_affine");
            same(&group::vartime_mul(&pa, &k1), &pk1, "vartime_mul");
        }
        1 => {
            let (gk1, qk2) = (g * k1, rq * k2);
            same(&group::mul_generator(&k1), &gk1, "mul_generator");
            same(
                &C::generator_table().vartime_mul(&k1),
                &gk1,
                "vartime generator mul",
            );
            same(
                &group::vartime_mul_generator_add(&k1, &k2, &qa),
                &(gk1 + qk2),
                "vartime_mul_generator_add",
            );
        }
        2 => {
            let (qk1, qk2, pk2) = (rq * k1, rq * k2, rp * k2);
            let lin = pk1 + qk2;
            same(
                &group::vartime_lincomb(&[p, q], &[k1, k2]),
                &lin,
                "vartime_lincomb",
            );
            let blind = adapt::ladder_blind::<C>(&scalar::<C>(chunk(4), 0));
            same(
                &group::mul_multi_ct(&[p, q], &[k1, k2], &blind),
                &lin,
                "mul_multi_ct",
            );
            let shared = group::mul_multi_shared_ct(&[p, q], &[[k1, k2], [k2, k1]], &blind);
            same(&shared[0], &lin, "mul_multi_shared_ct");
            same(&shared[1], &(pk2 + qk1), "mul_multi_shared_ct");
            let msm = group::vartime_msm(&[pa, qa], &[k1, k2]).expect("msm");
            same(&msm, &lin, "vartime_msm");
        }
        _ => {
            if !bool::from(pa.is_identity()) {
                let t = FixedBaseTable::new(&pa);
                same(&t.mul(&k1), &pk1, "fixed-base mul");
                same(&t.vartime_mul(&k1), &pk1, "fixed-base vartime mul");
                same(
                    &group::vartime_mul_generator_and_fixed(&k2, &t, &k1),
                    &(g * k2 + pk1),
                    "vartime_mul_generator_and_fixed",
                );
            }
        }
    }
}

macro_rules! h2c_case {
    ($curve:ty, $xmd:expr, $hash:ty, $dst:expr, $msg:expr) => {{
        let ours = <$curve as Curve>::hash_to_curve($xmd, &[$msg], &[$dst]);
        let theirs = hash2curve::hash_from_bytes::<$curve, ExpandMsgXmd<$hash>>(&[$msg], &[$dst]);
        let ours_s = <$curve as Curve>::hash_to_scalar($xmd, &[$msg], &[$dst]);
        let theirs_s = hash2curve::hash_to_scalar::<
            $curve,
            ExpandMsgXmd<$hash>,
            <$curve as MapToCurve>::Length,
        >(&[$msg], &[$dst]);
        if !$dst.is_empty() {
            assert_eq!(ours.is_ok(), theirs.is_ok(), "hash_to_curve errors differ");
            assert_eq!(
                ours_s.is_ok(),
                theirs_s.is_ok(),
                "hash_to_scalar errors differ"
            );
        }
        if let (Ok(o), Ok(t)) = (ours, theirs) {
            same(&o, &t, "hash_to_curve");
        }
        if let (Ok(o), Ok(t)) = (ours_s, theirs_s) {
            assert_eq!(o, t, "hash_to_scalar differs");
        }
    }};
}

/// `diff_hash_to_curve`: `sel || dst_len || dst || msg`; RFC 9380 hash_to_curve (our SSWU and
/// isogeny-free map) and hash_to_field into the scalars, against `elliptic-curve`'s, for each
/// curve and XMD hash the protocols use.
pub fn hash_to_curve_target(data: &[u8]) {
    let Some((sel, d)) = crate::split(data) else {
        return;
    };
    let Some((dl, d)) = crate::split(d) else {
        return;
    };
    let (dst, msg) = d.split_at(usize::from(dl).min(d.len()));
    match sel % 4 {
        0 => h2c_case!(p256::NistP256, Xmd::Sha256, sha2::Sha256, dst, msg),
        1 => h2c_case!(p384::NistP384, Xmd::Sha384, sha2::Sha384, dst, msg),
        2 => h2c_case!(p384::NistP384, Xmd::Sha512, sha2::Sha512, dst, msg),
        _ => h2c_case!(p256::NistP256, Xmd::Sha512, sha2::Sha512, dst, msg),
    }
}
