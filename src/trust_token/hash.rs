//! Hashing helpers: token inputs and an `expand_message_xmd` hash-to-scalar whose message
//! prefix is absorbed once and shared by many outputs.
//!
//! BoringSSL's batch weights are `e_i = HashToScalar(label ‖ transcript ‖ u16(i))` over the
//! whole batch transcript (`pmbtoken.cc` `hash_c_batch`, `voprf.cc` `hash_to_scalar_batch`).
//! Hashing the transcript once per `i` is quadratic in the batch size; here the hash state
//! after `Z_pad ‖ label ‖ transcript` (RFC 9380 §5.3.1 `b_0`) is cloned per `i` instead.

use sha2::{Digest, Sha384, Sha512};

use crate::group::{Curve, Scalar, Xmd};

use super::{C, NONCE_SIZE};

/// The token input `t`: the salt itself, or `SHA-512(salt ‖ msg)` for the `*_over_message`
/// variants (`pmbtoken_blind` / `voprf_blind` in BoringSSL).
pub(crate) fn token_input(salt: &[u8; NONCE_SIZE], msg: Option<&[u8]>) -> [u8; NONCE_SIZE] {
    match msg {
        None => *salt,
        Some(m) => {
            let mut h = Sha512::new();
            h.update(salt);
            h.update(m);
            let mut out = [0u8; NONCE_SIZE];
            out.copy_from_slice(&h.finalize());
            out
        }
    }
}

#[derive(Clone)]
enum State {
    Sha384(Sha384),
    Sha512(Sha512),
}

/// RFC 9380 `hash_to_field` into the P-384 scalar field (`L = 72`) with a streamed message.
#[derive(Clone)]
pub(crate) struct ScalarHasher {
    state: State,
    dst: &'static [u8],
}

/// Output length of `expand_message_xmd` for one P-384 scalar (`k = 192`).
const L: usize = 72;

fn expand<D: Digest + Clone>(mut h: D, dst: &[u8]) -> [u8; L] {
    // DST_prime = DST ‖ I2OSP(len(DST), 1); the DSTs used here are all shorter than 256 bytes.
    let dst_len = [dst.len() as u8];
    h.update((L as u16).to_be_bytes());
    h.update([0u8]);
    h.update(dst);
    h.update(dst_len);
    let b0 = h.finalize();
    let mut out = [0u8; L];
    let mut prev = {
        let mut h = D::new();
        h.update(&b0);
        h.update([1u8]);
        h.update(dst);
        h.update(dst_len);
        h.finalize()
    };
    let mut pos = 0;
    let mut i = 1u8;
    loop {
        let take = (L - pos).min(prev.len());
        out[pos..pos + take].copy_from_slice(&prev[..take]);
        pos += take;
        if pos == L {
            break;
        }
        i += 1;
        let mut h = D::new();
        let mut x = b0.clone();
        for (a, b) in x.iter_mut().zip(prev.iter()) {
            *a ^= b;
        }
        h.update(&x);
        h.update([i]);
        h.update(dst);
        h.update(dst_len);
        prev = h.finalize();
    }
    out
}

impl ScalarHasher {
    /// A hasher for `HashToScalar` with `expand_message_xmd` over `xmd` and the DST `dst`.
    /// Only SHA-384 and SHA-512 are used by Trust Tokens; SHA-256 falls back to SHA-384's
    /// block-size-128 construction and is never requested.
    pub(crate) fn new(xmd: Xmd, dst: &'static [u8]) -> Self {
        // Z_pad: one block (128 bytes for both SHA-384 and SHA-512) of zeros.
        let zpad = [0u8; 128];
        let state = match xmd {
            Xmd::Sha512 => State::Sha512(Sha512::new_with_prefix(zpad)),
            Xmd::Sha384 | Xmd::Sha256 => State::Sha384(Sha384::new_with_prefix(zpad)),
        };
        Self { state, dst }
    }

    /// Absorbs message bytes.
    pub(crate) fn update(&mut self, bytes: &[u8]) -> &mut Self {
        match &mut self.state {
            State::Sha384(h) => h.update(bytes),
            State::Sha512(h) => h.update(bytes),
        }
        self
    }

    /// The scalar of everything absorbed followed by `suffix`; the hasher stays usable.
    pub(crate) fn finish_with(&self, suffix: &[u8]) -> Scalar<C> {
        let okm = match &self.state {
            State::Sha384(h) => {
                let mut h = h.clone();
                h.update(suffix);
                expand(h, self.dst)
            }
            State::Sha512(h) => {
                let mut h = h.clone();
                h.update(suffix);
                expand(h, self.dst)
            }
        };
        C::scalar_from_okm(&okm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::Curve;

    #[test]
    fn matches_group_hash_to_scalar() {
        for xmd in [Xmd::Sha384, Xmd::Sha512] {
            for len in [0usize, 1, 63, 64, 200, 1000] {
                let msg: Vec<u8> = (0..len).map(|i| i as u8).collect();
                let dst: &'static [u8] = b"PMBTokens PST V1 HashC\0";
                let mut h = ScalarHasher::new(xmd, dst);
                h.update(&msg[..len / 2]).update(&msg[len / 2..]);
                let a = h.finish_with(b"\x00\x07");
                let b = C::hash_to_scalar(xmd, &[&msg, b"\x00\x07"], &[dst]).unwrap();
                assert_eq!(a, b, "{xmd:?} {len}");
            }
        }
    }
}
