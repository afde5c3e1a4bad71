//! EMSA-PSS with SHA-384 and MGF1-SHA-384 (RFC 8017 §9.1), the encoding of every RSABSSA
//! variant (RFC 9474 §4), with the salt length fixed by the variant (never detected).

use sha2::{Digest, Sha384};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::{Error, Result};

/// SHA-384's output length, `hLen`.
pub(crate) const H_LEN: usize = 48;

/// MGF1 with SHA-384: `len` bytes of `SHA-384(seed || I2OSP(counter, 4))`, XORed into `out`.
fn mgf1_xor(seed: &[u8], out: &mut [u8]) {
    for (counter, chunk) in out.chunks_mut(H_LEN).enumerate() {
        let c = u32::try_from(counter).unwrap_or(u32::MAX);
        let block = Sha384::new()
            .chain_update(seed)
            .chain_update(c.to_be_bytes())
            .finalize();
        for (o, b) in chunk.iter_mut().zip(block.iter()) {
            *o ^= b;
        }
    }
}

/// `H = SHA-384(0x00 * 8 || SHA-384(msg) || salt)`.
fn h_of(msg: &[u8], salt: &[u8]) -> [u8; H_LEN] {
    let m_hash = Sha384::digest(msg);
    let h = Sha384::new()
        .chain_update([0u8; 8])
        .chain_update(m_hash)
        .chain_update(salt)
        .finalize();
    let mut out = [0u8; H_LEN];
    out.copy_from_slice(&h);
    out
}

/// `EMSA-PSS-ENCODE(msg, em_bits)` with the given salt: `emLen = ceil(em_bits / 8)` bytes.
/// `InvalidLength` ("encoding error") when `emLen < hLen + sLen + 2`.
pub(crate) fn encode(msg: &[u8], em_bits: u32, salt: &[u8]) -> Result<Vec<u8>> {
    let em_len = (em_bits as usize).div_ceil(8);
    if em_len < H_LEN + salt.len() + 2 {
        return Err(Error::InvalidLength);
    }
    let h = h_of(msg, salt);
    let db_len = em_len - H_LEN - 1;
    let mut em = vec![0u8; em_len];
    // DB = PS || 0x01 || salt.
    em[db_len - salt.len() - 1] = 0x01;
    em[db_len - salt.len()..db_len].copy_from_slice(salt);
    mgf1_xor(&h, &mut em[..db_len]);
    em[0] &= 0xff >> (8 * em_len - em_bits as usize);
    em[db_len..db_len + H_LEN].copy_from_slice(&h);
    em[em_len - 1] = 0xbc;
    Ok(em)
}

/// `EMSA-PSS-VERIFY(msg, em, em_bits)` with the salt length `s_len`. The encoded message is
/// public (it comes from a signature): its checks need not be constant time, but they are
/// ordered so that each reads only what the previous one established. The message's hash is
/// compared in constant time.
pub(crate) fn verify(msg: &[u8], em: &[u8], em_bits: u32, s_len: usize) -> bool {
    let em_len = (em_bits as usize).div_ceil(8);
    if em.len() != em_len || em_len < H_LEN + s_len + 2 || em[em_len - 1] != 0xbc {
        return false;
    }
    let db_len = em_len - H_LEN - 1;
    let top_mask = !(0xffu8 >> (8 * em_len - em_bits as usize));
    if em[0] & top_mask != 0 {
        return false;
    }
    let h = &em[db_len..db_len + H_LEN];
    let mut db = em[..db_len].to_vec();
    mgf1_xor(h, &mut db);
    db[0] &= !top_mask;
    let ps_len = db_len - s_len - 1;
    let ok_ps = db[..ps_len].iter().all(|&b| b == 0) && db[ps_len] == 0x01;
    // The message may be secret until the signature is sent (a Privacy Pass client's token
    // input holds its nonce): compared in constant time, only the outcome published.
    let ok = ok_ps && crate::group::declassify(h_of(msg, &db[db_len - s_len..]).ct_eq(h));
    db.zeroize();
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_then_verify_and_refusals() {
        let salt = [7u8; 48];
        for em_bits in [2047u32, 2048, 2049, 4095] {
            let em = encode(b"msg", em_bits, &salt).unwrap_or_default();
            assert!(verify(b"msg", &em, em_bits, 48), "{em_bits}");
            assert!(!verify(b"msh", &em, em_bits, 48));
            assert!(!verify(b"msg", &em, em_bits, 0), "salt length detected");
            let mut bad = em.clone();
            bad[10] ^= 1;
            assert!(!verify(b"msg", &bad, em_bits, 48));
            let mut bad = em.clone();
            let last = bad.len() - 1;
            bad[last] = 0xbd;
            assert!(!verify(b"msg", &bad, em_bits, 48));
        }
        let em = encode(b"msg", 2047, &[]).unwrap_or_default();
        assert!(verify(b"msg", &em, 2047, 0));
        assert!(!verify(b"msg", &em, 2047, 48));
        assert_eq!(encode(b"m", 8 * 97, &salt), Err(Error::InvalidLength));
        assert!(encode(b"m", 8 * 98, &salt).is_ok());
    }
}
