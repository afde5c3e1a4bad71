//! ARC Privacy Pass binding (token type 0xE5AC): issuance, tokens, rejections.

use privacy_tokens::arc::privacy_pass::{
    issuer_key_id, Client, CredentialRequest, CredentialResponse, Issuer, Token, TokenChallenge,
    TOKEN_TYPE,
};
use privacy_tokens::arc::{ArcV2P256, ServerPrivateKey};
use privacy_tokens::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;

#[test]
fn issue_and_redeem() {
    let mut rng = StdRng::seed_from_u64(1);
    let issuer = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(&mut rng));
    let cctx = [7u8; 32];
    let issue_ch = TokenChallenge::new(b"issuer.example", &[], b"origin.example", &cctx).unwrap();
    let (req, st) = Client::request(&issue_ch, issuer.public_key(), &mut rng).unwrap();
    let req_bytes = req.to_bytes();
    assert_eq!(req_bytes.len(), 229);
    assert_eq!(req_bytes[..2], TOKEN_TYPE.to_be_bytes());
    assert_eq!(req_bytes[2], issuer_key_id(issuer.public_key())[31]);
    let req = CredentialRequest::from_bytes(&req_bytes).unwrap();
    let resp = issuer.issue(&req, &mut rng).unwrap();
    let resp = CredentialResponse::from_bytes(&resp.to_bytes()).unwrap();
    let mut cred = st.finalize(&resp).unwrap();

    let rctx = [9u8; 32];
    let ch = TokenChallenge::new(b"issuer.example", &rctx, b"origin.example", &cctx).unwrap();
    assert_eq!(TokenChallenge::from_bytes(&ch.to_bytes()).unwrap(), ch);
    let mut ts = Client::token_state(&mut cred, &ch, issuer.public_key(), 3).unwrap();
    let mut tags = Vec::new();
    for _ in 0..3 {
        let t = ts.token(&mut rng).unwrap();
        let bytes = t.to_bytes();
        assert_eq!(bytes.len(), 70 + 357 + 129 * 2);
        let t = Token::from_bytes(&bytes).unwrap();
        let tag = issuer.verify(&t, &ch, 3).unwrap();
        assert!(!tags.contains(&tag));
        tags.push(tag);
        // Another challenge (other redemption context) fails.
        let other =
            TokenChallenge::new(b"issuer.example", &[1u8; 32], b"origin.example", &cctx).unwrap();
        assert!(issuer.verify(&t, &other, 3).is_err());
    }
    assert_eq!(ts.token(&mut rng).unwrap_err(), Error::LimitExceeded);

    // A credential bound to another credential_context does not verify. (Another redemption
    // context too: with the same one the presentation context would be the exhausted one
    // above, whose counter the credential keeps.)
    let ch2 = TokenChallenge::new(b"issuer.example", &[8u8; 32], b"origin.example", &[]).unwrap();
    let mut ts2 = Client::token_state(&mut cred, &ch2, issuer.public_key(), 3).unwrap();
    let t2 = ts2.token(&mut rng).unwrap();
    assert_eq!(issuer.verify(&t2, &ch2, 3), Err(Error::InvalidProof));
}

#[test]
fn wrong_key_id_and_type_are_rejected() {
    let mut rng = StdRng::seed_from_u64(2);
    let issuer = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(&mut rng));
    let ch = TokenChallenge::new(b"i", &[], b"o", &[]).unwrap();
    let (req, _) = Client::request(&ch, issuer.public_key(), &mut rng).unwrap();
    let mut b = req.to_bytes();
    b[2] ^= 1;
    let bad = CredentialRequest::from_bytes(&b).unwrap();
    assert_eq!(
        issuer.issue(&bad, &mut rng).unwrap_err(),
        Error::UnsupportedValue
    );
    b[2] ^= 1;
    b[0] = 0;
    assert_eq!(
        CredentialRequest::from_bytes(&b).unwrap_err(),
        Error::UnsupportedValue
    );
    assert!(TokenChallenge::new(b"i", &[1; 5], b"o", &[]).is_err());
    assert!(TokenChallenge::new(b"", &[], b"o", &[]).is_err());
}

#[test]
fn token_exposes_its_challenge_digest_and_key_id() {
    let mut rng = StdRng::seed_from_u64(9);
    let issuer = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(&mut rng));
    let other = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(&mut rng));
    let ch = TokenChallenge::new(b"issuer.example", &[3u8; 32], b"origin.example", &[]).unwrap();
    let (req, st) = Client::request(&ch, issuer.public_key(), &mut rng).unwrap();
    let mut cred = st.finalize(&issuer.issue(&req, &mut rng).unwrap()).unwrap();
    let mut ts = Client::token_state(&mut cred, &ch, issuer.public_key(), 3).unwrap();
    let bytes = ts.token(&mut rng).unwrap().to_bytes();
    let t = Token::from_bytes(&bytes).unwrap();
    assert_eq!(t.challenge_digest(), &ch.digest());
    assert_eq!(t.challenge_digest()[..], bytes[6..38]);
    assert_eq!(t.issuer_key_id(), issuer.key_id());
    assert_ne!(t.issuer_key_id(), other.key_id());
    assert_eq!(t.issuer_key_id()[..], bytes[38..70]);
}
