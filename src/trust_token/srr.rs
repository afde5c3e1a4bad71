//! `experiment_v1`'s signed redemption record (SRR), feature `srr`.
//!
//! BoringSSL's `TRUST_TOKEN_CLIENT_finish_redemption` (`crypto/trust_token/trust_token.cc`): for
//! a method with `has_srr` the issuer's redemption response is
//! `u16 len ‖ SRR ‖ u16 len ‖ signature`, the signature a pure Ed25519 (RFC 8032) signature of
//! the SRR bytes alone (no prefix or context) under the key of
//! `TRUST_TOKEN_CLIENT_set_srr_key`; nothing may follow it. For the other methods the response
//! is opaque and returned verbatim, with no signature.
//!
//! Verification is BoringSSL's `ED25519_verify`: cofactorless, `s` must be below the group
//! order, the recomputed `R` must equal the signature's bytes. This crate is stricter on keys
//! only: an SRR public key must be the canonical encoding of a point of large order (BoringSSL
//! takes any 32 bytes and fails later, or accepts small-order keys).
//!
//! The SRR's own contents are issuer-defined (BoringSSL once built a CBOR map; that issuer code
//! was removed in 2023) and are returned as bytes.

use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};

use super::{Client, Issuer};
use crate::wire::Reader;
use crate::{Error, Result};

/// Length of an SRR key: an Ed25519 public key, or the 32-byte secret seed of the issuer's
/// signing key (RFC 8032 §5.1.5).
pub const SRR_KEY_LEN: usize = 32;
/// Length of an SRR signature (Ed25519).
pub const SRR_SIGNATURE_LEN: usize = 64;

/// The Ed25519 group order `ℓ = 2^252 + 27742317777372353535851937790883648493`,
/// little-endian.
const ORDER_LE: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

/// What [`Client::finish_redemption`] returns (`out_rr` and `out_sig` of
/// `TRUST_TOKEN_CLIENT_finish_redemption`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RedemptionRecord {
    /// The redemption record: the verified SRR (`experiment_v1`), or the whole response
    /// (other methods).
    pub record: Vec<u8>,
    /// The SRR's Ed25519 signature (`experiment_v1`); `None` for the other methods.
    pub signature: Option<[u8; SRR_SIGNATURE_LEN]>,
}

impl RedemptionRecord {
    /// The redemption response carrying this record: `u16 len ‖ record ‖ u16 len ‖ signature`
    /// when there is a signature, the record verbatim otherwise. [`Client::finish_redemption`]
    /// inverts it; this is how an issuer that signs elsewhere (e.g. in an HSM) frames its
    /// response.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] when a signed record is 65536 bytes or longer.
    pub fn to_response(&self) -> Result<Vec<u8>> {
        let Some(signature) = &self.signature else {
            return Ok(self.record.clone());
        };
        let record_len = crate::transcript::len_prefix(self.record.len())?;
        let signature_len = crate::transcript::len_prefix(SRR_SIGNATURE_LEN)?;
        let mut out = Vec::with_capacity(4 + self.record.len() + SRR_SIGNATURE_LEN);
        out.extend_from_slice(&record_len);
        out.extend_from_slice(&self.record);
        out.extend_from_slice(&signature_len);
        out.extend_from_slice(signature);
        Ok(out)
    }
}

/// The 32 bytes of an SRR key.
fn key_bytes(key: &[u8]) -> Result<&[u8; SRR_KEY_LEN]> {
    key.try_into().map_err(|_| Error::InvalidLength)
}

/// An Ed25519 public key: canonical encoding, on the curve, not of small order.
fn decode_verifying_key(bytes: &[u8]) -> Result<VerifyingKey> {
    let bytes = key_bytes(bytes)?;
    let key = VerifyingKey::from_bytes(bytes).map_err(|_| Error::InvalidPoint)?;
    if key.to_edwards().compress().as_bytes() != bytes || key.is_weak() {
        return Err(Error::InvalidPoint);
    }
    Ok(key)
}

/// Whether the little-endian `s` is below the group order (RFC 8032 §5.1.7), checked here so
/// that it holds whatever features of `ed25519-dalek` the build unifies.
fn is_canonical_scalar(s: &[u8]) -> bool {
    for (a, b) in s.iter().rev().zip(ORDER_LE.iter().rev()) {
        if a != b {
            return a < b;
        }
    }
    false
}

/// BoringSSL's `ED25519_verify` of `signature` over `message` (see the module docs).
fn verify(key: &VerifyingKey, message: &[u8], signature: &[u8; SRR_SIGNATURE_LEN]) -> Result<()> {
    if !is_canonical_scalar(&signature[32..]) {
        return Err(Error::InvalidSignature);
    }
    key.verify(message, &Signature::from_bytes(signature))
        .map_err(|_| Error::InvalidSignature)
}

impl Client {
    /// Sets the Ed25519 public key that verifies signed redemption records
    /// (`TRUST_TOKEN_CLIENT_set_srr_key`), replacing any earlier one. Methods without
    /// [`Method::has_srr`](super::Method::has_srr) keep it unused.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] unless the key is [`SRR_KEY_LEN`] bytes;
    /// [`Error::InvalidPoint`] when it is not the canonical encoding of a curve point, or the
    /// point has small order. On error the previous key stays.
    pub fn set_srr_key(&mut self, public_key: &[u8]) -> Result<()> {
        self.srr_key = Some(decode_verifying_key(public_key)?);
        Ok(())
    }

    /// The SRR public key set with [`Client::set_srr_key`], if any.
    pub fn srr_key(&self) -> Option<[u8; SRR_KEY_LEN]> {
        self.srr_key.as_ref().map(VerifyingKey::to_bytes)
    }

    /// Reads the issuer's redemption response (`TRUST_TOKEN_CLIENT_finish_redemption`).
    ///
    /// For `experiment_v1` ([`Method::has_srr`](super::Method::has_srr)) the response must be
    /// exactly `u16 len ‖ SRR ‖ u16 len ‖ signature`, and the signature a valid 64-byte Ed25519
    /// signature of the SRR bytes under the key of [`Client::set_srr_key`]; the SRR and the
    /// signature are returned. For the other methods the response is returned verbatim, without
    /// a signature. Nothing is kept: the client is unchanged whatever the outcome.
    ///
    /// # Errors
    /// `experiment_v1` only, checked in this order as BoringSSL does:
    /// [`Error::InvalidLength`] on a truncated response or trailing bytes;
    /// [`Error::MissingKey`] when no SRR key is set; [`Error::InvalidSignature`] when the
    /// signature is not [`SRR_SIGNATURE_LEN`] bytes or does not verify.
    pub fn finish_redemption(&self, response: &[u8]) -> Result<RedemptionRecord> {
        if !self.method.has_srr() {
            return Ok(RedemptionRecord {
                record: response.to_vec(),
                signature: None,
            });
        }
        let mut r = Reader::new(response);
        let record = r.u16_prefixed()?;
        let signature = r.u16_prefixed()?;
        r.finish()?;
        let key = self.srr_key.as_ref().ok_or(Error::MissingKey)?;
        // BoringSSL's `EVP_DigestVerify` fails a signature of another length as a bad signature.
        let signature: [u8; SRR_SIGNATURE_LEN] =
            signature.try_into().map_err(|_| Error::InvalidSignature)?;
        verify(key, record, &signature)?;
        Ok(RedemptionRecord {
            record: record.to_vec(),
            signature: Some(signature),
        })
    }
}

impl Issuer {
    /// Sets the Ed25519 key that signs redemption records, from its 32-byte secret seed
    /// (RFC 8032 §5.1.5; BoringSSL `TRUST_TOKEN_ISSUER_set_srr_key` with
    /// `EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, ...)`), replacing any earlier one. The
    /// key is zeroized when replaced or dropped. Clients verify with
    /// [`Issuer::srr_public_key`].
    ///
    /// # Errors
    /// [`Error::InvalidLength`] unless the seed is [`SRR_KEY_LEN`] bytes; the previous key then
    /// stays.
    pub fn set_srr_key(&mut self, secret_key: &[u8]) -> Result<()> {
        self.srr_key = Some(SigningKey::from_bytes(key_bytes(secret_key)?));
        Ok(())
    }

    /// The public key of the SRR signing key, for [`Client::set_srr_key`].
    pub fn srr_public_key(&self) -> Option<[u8; SRR_KEY_LEN]> {
        self.srr_key
            .as_ref()
            .map(|key| key.verifying_key().to_bytes())
    }

    /// The redemption response carrying `record`, as [`Client::finish_redemption`] reads it:
    /// for `experiment_v1`, `record` signed with the key of [`Issuer::set_srr_key`] and framed
    /// as `u16 len ‖ record ‖ u16 64 ‖ signature`; for the other methods, `record` verbatim.
    ///
    /// BoringSSL's issuer no longer builds SRRs (its CBOR-building `TRUST_TOKEN_ISSUER_redeem`
    /// was removed in 2023): what `record` holds is up to the issuer.
    ///
    /// # Errors
    /// `experiment_v1` only: [`Error::MissingKey`] when no SRR key is set;
    /// [`Error::InputTooLong`] when `record` is 65536 bytes or longer.
    pub fn redemption_response(&self, record: &[u8]) -> Result<Vec<u8>> {
        let signature = if self.method.has_srr() {
            let key = self.srr_key.as_ref().ok_or(Error::MissingKey)?;
            Some(key.sign(record).to_bytes())
        } else {
            None
        };
        RedemptionRecord {
            record: record.to_vec(),
            signature,
        }
        .to_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_bytes_and_scalar_bound() {
        // ℓ = 2^252 + 27742317777372353535851937790883648493.
        let low = 27_742_317_777_372_353_535_851_937_790_883_648_493u128;
        assert_eq!(ORDER_LE[..16], low.to_le_bytes());
        assert_eq!(ORDER_LE[16..31], [0; 15]);
        assert_eq!(ORDER_LE[31], 0x10);
        assert!(!is_canonical_scalar(&ORDER_LE));
        let mut below = ORDER_LE;
        below[0] -= 1;
        assert!(is_canonical_scalar(&below));
        let mut above = ORDER_LE;
        above[1] += 1;
        assert!(!is_canonical_scalar(&above));
        assert!(is_canonical_scalar(&[0; 32]));
        assert!(!is_canonical_scalar(&[0xff; 32]));
    }
}
