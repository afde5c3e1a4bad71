//! Targets of RSA blind signatures and Privacy Pass types `0x0002` / `0xDA7A`
//! (`privacy_tokens::blind_rsa`): every decoder (`rsa_decode`) and the issuer on request bytes
//! (`rsa_issuer`).

use std::sync::OnceLock;

use privacy_tokens::blind_rsa::privacy_pass::{
    Client, ExtendedTokenRequest, Extension, Extensions, Issuer, Token, TokenKey, TokenRequest,
    TokenResponse,
};
use privacy_tokens::blind_rsa::{test_key, PublicKey, SecretKey};

use crate::{rng, roundtrip, split};

/// The `id-RSASSA-PSS` OID's DER (`06 09 2a 86 48 86 f7 0d 01 01 0a`): an SPKI or PKCS#8 with it
/// is in the form this crate writes.
const PSS_OID: [u8; 11] = [
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a,
];
/// The `rsaEncryption` OID's DER.
const RSA_OID: [u8; 11] = [
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
];

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The issuer of the published test key (RFC 9578 Appendix A.2), its token key and valid
/// messages for the seeds.
pub struct RsaFix {
    pub issuer: Issuer,
    pub token_key: TokenKey,
    pub extensions: Extensions,
    pub request: Vec<u8>,
    pub extended_request: Vec<u8>,
    pub response: Vec<u8>,
    pub token: Vec<u8>,
}

/// The blind RSA fixture.
pub fn fix() -> &'static RsaFix {
    static F: OnceLock<RsaFix> = OnceLock::new();
    F.get_or_init(|| {
        // ok: the fixture, built once from the published test key and fixed valid inputs
        let issuer = Issuer::new(test_key().expect("test key")).expect("issuer");
        let token_key = issuer.token_key().clone();
        let challenge = |t: u16| {
            privacy_tokens::voprf::privacy_pass::TokenChallenge::new(
                t,
                b"issuer.example".to_vec(),
                vec![],
                b"origin.example".to_vec(),
            )
            // ok: the fixture, built once from the published test key and fixed valid inputs
            .expect("challenge")
            .to_bytes()
        };
        let mut r = rng(31);
        // ok: the fixture, built once from the published test key and fixed valid inputs
        let (req, state) = Client::request(&token_key, &challenge(0x0002), &mut r).expect("req");
        let request = req.to_bytes();
        // ok: the fixture, built once from the published test key and fixed valid inputs
        let response = issuer.issue(&request).expect("issue").to_bytes();
        // ok: the fixture, built once from the published test key and fixed valid inputs
        let token = state.finalize(&response).expect("finalize").to_bytes();
        let extensions = Extensions::new(vec![Extension {
            extension_type: 1,
            data: b"fuzz".to_vec(),
        }])
        // ok: the fixture, built once from the published test key and fixed valid inputs
        .expect("extensions");
        let (ext_req, _) =
            Client::request_with_extensions(&token_key, &challenge(0xDA7A), &extensions, &mut r)
                // ok: the fixture, built once from the published test key and fixed valid inputs
                .expect("extended request");
        RsaFix {
            issuer,
            token_key,
            extensions,
            request,
            extended_request: ext_req.to_bytes(),
            response,
            token,
        }
    })
}

/// `rsa_decode`: every decoder of `blind_rsa`, chosen by the selector byte. The message codecs
/// and PKCS#1 are canonical (decoded values re-encode to the input); the SPKI and PKCS#8
/// encoders write one algorithm form, so an input in that form must come back byte for byte,
/// and any decoded key must decode again from its own encoding to the same key.
pub fn decode_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    match sel % 10 {
        0 => drop(roundtrip(d, TokenRequest::from_bytes, |v| v.to_bytes())),
        1 => drop(roundtrip(d, ExtendedTokenRequest::from_bytes, |v| {
            v.to_bytes()
        })),
        2 => drop(roundtrip(d, TokenResponse::from_bytes, |v| v.to_bytes())),
        3 => drop(roundtrip(d, Token::from_bytes, |v| v.to_bytes())),
        4 => drop(roundtrip(d, Extensions::from_bytes, |v| {
            v.as_bytes().to_vec()
        })),
        5 => {
            if let Ok(pk) = PublicKey::from_spki(d) {
                let again = pk.to_spki();
                if contains(d, &PSS_OID) {
                    assert_eq!(hex::encode(&again), hex::encode(d), "SPKI re-encodes");
                }
                assert_eq!(PublicKey::from_spki(&again).as_ref(), Ok(&pk));
            }
        }
        6 => drop(roundtrip(d, PublicKey::from_pkcs1_der, |v| {
            v.to_pkcs1_der()
        })),
        7 => drop(roundtrip(d, TokenKey::from_spki, |v| v.to_spki().to_vec())),
        8 => {
            if let Ok(sk) = SecretKey::from_pkcs8_der(d) {
                check_secret_key(&sk, Some(d));
            }
        }
        _ => {
            if let Ok(text) = std::str::from_utf8(d) {
                if let Ok(sk) = SecretKey::from_pem(text) {
                    check_secret_key(&sk, None);
                }
            }
        }
    }
}

/// A decoded secret key: its PKCS#8 (rsaEncryption) is a fixed point, equal to the input when
/// the input was in that form, and its PEM decodes to the same public key.
fn check_secret_key(sk: &SecretKey, der: Option<&[u8]>) {
    let out = sk.to_pkcs8_der();
    // ok: a fuzz assertion (a panic here is the finding the target looks for)
    let back = SecretKey::from_pkcs8_der(&out).expect("own PKCS#8 decodes");
    assert_eq!(back.public_key(), sk.public_key());
    assert_eq!(hex::encode(&*back.to_pkcs8_der()), hex::encode(&*out));
    if let Some(d) = der {
        if contains(d, &RSA_OID) && !contains(d, &PSS_OID) {
            assert_eq!(hex::encode(&*out), hex::encode(d), "PKCS#8 re-encodes");
        }
    }
    let pem = sk.to_pem();
    // ok: a fuzz assertion (a panic here is the finding the target looks for)
    let back = SecretKey::from_pem(&pem).expect("own PEM decodes");
    assert_eq!(back.public_key(), sk.public_key());
}

/// `rsa_issuer`: request bytes straight into `Issuer::issue` / `issue_extended` (the test
/// key): typed errors only, and an accepted request is one that decodes, whose response decodes
/// and has the modulus's length.
pub fn issuer_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let f = fix();
    let resp = match sel % 2 {
        0 => {
            let r = f.issuer.issue(d);
            if r.is_ok() {
                assert!(TokenRequest::from_bytes(d).is_ok());
            }
            r
        }
        _ => {
            let r = f.issuer.issue_extended(d, |_| true);
            if r.is_ok() {
                assert!(ExtendedTokenRequest::from_bytes(d).is_ok());
            }
            r
        }
    };
    if let Ok(resp) = resp {
        let bytes = resp.to_bytes();
        assert_eq!(bytes.len(), f.token_key.public_key().modulus_len());
        assert!(TokenResponse::from_bytes(&bytes).is_ok());
    }
}
