//! `random_scalar` against the curve crates' `NonZeroScalar` generation on the same byte stream
//! (both rand_core 0.10), and its rejection of `n`, values above it, and zero.

#![cfg(test)] // A test-only module: its unwraps and expects are test assertions.

use elliptic_curve::ff::Field;
use elliptic_curve::{Generate, NonZeroScalar};

use super::{decode_scalar, random_scalar, Curve, Scalar};

/// Replays given bytes, for both rand_core lines; counts what was drawn.
struct Stream {
    bytes: Vec<u8>,
    at: usize,
}

impl Stream {
    fn take(&mut self, dst: &mut [u8]) {
        dst.copy_from_slice(&self.bytes[self.at..self.at + dst.len()]);
        self.at += dst.len();
    }
}

impl rand_core::TryRng for Stream {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        self.take(&mut b);
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        self.take(&mut b);
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.take(dst);
        Ok(())
    }
}
impl rand_core::TryCryptoRng for Stream {}

/// The order `n` as big-endian bytes (`-1 + 1` carried by hand: `(n - 1) + 1`).
fn order_bytes<C: Curve>() -> Vec<u8> {
    let mut b = C::scalar_bytes(&-Scalar::<C>::ONE).as_ref().to_vec();
    for byte in b.iter_mut().rev() {
        let (v, carry) = byte.overflowing_add(1);
        *byte = v;
        if !carry {
            break;
        }
    }
    b
}

fn rejects_then_matches_the_curve_crate<C: Curve>() {
    let len = C::SCALAR_LEN;
    let mut rng = rand::rng();
    let mut kept = vec![0u8; len];
    rand_core::Rng::fill_bytes(&mut rng, &mut kept);
    kept[0] &= 0x7f; // below n
                     // n, all-ones, zero: each rejected; then `kept`.
    let bytes = [
        order_bytes::<C>(),
        vec![0xff; len],
        vec![0; len],
        kept.clone(),
    ]
    .concat();
    let mut ours = Stream {
        bytes: bytes.clone(),
        at: 0,
    };
    let s = random_scalar::<C>(&mut ours);
    assert_eq!(ours.at, 4 * len, "three rejected draws, then the kept one");
    assert_eq!(s, decode_scalar::<C>(&kept).unwrap());
    let mut theirs = Stream { bytes, at: 0 };
    assert_eq!(
        s,
        *NonZeroScalar::<C>::generate_from_rng(&mut theirs).as_ref()
    );
    assert_eq!(theirs.at, 4 * len);
    // Random streams: the same scalars from the same bytes.
    for _ in 0..200 {
        let mut bytes = vec![0u8; 4 * len];
        rand_core::Rng::fill_bytes(&mut rng, &mut bytes);
        let mut ours = Stream {
            bytes: bytes.clone(),
            at: 0,
        };
        let mut theirs = Stream { bytes, at: 0 };
        assert_eq!(
            random_scalar::<C>(&mut ours),
            *NonZeroScalar::<C>::generate_from_rng(&mut theirs).as_ref()
        );
        assert_eq!(ours.at, theirs.at);
    }
}

#[test]
fn random_scalar_p256() {
    rejects_then_matches_the_curve_crate::<p256::NistP256>();
}

#[test]
fn random_scalar_p384() {
    rejects_then_matches_the_curve_crate::<p384::NistP384>();
}
