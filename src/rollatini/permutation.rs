//! The permutation `P` of P-256 elements and its inverse `Pinv` (IHAT §6.2.3): an eight-round
//! Feistel network over 33-byte strings (the compressed encoding with its prefix `0x02`/`0x03`
//! replaced by its low bit), walked along its cycle until the result decodes.
//!
//! [`vartime_p`] is for public points (the Moderator's `P(Q)`, the vectors). [`pair`] derives
//! a commitment key from a secret point: every step computes both directions and selects one
//! in constant time, so the only secret-dependent quantity, the number of steps, equals the
//! length of the public walk from `Q` to `P(Q)` (IHAT §6.2.3.1: key generation must not leak
//! the binding direction).

use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

use super::{Affine, C, ELEMENT_LEN};
use crate::group::{validation, Curve};
use crate::{Error, Result};

/// An encoding with its prefix reduced to its low bit.
type Buf = [u8; ELEMENT_LEN];

/// Length of the left half (it carries the prefix bit).
const LEFT: usize = 17;

/// A bound on the walk: a cycle of the permutation has at most `2^264` strings, but a walk
/// ends at the first valid encoding (about half of all strings are), so `2^-256`-unlikely
/// walks are refused rather than run for ever.
const MAX_STEPS: usize = 512;

/// Which way to walk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Direction {
    /// `P`.
    Forward,
    /// `Pinv`.
    Backward,
}

/// `half ^= SHA-256(other || "<side> round <i>")[..len(half)]`.
fn round(buf: &mut Buf, left_side: bool, i: u8) {
    let (left, right) = buf.split_at_mut(LEFT);
    let mut h = Sha256::new();
    let mut digest;
    if left_side {
        h.update(&*right);
        h.update(b"left round ");
        h.update([b'0' + i]);
        digest = h.finalize();
        for (b, m) in left.iter_mut().zip(digest.iter()) {
            *b ^= m;
        }
        // The prefix bit only.
        left[0] &= 1;
    } else {
        h.update(&*left);
        h.update(b"right round ");
        h.update([b'0' + i]);
        digest = h.finalize();
        for (b, m) in right.iter_mut().zip(digest.iter()) {
            *b ^= m;
        }
    }
    digest.as_mut_slice().zeroize();
}

/// `PermuteBytes` (forward) or its inverse.
fn permute(buf: &mut Buf, dir: Direction) {
    match dir {
        Direction::Forward => {
            for i in 0..4 {
                round(buf, true, i);
                round(buf, false, i);
            }
        }
        Direction::Backward => {
            for i in (0..4).rev() {
                round(buf, false, i);
                round(buf, true, i);
            }
        }
    }
}

fn to_buf(p: &Affine<C>) -> Result<Buf> {
    let mut buf = super::encode_nonidentity(p)?;
    buf[0] -= 2;
    Ok(buf)
}

/// Decodes a string whose first byte is 0 or 1. Constant time in `buf` up to its validity,
/// which the caller publishes anyway (it ends the walk): the prefix is always 2 or 3, so the
/// decoder's only data-dependent outcome is on the curve or not.
fn from_buf(buf: &Buf) -> Option<Affine<C>> {
    let mut bytes = *buf;
    bytes[0] = bytes[0].wrapping_add(2);
    let p = C::decode_compressed(&bytes).ok();
    bytes.zeroize();
    p
}

/// `P(p)` or `Pinv(p)` for a public point, variable time.
///
/// # Errors
/// [`Error::IdentityElement`] for the identity; [`Error::InvalidInput`] past [`MAX_STEPS`].
pub(crate) fn vartime_p(p: &Affine<C>, dir: Direction) -> Result<Affine<C>> {
    let mut buf = to_buf(p)?;
    for _ in 0..MAX_STEPS {
        permute(&mut buf, dir);
        if let Some(q) = from_buf(&buf) {
            return Ok(q);
        }
    }
    Err(Error::InvalidInput)
}

/// `PermutationPair(element, bind_left)`: `(Q, P(Q))` with `P(Q) = element` when
/// `bind_left`, and `Q = element` otherwise. Constant time in `element` and `bind_left`
/// except for the number of steps, which is that of the walk from `Q` to `P(Q)` (public:
/// `Q` is sent).
///
/// # Errors
/// [`Error::IdentityElement`] for the identity; [`Error::InvalidInput`] past [`MAX_STEPS`].
pub(crate) fn pair(element: &Affine<C>, bind_left: Choice) -> Result<(Affine<C>, Affine<C>)> {
    let mut start = to_buf(element)?;
    let mut buf = start;
    let mut end = None;
    for _ in 0..MAX_STEPS {
        let mut fwd = buf;
        permute(&mut fwd, Direction::Forward);
        let mut bwd = buf;
        permute(&mut bwd, Direction::Backward);
        for ((b, f), w) in buf.iter_mut().zip(fwd.iter()).zip(bwd.iter()) {
            *b = u8::conditional_select(f, w, bind_left);
        }
        fwd.zeroize();
        bwd.zeroize();
        // Published: every string on the chosen walk lies on the public walk from `Q` to
        // `P(Q)` (anyone can recompute it from the sent `Q`); only the direction is secret.
        validation::publish(&mut buf);
        if let Some(p) = from_buf(&buf) {
            end = Some(p);
            break;
        }
    }
    start.zeroize();
    buf.zeroize();
    let end = end.ok_or(Error::InvalidInput)?;
    // left = bind_left ? end : element; right = bind_left ? element : end.
    let q = Affine::<C>::conditional_select(element, &end, bind_left);
    let pq = Affine::<C>::conditional_select(&end, element, bind_left);
    Ok((q, pq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feistel_inverts() {
        let mut buf = [7u8; ELEMENT_LEN];
        buf[0] = 1;
        let orig = buf;
        permute(&mut buf, Direction::Forward);
        assert_ne!(buf, orig);
        permute(&mut buf, Direction::Backward);
        assert_eq!(buf, orig);
    }

    #[test]
    fn pair_agrees_with_the_walks() {
        let g = Affine::<C>::generator();
        let p = vartime_p(&g, Direction::Forward).unwrap(); // ok: test
        let pinv = vartime_p(&g, Direction::Backward).unwrap(); // ok: test
        assert_eq!(vartime_p(&p, Direction::Backward).unwrap(), g); // ok: test
        assert_eq!(pair(&g, Choice::from(0)).unwrap(), (g, p)); // ok: test
        assert_eq!(pair(&g, Choice::from(1)).unwrap(), (pinv, g)); // ok: test
    }
}
