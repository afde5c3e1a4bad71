//! The DER encodings of RSA keys that issuers publish and store, with a strict reader (minimal
//! lengths, minimal positive INTEGERs, no trailing bytes) and PEM armour:
//!
//! - the public key as RFC 9578 §6.5 publishes it: a SubjectPublicKeyInfo with the
//!   id-RSASSA-PSS algorithm and explicit SHA-384 / MGF1-SHA-384 / 48-byte salt parameters
//!   (`token_key_id` is the SHA-256 of exactly these bytes), and the rsaEncryption form;
//! - PKCS#1 `RSAPublicKey` and `RSAPrivateKey`;
//! - PKCS#8 `PrivateKeyInfo` (rsaEncryption, as the published vectors' private keys).

use zeroize::Zeroizing;

use crate::{Error, Result};

/// The AlgorithmIdentifier of RFC 9578's keys: id-RSASSA-PSS with `RSASSA-PSS-params` of
/// SHA-384 (no NULL), MGF1 with SHA-384, salt length 48, trailer field absent.
const ALG_PSS_SHA384: &[u8] = &[
    0x30, 0x3d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a, 0x30, 0x30, 0xa0,
    0x0d, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0xa1, 0x1a,
    0x30, 0x18, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08, 0x30, 0x0b, 0x06,
    0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0xa2, 0x03, 0x02, 0x01, 0x30,
];
/// The rsaEncryption AlgorithmIdentifier (with its NULL parameters).
const ALG_RSA_ENCRYPTION: &[u8] = &[
    0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
];

/// Which algorithm identifier a SubjectPublicKeyInfo carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpkiAlgorithm {
    /// id-RSASSA-PSS with SHA-384 parameters (RFC 9578's token keys).
    PssSha384,
    /// rsaEncryption.
    RsaEncryption,
}

// ---------------------------------------------------------------------------------------------
// Writer

fn push_len(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
}

fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 6);
    out.push(tag);
    push_len(&mut out, body.len());
    out.extend_from_slice(body);
    out
}

/// A DER INTEGER of a non-negative big-endian value (leading zeros dropped, one added when
/// the top bit is set).
fn integer(be: &[u8]) -> Vec<u8> {
    let skip = be.iter().take_while(|&&b| b == 0).count();
    let v = &be[skip..];
    let mut body = Vec::with_capacity(v.len() + 1);
    if v.first().is_none_or(|&b| b & 0x80 != 0) {
        body.push(0);
    }
    body.extend_from_slice(v);
    tlv(0x02, &body)
}

/// PKCS#1 `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`.
pub(crate) fn rsa_public_key(n: &[u8], e: &[u8]) -> Vec<u8> {
    tlv(0x30, &[integer(n), integer(e)].concat())
}

/// SubjectPublicKeyInfo of `(n, e)` with the given algorithm.
pub(crate) fn spki(n: &[u8], e: &[u8], alg: SpkiAlgorithm) -> Vec<u8> {
    let mut bits = vec![0u8];
    bits.extend_from_slice(&rsa_public_key(n, e));
    let alg = match alg {
        SpkiAlgorithm::PssSha384 => ALG_PSS_SHA384,
        SpkiAlgorithm::RsaEncryption => ALG_RSA_ENCRYPTION,
    };
    tlv(0x30, &[alg, &tlv(0x03, &bits)].concat())
}

/// The parts of a private key, big-endian.
pub(crate) struct PrivateParts {
    pub(crate) n: Vec<u8>,
    pub(crate) e: Vec<u8>,
    pub(crate) d: Zeroizing<Vec<u8>>,
    pub(crate) p: Zeroizing<Vec<u8>>,
    pub(crate) q: Zeroizing<Vec<u8>>,
    pub(crate) dp: Zeroizing<Vec<u8>>,
    pub(crate) dq: Zeroizing<Vec<u8>>,
    pub(crate) qinv: Zeroizing<Vec<u8>>,
}

/// PKCS#1 `RSAPrivateKey` (version 0, two primes).
pub(crate) fn rsa_private_key(k: &PrivateParts) -> Zeroizing<Vec<u8>> {
    let body = Zeroizing::new(
        [
            integer(&[0]),
            integer(&k.n),
            integer(&k.e),
            integer(&k.d),
            integer(&k.p),
            integer(&k.q),
            integer(&k.dp),
            integer(&k.dq),
            integer(&k.qinv),
        ]
        .concat(),
    );
    Zeroizing::new(tlv(0x30, &body))
}

/// PKCS#8 `PrivateKeyInfo` (version 0, rsaEncryption) around the PKCS#1 key.
pub(crate) fn pkcs8(k: &PrivateParts) -> Zeroizing<Vec<u8>> {
    let inner = rsa_private_key(k);
    let octets = Zeroizing::new(tlv(0x04, &inner));
    let body = Zeroizing::new([integer(&[0]).as_slice(), ALG_RSA_ENCRYPTION, &octets].concat());
    Zeroizing::new(tlv(0x30, &body))
}

// ---------------------------------------------------------------------------------------------
// Reader

/// A strict DER reader over a byte string.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// The next element with `tag`: its body. Definite minimal lengths only.
    fn take(&mut self, tag: u8) -> Result<&'a [u8]> {
        let (&t, rest) = self.0.split_first().ok_or(Error::InvalidKey)?;
        let (&l, rest) = rest.split_first().ok_or(Error::InvalidKey)?;
        if t != tag {
            return Err(Error::InvalidKey);
        }
        let (len, rest) = if l < 0x80 {
            (usize::from(l), rest)
        } else {
            let n = usize::from(l & 0x7f);
            if n == 0 || n > 4 || rest.len() < n || rest[0] == 0 {
                return Err(Error::InvalidKey);
            }
            let len = rest[..n]
                .iter()
                .fold(0usize, |a, &b| (a << 8) | usize::from(b));
            if len < 0x80 {
                return Err(Error::InvalidKey);
            }
            (len, &rest[n..])
        };
        if rest.len() < len {
            return Err(Error::InvalidKey);
        }
        let (body, rest) = rest.split_at(len);
        self.0 = rest;
        Ok(body)
    }

    /// The next INTEGER, non-negative and minimally encoded: its big-endian magnitude.
    fn uint(&mut self) -> Result<&'a [u8]> {
        let body = self.take(0x02)?;
        match body {
            [] => Err(Error::InvalidKey),
            [b, ..] if b & 0x80 != 0 => Err(Error::InvalidKey),
            [0, next, ..] if next & 0x80 == 0 => Err(Error::InvalidKey),
            [0, rest @ ..] if !rest.is_empty() => Ok(rest),
            _ => Ok(body),
        }
    }

    fn end(&self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidKey)
        }
    }
}

/// `(n, e)` of a PKCS#1 `RSAPublicKey`.
pub(crate) fn parse_rsa_public_key(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut outer = Reader(der);
    let mut seq = Reader(outer.take(0x30)?);
    outer.end()?;
    let n = seq.uint()?.to_vec();
    let e = seq.uint()?.to_vec();
    seq.end()?;
    Ok((n, e))
}

/// `(n, e)` and the algorithm of a SubjectPublicKeyInfo: id-RSASSA-PSS with exactly RFC 9578's
/// SHA-384 parameters, or rsaEncryption with NULL parameters; anything else is `InvalidKey`.
pub(crate) fn parse_spki(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>, SpkiAlgorithm)> {
    let mut outer = Reader(der);
    let body = outer.take(0x30)?;
    outer.end()?;
    let alg = if body.starts_with(ALG_PSS_SHA384) {
        SpkiAlgorithm::PssSha384
    } else if body.starts_with(ALG_RSA_ENCRYPTION) {
        SpkiAlgorithm::RsaEncryption
    } else {
        return Err(Error::InvalidKey);
    };
    let alg_len = match alg {
        SpkiAlgorithm::PssSha384 => ALG_PSS_SHA384.len(),
        SpkiAlgorithm::RsaEncryption => ALG_RSA_ENCRYPTION.len(),
    };
    let mut rest = Reader(&body[alg_len..]);
    let bits = rest.take(0x03)?;
    rest.end()?;
    let (&unused, key) = bits.split_first().ok_or(Error::InvalidKey)?;
    if unused != 0 {
        return Err(Error::InvalidKey);
    }
    let (n, e) = parse_rsa_public_key(key)?;
    Ok((n, e, alg))
}

/// The parts of a PKCS#1 `RSAPrivateKey` (version 0: two primes).
pub(crate) fn parse_rsa_private_key(der: &[u8]) -> Result<PrivateParts> {
    let mut outer = Reader(der);
    let mut seq = Reader(outer.take(0x30)?);
    outer.end()?;
    if seq.uint()? != [0] {
        return Err(Error::InvalidKey);
    }
    let mut next = || seq.uint().map(|v| v.to_vec());
    let (n, e) = (next()?, next()?);
    let d = Zeroizing::new(next()?);
    let p = Zeroizing::new(next()?);
    let q = Zeroizing::new(next()?);
    let dp = Zeroizing::new(next()?);
    let dq = Zeroizing::new(next()?);
    let qinv = Zeroizing::new(next()?);
    seq.end()?;
    Ok(PrivateParts {
        n,
        e,
        d,
        p,
        q,
        dp,
        dq,
        qinv,
    })
}

/// The parts of a PKCS#8 `PrivateKeyInfo` holding an RSA key (rsaEncryption or
/// id-RSASSA-PSS with RFC 9578's parameters), version 0 without attributes.
pub(crate) fn parse_pkcs8(der: &[u8]) -> Result<PrivateParts> {
    let mut outer = Reader(der);
    let mut seq = Reader(outer.take(0x30)?);
    outer.end()?;
    if seq.uint()? != [0] {
        return Err(Error::InvalidKey);
    }
    let rest = seq.0;
    let after_alg = if rest.starts_with(ALG_RSA_ENCRYPTION) {
        &rest[ALG_RSA_ENCRYPTION.len()..]
    } else if rest.starts_with(ALG_PSS_SHA384) {
        &rest[ALG_PSS_SHA384.len()..]
    } else {
        return Err(Error::InvalidKey);
    };
    let mut seq = Reader(after_alg);
    let key = seq.take(0x04)?;
    seq.end()?;
    parse_rsa_private_key(key)
}

// ---------------------------------------------------------------------------------------------
// PEM

/// The DER inside one PEM block with the given label (`-----BEGIN label-----`): base64 with
/// padding over lines, whitespace around the lines ignored, nothing else before or after.
pub(crate) fn pem_decode(text: &str, label: &str) -> Result<Zeroizing<Vec<u8>>> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let text = text.trim();
    let body = text
        .strip_prefix(begin.as_str())
        .and_then(|t| t.strip_suffix(end.as_str()))
        .ok_or(Error::InvalidKey)?;
    let b64: Zeroizing<Vec<u8>> =
        Zeroizing::new(body.bytes().filter(|b| !b.is_ascii_whitespace()).collect());
    base64_decode(&b64)
}

/// PEM armour of `der` under `label`, 64 characters a line.
pub(crate) fn pem_encode(der: &[u8], label: &str) -> Zeroizing<String> {
    let b64 = base64_encode(der);
    let mut out = Zeroizing::new(String::with_capacity(b64.len() + b64.len() / 64 + 64));
    out.push_str(&format!("-----BEGIN {label}-----\n"));
    for line in b64.as_bytes().chunks(64) {
        out.extend(line.iter().map(|&b| char::from(b)));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(data: &[u8]) -> Zeroizing<String> {
    let mut out = Zeroizing::new(String::with_capacity(data.len().div_ceil(3) * 4));
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(B64[((v >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 with padding, canonical (unused bits zero). Constant time per character
/// (the key's text is secret): every character is compared with all 64 symbols.
fn base64_decode(text: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if !text.len().is_multiple_of(4) {
        return Err(Error::InvalidKey);
    }
    let pad = text.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return Err(Error::InvalidKey);
    }
    let mut out = Zeroizing::new(Vec::with_capacity(text.len() / 4 * 3));
    let body = &text[..text.len() - pad];
    let mut acc = 0u32;
    let mut bad = 0u8;
    for (i, &c) in body.iter().enumerate() {
        let mut value = 0u8;
        let mut found = 0u8;
        for (j, &s) in B64.iter().enumerate() {
            let eq = subtle::ConstantTimeEq::ct_eq(&c, &s).unwrap_u8();
            value |= (j as u8) & 0u8.wrapping_sub(eq);
            found |= eq;
        }
        bad |= found ^ 1;
        acc = (acc << 6) | u32::from(value);
        if i % 4 == 3 {
            out.extend_from_slice(&acc.to_be_bytes()[1..]);
            acc = 0;
        }
    }
    match body.len() % 4 {
        0 => {}
        2 => {
            bad |= u8::from(acc & 0xf != 0);
            out.push((acc >> 4) as u8);
        }
        3 => {
            bad |= u8::from(acc & 0x3 != 0);
            out.extend_from_slice(&((acc >> 2) as u16).to_be_bytes());
        }
        _ => return Err(Error::InvalidKey),
    }
    if bad != 0 {
        return Err(Error::InvalidKey);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_refuses() {
        for len in 0..10 {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 5) as u8).collect();
            let text = base64_encode(&data);
            assert_eq!(
                &base64_decode(text.as_bytes())
                    .ok()
                    .as_deref()
                    .map(|v| v.as_slice()),
                &Some(data.as_slice())
            );
        }
        assert!(base64_decode(b"QQ==").is_ok());
        assert!(base64_decode(b"QR==").is_err(), "non-canonical bits");
        assert!(base64_decode(b"Q===").is_err());
        assert!(base64_decode(b"QQ=").is_err());
        assert!(base64_decode(b"Q-==").is_err());
    }

    #[test]
    fn reader_refuses_non_minimal_forms() {
        // Long form for a short length.
        assert!(
            parse_rsa_public_key(&[0x30, 0x81, 0x06, 0x02, 0x01, 0x03, 0x02, 0x01, 0x03]).is_err()
        );
        // A negative or non-minimal INTEGER.
        assert!(parse_rsa_public_key(&[0x30, 0x06, 0x02, 0x01, 0x83, 0x02, 0x01, 0x03]).is_err());
        assert!(
            parse_rsa_public_key(&[0x30, 0x07, 0x02, 0x02, 0x00, 0x03, 0x02, 0x01, 0x03]).is_err()
        );
        // Trailing bytes.
        assert!(
            parse_rsa_public_key(&[0x30, 0x06, 0x02, 0x01, 0x03, 0x02, 0x01, 0x03, 0x00]).is_err()
        );
        assert_eq!(
            parse_rsa_public_key(&[0x30, 0x06, 0x02, 0x01, 0x03, 0x02, 0x01, 0x05]).ok(),
            Some((vec![3], vec![5]))
        );
    }
}
