//! The simplified SWU map of RFC 9380 §6.6.2 for `q = 3 mod 4`, straight-line and constant time.
//!
//! Follows the optimized `map_to_curve_simple_swu` of RFC 9380 Appendix F.2 with the
//! `sqrt_ratio` of Appendix F.2.1.2: one exponentiation by the public constant `(q-3)/4` (a
//! fixed addition chain, see [`super::field`]) per map, no square root and no inversion. The
//! point comes out in Jacobian coordinates with `Z` the denominator of `x`, so `x = n/d` is
//! never divided out. Both supported curves have cofactor 1 and need no isogeny.

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use super::point::{Fe, JacobianPoint};
use super::{Curve, FieldOps};

/// RFC 9380 `sqrt_ratio(u, v)` for `q = 3 mod 4` (Appendix F.2.1.2): `(true, sqrt(u/v))` when
/// `u/v` is a square, `(false, sqrt(Z * u/v))` otherwise. `v` must be non-zero. Constant time.
#[inline]
pub(crate) fn sqrt_ratio<C: Curve>(u: &Fe<C>, v: &Fe<C>) -> (Choice, Fe<C>) {
    let tv1 = v.square();
    let tv2 = *u * v;
    let tv1 = tv1 * tv2;
    let y1 = C::pow_c1(&tv1) * tv2;
    let y2 = y1 * C::SSWU_C2;
    let is_qr = (y1.square() * v).ct_eq(u);
    (is_qr, Fe::<C>::conditional_select(&y2, &y1, is_qr))
}

/// RFC 9380 `map_to_curve_simple_swu(u)`, returned in Jacobian coordinates (never the
/// identity). Constant time.
pub(crate) fn map_to_curve<C: Curve>(u: &Fe<C>) -> JacobianPoint<C> {
    let a = C::EQ_A;
    let b = C::EQ_B;
    let z = C::SSWU_Z;
    // Step numbers of RFC 9380 Appendix F.2.
    let tv1 = z * u.square(); // 1-2
    let tv2 = tv1.square() + tv1; // 3-4
    let tv3 = b * (tv2 + Fe::<C>::ONE); // 5-6: x1 numerator
    let tv4 = a * Fe::<C>::conditional_select(&z, &-tv2, !tv2.is_zero()); // 7-8: x denominator
    let tv6 = tv4.square(); // 10
    let gx_num = (tv3.square() + a * tv6) * tv3 + b * tv6 * tv4; // 9, 11-13, 15-16
    let gx_den = tv6 * tv4; // 14: tv4^3
    let (is_gx1_square, y1) = sqrt_ratio::<C>(&gx_num, &gx_den); // 18
    let x_num = Fe::<C>::conditional_select(&(tv1 * tv3), &tv3, is_gx1_square); // 17, 21
    let y = Fe::<C>::conditional_select(&(tv1 * u * y1), &y1, is_gx1_square); // 19-20, 22
                                                                              // 23-24: sgn0 (q prime, m = 1) is the parity of the canonical representative.
    let y = Fe::<C>::conditional_select(&y, &-y, u.is_odd() ^ y.is_odd());
    // 25: (x_num / tv4, y) is (x_num * tv4 : y * tv4^3 : tv4) in Jacobian coordinates.
    JacobianPoint {
        x: x_num * tv4,
        y: y * gx_den,
        z: tv4,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::group::field::TestField;
    use elliptic_curve::ff::PrimeField;
    use hash2curve::MapToCurve;

    fn constants<C: Curve>(z: u64, c2: &str)
    where
        Fe<C>: TestField,
    {
        assert_eq!(C::SSWU_Z, -Fe::<C>::from_small(z));
        assert_eq!(C::SSWU_C2.square(), -C::SSWU_Z);
        assert_eq!(hex::encode(C::SSWU_C2.to_repr()), c2);
    }

    /// The curve constants of our field type agree with the curve crates'.
    #[test]
    fn curve_constants() {
        fn check<C: Curve>()
        where
            Fe<C>: TestField,
        {
            use elliptic_curve::hazmat::FieldArithmetic;
            use primeorder::PrimeCurveParams;
            let conv = |x: &<C as FieldArithmetic>::FieldElement| {
                let mut repr = <Fe<C> as FieldOps>::Repr::default();
                repr.as_mut().copy_from_slice(&x.to_repr());
                Fe::<C>::from_repr(repr).unwrap()
            };
            let (gx, gy) = <C as PrimeCurveParams>::GENERATOR;
            assert_eq!(C::EQ_A, conv(&<C as PrimeCurveParams>::EQUATION_A));
            assert_eq!(C::EQ_B, conv(&<C as PrimeCurveParams>::EQUATION_B));
            assert_eq!(C::GEN_XY, (conv(&gx), conv(&gy)));
        }
        check::<p256::NistP256>();
        check::<p384::NistP384>();
    }

    #[test]
    fn sswu_constants() {
        constants::<p256::NistP256>(
            10,
            "25ac71c31e27646736870398ae7f554d8472e008b3aa2a49d332cbd81bcc3b80",
        );
        constants::<p384::NistP384>(
            12,
            "d5334b59a94fdb638e0faff17c25d02280671c7c2974ac78\
             e078d03463347f39c3f21e0657f081e6eb1d13970a59d94c",
        );
    }

    fn map_matches<C: Curve>(
        reference: impl Fn(&<Fe<C> as TestField>::Crate) -> primeorder::ProjectivePoint<C>,
    ) where
        Fe<C>: TestField,
    {
        let mut rng = rand::rng();
        // 0 and +-1/sqrt(-Z) are the exceptional inputs (`Z^2 u^4 + Z u^2 = 0`, step 7).
        let e = C::SSWU_C2.invert_fe();
        let ze2 = C::SSWU_Z * e.square();
        assert!(bool::from((ze2.square() + ze2).is_zero()));
        let mut inputs = vec![Fe::<C>::ZERO, Fe::<C>::ONE, -Fe::<C>::ONE, e, -e];
        inputs.extend((0..200).map(|_| Fe::<C>::random_fe(&mut rng)));
        for u in inputs {
            let p = map_to_curve::<C>(&u);
            assert!(!bool::from(p.is_identity()));
            let a = p.to_affine();
            assert!(bool::from(a.is_on_curve()));
            assert_eq!(p.to_primeorder(), reference(&u.to_crate()));
        }
        // sqrt_ratio on both branches.
        for _ in 0..50 {
            let u = Fe::<C>::random_fe(&mut rng);
            let v = Fe::<C>::random_fe(&mut rng);
            let (qr, y) = sqrt_ratio::<C>(&u, &v);
            let vinv = v.invert_fe();
            if bool::from(qr) {
                assert_eq!(y.square(), u * vinv);
            } else {
                assert_eq!(y.square(), C::SSWU_Z * u * vinv);
            }
        }
    }

    #[test]
    fn map_matches_curve_crates() {
        map_matches::<p256::NistP256>(|u| p256::NistP256::map_to_curve(*u));
        map_matches::<p384::NistP384>(|u| p384::NistP384::map_to_curve(*u));
    }
}
