//! What every Privacy Pass token type shares (RFC 9577, RFC 9578 §5-§6): the origin's
//! [`TokenChallenge`], the lengths of the token key id, the nonce and the `token_input`, and the
//! generic token batch of draft-ietf-privacypass-batched-tokens ([`generic_batch`]), which
//! carries requests of several token types in one.
//!
//! The token types themselves live with their protocols:
//! - `0x0001` and `0x0005` (VOPRF, privately verifiable): [`crate::voprf::privacy_pass`];
//! - `0x0002` and `0xDA7A` (blind RSA, publicly verifiable): [`crate::blind_rsa::privacy_pass`];
//! - `0xE5AC` (ARC): [`crate::arc::privacy_pass`].
//!
//! [`TokenChallenge`] and the constants are also re-exported by
//! [`voprf::privacy_pass`](crate::voprf::privacy_pass), where they were first.

pub mod generic_batch;

use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// `Nid`: the length of a token key identifier (RFC 9578 §5), for every token type.
pub const NID: usize = 32;
/// The length of the client nonce (RFC 9578 §5.1), for every token type.
pub const NONCE_LEN: usize = 32;
/// The length of `token_input = token_type || nonce || challenge_digest || token_key_id`
/// (RFC 9578 §5.1), for every token type.
pub const TOKEN_INPUT_LEN: usize = 2 + NONCE_LEN + 32 + NID;

/// SHA-256 of `data`.
pub(crate) fn sha256(data: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(Sha256::digest(data).as_slice());
    out
}

/// `token_input` of any token type (blind RSA's).
pub(crate) fn token_input_of(
    token_type: u16,
    nonce: &[u8; NONCE_LEN],
    challenge_digest: &[u8; 32],
    key_id: &[u8; NID],
) -> [u8; TOKEN_INPUT_LEN] {
    let mut out = [0u8; TOKEN_INPUT_LEN];
    out[..2].copy_from_slice(&token_type.to_be_bytes());
    out[2..34].copy_from_slice(nonce);
    out[34..66].copy_from_slice(challenge_digest);
    out[66..].copy_from_slice(key_id);
    out
}

/// Reads a big-endian `u16` at the start of `bytes`.
pub(crate) fn read_u16(bytes: &[u8]) -> Result<(u16, &[u8])> {
    match bytes {
        [a, b, rest @ ..] => Ok((u16::from_be_bytes([*a, *b]), rest)),
        _ => Err(Error::InvalidLength),
    }
}

/// QUIC variable-length integer (RFC 9000 §16).
pub(crate) fn varint_encode(v: usize, out: &mut Vec<u8>) {
    let v = v as u64;
    if v < 1 << 6 {
        out.push(v as u8);
    } else if v < 1 << 14 {
        out.extend_from_slice(&((v as u16) | 0x4000).to_be_bytes());
    } else if v < 1 << 30 {
        out.extend_from_slice(&((v as u32) | 0x8000_0000).to_be_bytes());
    } else {
        out.extend_from_slice(&(v | 0xc000_0000_0000_0000).to_be_bytes());
    }
}

/// Strict QUIC varint decoding: the shortest encoding only.
pub(crate) fn varint_decode(bytes: &[u8]) -> Result<(usize, &[u8])> {
    let first = *bytes.first().ok_or(Error::InvalidLength)?;
    let len = 1usize << (first >> 6);
    let (enc, rest) = split(bytes, len)?;
    let mut v = u64::from(first & 0x3f);
    for b in &enc[1..] {
        v = (v << 8) | u64::from(*b);
    }
    let min_len = match v {
        0..=0x3f => 1,
        0x40..=0x3fff => 2,
        0x4000..=0x3fff_ffff => 4,
        _ => 8,
    };
    if len != min_len {
        return Err(Error::InvalidLength);
    }
    let v = usize::try_from(v).map_err(|_| Error::InvalidLength)?;
    Ok((v, rest))
}

// ---------------------------------------------------------------------------------------------
// TokenChallenge

/// An origin's token challenge (RFC 9577 §2.1):
///
/// ```text
/// struct {
///     uint16_t token_type;
///     opaque issuer_name<1..2^16-1>;
///     opaque redemption_context<0..32>;   // exactly 0 or 32 bytes
///     opaque origin_info<0..2^16-1>;
/// } TokenChallenge;
/// ```
///
/// The fields are validated on construction, so [`TokenChallenge::to_bytes`] cannot fail.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenChallenge {
    token_type: u16,
    issuer_name: Vec<u8>,
    redemption_context: Vec<u8>,
    origin_info: Vec<u8>,
}

impl TokenChallenge {
    /// A challenge from its fields (RFC 9577 §2.1).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `issuer_name` is empty or 2^16 bytes or longer,
    /// `redemption_context` is neither 0 nor 32 bytes, or `origin_info` is 2^16 bytes or longer.
    pub fn new(
        token_type: u16,
        issuer_name: Vec<u8>,
        redemption_context: Vec<u8>,
        origin_info: Vec<u8>,
    ) -> Result<Self> {
        if issuer_name.is_empty()
            || issuer_name.len() > usize::from(u16::MAX)
            || !(redemption_context.is_empty() || redemption_context.len() == 32)
            || origin_info.len() > usize::from(u16::MAX)
        {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            token_type,
            issuer_name,
            redemption_context,
            origin_info,
        })
    }

    /// The token type the origin asks for.
    pub fn token_type(&self) -> u16 {
        self.token_type
    }

    /// The issuer's name (ASCII host name in RFC 9577 §2.1.1).
    pub fn issuer_name(&self) -> &[u8] {
        &self.issuer_name
    }

    /// The redemption context: empty or 32 bytes.
    pub fn redemption_context(&self) -> &[u8] {
        &self.redemption_context
    }

    /// The origin info: empty or a comma-separated list of origin names.
    pub fn origin_info(&self) -> &[u8] {
        &self.origin_info
    }

    /// The encoding of RFC 9577 §2.1.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            2 + 2
                + self.issuer_name.len()
                + 1
                + self.redemption_context.len()
                + 2
                + self.origin_info.len(),
        );
        out.extend_from_slice(&self.token_type.to_be_bytes());
        // Lengths were checked in `new`/`from_bytes`.
        out.extend_from_slice(&(self.issuer_name.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.issuer_name);
        out.push(self.redemption_context.len() as u8);
        out.extend_from_slice(&self.redemption_context);
        out.extend_from_slice(&(self.origin_info.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.origin_info);
        out
    }

    /// Strict decoding of RFC 9577 §2.1. Any token type is accepted here; the client checks it.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for truncated input, trailing bytes, an empty issuer name or a
    /// redemption context that is neither 0 nor 32 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (token_type, rest) = read_u16(bytes)?;
        let (n, rest) = read_u16(rest)?;
        let (issuer_name, rest) = split(rest, usize::from(n))?;
        let (&[rc_len], rest) = split_array::<1>(rest)?;
        let (redemption_context, rest) = split(rest, usize::from(rc_len))?;
        let (n, rest) = read_u16(rest)?;
        let (origin_info, rest) = split(rest, usize::from(n))?;
        if !rest.is_empty() {
            return Err(Error::InvalidLength);
        }
        Self::new(
            token_type,
            issuer_name.to_vec(),
            redemption_context.to_vec(),
            origin_info.to_vec(),
        )
    }

    /// `challenge_digest = SHA-256(TokenChallenge)` (RFC 9578 §5.1).
    pub fn digest(&self) -> [u8; 32] {
        sha256(&self.to_bytes())
    }
}

pub(crate) fn split(bytes: &[u8], n: usize) -> Result<(&[u8], &[u8])> {
    if bytes.len() < n {
        return Err(Error::InvalidLength);
    }
    Ok(bytes.split_at(n))
}

pub(crate) fn split_array<const N: usize>(bytes: &[u8]) -> Result<(&[u8; N], &[u8])> {
    let (a, rest) = split(bytes, N)?;
    let a: &[u8; N] = a.try_into().map_err(|_| Error::InvalidLength)?;
    Ok((a, rest))
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::TokenChallenge;
    use crate::codec::serde_via_bytes;

    serde_via_bytes!(TokenChallenge);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The challenge's accessors return what it was built from and what its encoding holds
    /// (a token type other than 0 and 1, every field non-empty).
    #[test]
    fn challenge_accessors() {
        let c = TokenChallenge::new(
            0x0005,
            b"issuer.example".to_vec(),
            vec![7; 32],
            b"origin.example".to_vec(),
        )
        .unwrap(); // ok: test
        let c = TokenChallenge::from_bytes(&c.to_bytes()).unwrap(); // ok: test
        assert_eq!(c.token_type(), 0x0005);
        assert_eq!(c.issuer_name(), b"issuer.example");
        assert_eq!(c.redemption_context(), &[7; 32]);
        assert_eq!(c.origin_info(), b"origin.example");
        assert_eq!(c.digest(), sha256(&c.to_bytes()));
    }
}
