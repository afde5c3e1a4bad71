//! Field inversion by Fermat's little theorem (`a^(p-2)`) and the `sqrt_ratio` exponentiation
//! of hash-to-curve (`a^((p-3)/4)`) with fixed addition chains.
//!
//! The curve crates invert with Bernstein–Yang divsteps, which cost about as much as 700 field
//! multiplications on P-384; the chains below take 383 squarings and 14 multiplications
//! (P-384) or 255 squarings and 12 multiplications (P-256). The exponent is public and fixed, so
//! the running time does not depend on the input. Zero maps to zero.

use elliptic_curve::ff::Field;

/// `a^(2^n)`.
#[inline(always)]
fn sqn<F: Field>(a: F, n: usize) -> F {
    let mut r = a;
    for _ in 0..n {
        r = r.square();
    }
    r
}

/// The common prefix of both chains: `(x1, x2, x3, x15, x30)` with `xk = a^(2^k - 1)`.
#[inline(always)]
fn x30<F: Field>(x1: F) -> (F, F, F, F) {
    let x2 = sqn(x1, 1) * x1;
    let x3 = sqn(x2, 1) * x1;
    let x6 = sqn(x3, 3) * x3;
    let x12 = sqn(x6, 6) * x6;
    let x15 = sqn(x12, 3) * x3;
    let x30 = sqn(x15, 15) * x15;
    (x2, x3, x15, x30)
}

/// `a^((p-3)/4)` for P-256, the exponent of `sqrt_ratio` (RFC 9380 Appendix F.2.1.2).
/// `(p-3)/4 = (p-2) >> 2` = 1^32 0^31 1 0^96 1^94 (binary runs from the top).
pub(crate) fn pow_p256_c1(a: &p256::FieldElement) -> p256::FieldElement {
    let x1 = *a;
    let (x2, _x3, _x15, x30) = x30(x1);
    let x32 = sqn(x30, 2) * x2;
    let x64 = sqn(x32, 32) * x32;
    let x94 = sqn(x64, 30) * x30;
    let mut t = sqn(x32, 32) * x1;
    t = sqn(t, 96);
    sqn(t, 94) * x94
}

/// `a^(p-2)` for P-256, `p - 2` = 1^32 0^31 1 0^96 1^94 0 1 (binary runs from the top), that is
/// `a^((p-3)/4)` squared twice times `a`.
pub(crate) fn invert_p256(a: &p256::FieldElement) -> p256::FieldElement {
    sqn(pow_p256_c1(a), 2) * a
}

/// `a^((p-3)/4)` for P-384, the exponent of `sqrt_ratio` (RFC 9380 Appendix F.2.1.2).
/// `(p-3)/4 = (p-2) >> 2` = 1^255 0 1^32 0^64 1^30 (binary runs from the top).
pub(crate) fn pow_p384_c1(a: &p384::FieldElement) -> p384::FieldElement {
    let x1 = *a;
    let (x2, _x3, x15, x30) = x30(x1);
    let x32 = sqn(x30, 2) * x2;
    let x60 = sqn(x30, 30) * x30;
    let x120 = sqn(x60, 60) * x60;
    let x240 = sqn(x120, 120) * x120;
    let x255 = sqn(x240, 15) * x15;
    let t = sqn(x255, 33) * x32;
    sqn(t, 94) * x30
}

/// `a^(p-2)` for P-384, `p - 2` = 1^255 0 1^32 0^64 1^30 0 1 (binary runs from the top), that
/// is `a^((p-3)/4)` squared twice times `a`.
pub(crate) fn invert_p384(a: &p384::FieldElement) -> p384::FieldElement {
    sqn(pow_p384_c1(a), 2) * a
}

#[cfg(test)]
mod tests {
    use super::*;
    use elliptic_curve::ff::Field;

    #[test]
    fn chains_match_the_curve_crates() {
        let mut rng = rand::thread_rng();
        assert_eq!(
            invert_p256(&p256::FieldElement::ZERO),
            p256::FieldElement::ZERO
        );
        assert_eq!(
            invert_p384(&p384::FieldElement::ZERO),
            p384::FieldElement::ZERO
        );
        for _ in 0..50 {
            let a = p256::FieldElement::random(&mut rng);
            assert_eq!(invert_p256(&a), a.invert().unwrap());
            let b = p384::FieldElement::random(&mut rng);
            assert_eq!(invert_p384(&b), b.invert().unwrap());
        }
        for _ in 0..50 {
            use elliptic_curve::hash2curve::OsswuMap;
            let a = p256::FieldElement::random(&mut rng);
            let c1 = <p256::FieldElement as OsswuMap>::PARAMS.c1;
            assert_eq!(pow_p256_c1(&a), a.pow_vartime(c1));
            let b = p384::FieldElement::random(&mut rng);
            let c1 = <p384::FieldElement as OsswuMap>::PARAMS.c1;
            assert_eq!(pow_p384_c1(&b), b.pow_vartime(c1));
        }
        for a in [p256::FieldElement::ONE, -p256::FieldElement::ONE] {
            assert_eq!(invert_p256(&a), a.invert().unwrap());
        }
        for a in [p384::FieldElement::ONE, -p384::FieldElement::ONE] {
            assert_eq!(invert_p384(&a), a.invert().unwrap());
        }
    }
}
