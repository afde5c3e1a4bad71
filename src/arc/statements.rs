//! The ARC proof statements (crypto-01 §"Proofs"; allocation order is part of the transcript)
//! and the range proof's bases ([`compute_bases`]), which fix the presentation statement's size
//! and which issuance checks a presentation limit against.

use super::sigma::{Equation, Statement, MAX_EQUATIONS};
use super::MAX_RANGE_BITS;
use crate::{Error, Result};

/// The range-proof bases for `[0, limit)` (crypto-01 §"Range Proof", `ComputeBases`), in
/// descending order: `2^0, ..., 2^(k-2)` and `limit - 2^(k-1)`, with `k = ceil(log2 limit)`.
/// Returns the array and `k`.
///
/// # Errors
/// [`Error::LimitExceeded`] for `limit < 2`.
pub fn compute_bases(limit: u32) -> Result<([u64; MAX_RANGE_BITS], usize)> {
    if limit < 2 {
        return Err(Error::LimitExceeded);
    }
    let k = (32 - (limit - 1).leading_zeros()) as usize;
    let mut bases = [0u64; MAX_RANGE_BITS];
    // Powers 2^0 .. 2^(k-2), then the remainder base; sorted descending (public data).
    for (i, b) in bases[..k - 1].iter_mut().enumerate() {
        *b = 1u64 << i;
    }
    bases[k - 1] = u64::from(limit) - (1u64 << (k - 1));
    bases[..k].sort_unstable_by(|a, b| b.cmp(a));
    Ok((bases, k))
}

// Request: scalars [m1, m2, r1, r2], elements [G, H, m1Enc, m2Enc].
pub(crate) const REQUEST_SCALARS: usize = 4;
pub(crate) const REQUEST_ELEMENTS: usize = 4;
const REQUEST_EQS: [Equation; 2] = [
    // m1Enc = m1 * G + r1 * H
    Equation::new(2, &[(0, 0), (2, 1)]),
    // m2Enc = m2 * G + r2 * H
    Equation::new(3, &[(1, 0), (3, 1)]),
];

pub(crate) fn request_statement() -> Statement<'static> {
    Statement {
        scalars: REQUEST_SCALARS,
        elements: REQUEST_ELEMENTS,
        equations: &REQUEST_EQS,
    }
}

// Response: scalars [x0, x1, x2, xb, b, t1, t2], elements [G, H, m1Enc, m2Enc, U, encUPrime,
// X0, X1, X2, X0Aux, X1Aux, X2Aux, HAux].
pub(crate) const RESPONSE_SCALARS: usize = 7;
pub(crate) const RESPONSE_ELEMENTS: usize = 13;
const RESPONSE_EQS: [Equation; 11] = [
    // X0 = x0 * G + xb * H
    Equation::new(6, &[(0, 0), (3, 1)]),
    // X1 = x1 * H
    Equation::new(7, &[(1, 1)]),
    // X2 = x2 * H
    Equation::new(8, &[(2, 1)]),
    // HAux = b * H
    Equation::new(12, &[(4, 1)]),
    // X0Aux = xb * HAux
    Equation::new(9, &[(3, 12)]),
    // X1Aux = t1 * H
    Equation::new(10, &[(5, 1)]),
    // X1Aux = b * X1
    Equation::new(10, &[(4, 7)]),
    // X2Aux = b * X2
    Equation::new(11, &[(4, 8)]),
    // X2Aux = t2 * H
    Equation::new(11, &[(6, 1)]),
    // U = b * G
    Equation::new(4, &[(4, 0)]),
    // encUPrime = b * X0 + t1 * m1Enc + t2 * m2Enc
    Equation::new(5, &[(4, 6), (5, 2), (6, 3)]),
];

pub(crate) fn response_statement() -> Statement<'static> {
    Statement {
        scalars: RESPONSE_SCALARS,
        elements: RESPONSE_ELEMENTS,
        equations: &RESPONSE_EQS,
    }
}

// Legacy presentation: scalars [m1, z, -r, nonce], elements [G, H, U', UPrimeCommit, m1Commit,
// V, X1, tag, T, m1Tag].
pub(crate) const LEGACY_PRESENTATION_SCALARS: usize = 4;
pub(crate) const LEGACY_PRESENTATION_ELEMENTS: usize = 10;
const LEGACY_PRESENTATION_EQS: [Equation; 4] = [
    // m1Commit = m1 * U' + z * H
    Equation::new(4, &[(0, 2), (1, 1)]),
    // V = z * X1 + (-r) * G
    Equation::new(5, &[(1, 6), (2, 0)]),
    // T = m1 * tag + nonce * tag
    Equation::new(8, &[(0, 7), (3, 7)]),
    // m1Tag = m1 * tag
    Equation::new(9, &[(0, 7)]),
];

pub(crate) fn legacy_presentation_statement() -> Statement<'static> {
    Statement {
        scalars: LEGACY_PRESENTATION_SCALARS,
        elements: LEGACY_PRESENTATION_ELEMENTS,
        equations: &LEGACY_PRESENTATION_EQS,
    }
}

// v2 presentation: scalars [m1, z, -r, nonce, nonceBlinding, b[0..k], s[0..k], s2[0..k]],
// elements [G, H, U', UPrimeCommit, m1Commit, V, X1, tag, T, nonceCommit, D[0..k]] (no D
// elements when k = 1: D[0] is nonceCommit, as in the reference code).
pub(crate) const PRESENTATION_BASE_SCALARS: usize = 5;
pub(crate) const PRESENTATION_BASE_ELEMENTS: usize = 10;
pub(crate) const NONCE_COMMIT: u8 = 9;

/// Scalar index of `b[i]`, `s[i]` and `s2[i]` for `k` bits. The draft text allocates
/// `b[0..k]`, then `s[0..k]`, then `s2[0..k]` (crypto-01 §"Range Proof Creation"); the
/// published vectors (k = 1) cannot tell this apart from the interleaved order of the PoC.
pub(crate) const fn range_scalar(k: usize, which: usize, i: usize) -> usize {
    PRESENTATION_BASE_SCALARS + which * k + i
}

/// Element index of `D[i]`.
pub(crate) const fn d_element(k: usize, i: usize) -> usize {
    if k == 1 {
        NONCE_COMMIT as usize
    } else {
        PRESENTATION_BASE_ELEMENTS + i
    }
}

pub(crate) fn presentation_counts(k: usize) -> (usize, usize, usize) {
    let elements = PRESENTATION_BASE_ELEMENTS + if k == 1 { 0 } else { k };
    (PRESENTATION_BASE_SCALARS + 3 * k, elements, 4 + 2 * k)
}

/// Builds the v2 presentation statement for `k` range bits into `eqs`.
pub(crate) fn presentation_statement(
    k: usize,
    eqs: &mut [Equation; MAX_EQUATIONS],
) -> Statement<'_> {
    let (scalars, elements, n) = presentation_counts(k);
    // m1Commit = m1 * U' + z * H
    eqs[0] = Equation::new(4, &[(0, 2), (1, 1)]);
    // V = z * X1 + (-r) * G
    eqs[1] = Equation::new(5, &[(1, 6), (2, 0)]);
    // nonceCommit = nonce * G + nonceBlinding * H
    eqs[2] = Equation::new(NONCE_COMMIT, &[(3, 0), (4, 1)]);
    // T = m1 * tag + nonce * tag
    eqs[3] = Equation::new(8, &[(0, 7), (3, 7)]);
    for i in 0..k {
        let d = d_element(k, i) as u8;
        let b = range_scalar(k, 0, i) as u8;
        let s = range_scalar(k, 1, i) as u8;
        let s2 = range_scalar(k, 2, i) as u8;
        // D[i] = b[i] * G + s[i] * H
        eqs[4 + 2 * i] = Equation::new(d, &[(b, 0), (s, 1)]);
        // D[i] = b[i] * D[i] + s2[i] * H
        eqs[5 + 2 * i] = Equation::new(d, &[(b, d), (s2, 1)]);
    }
    Statement {
        scalars,
        elements,
        equations: &eqs[..n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases() -> Result<()> {
        let (b, k) = compute_bases(2)?;
        assert_eq!((k, &b[..k]), (1, &[1u64][..]));
        let (b, k) = compute_bases(5)?;
        assert_eq!(&b[..k], &[2, 1, 1]);
        let (b, k) = compute_bases(7)?;
        assert_eq!(&b[..k], &[3, 2, 1]);
        let (b, k) = compute_bases(8)?;
        assert_eq!(&b[..k], &[4, 2, 1]);
        let (b, k) = compute_bases(u32::MAX)?;
        assert_eq!(k, 32);
        assert_eq!(b[..k].iter().sum::<u64>(), u64::from(u32::MAX) - 1);
        for l in 2..300u32 {
            let (b, k) = compute_bases(l)?;
            assert_eq!(b[..k].iter().sum::<u64>(), u64::from(l) - 1);
            assert!(b[..k].windows(2).all(|w| w[0] >= w[1]));
        }
        assert!(compute_bases(1).is_err());
        assert!(compute_bases(0).is_err());
        Ok(())
    }
}
