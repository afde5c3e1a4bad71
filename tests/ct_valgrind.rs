//! Secrets checked by valgrind (BoringSSL's and AWS-LC's `CONSTANT_TIME_VALIDATION` practice):
//! every secret (keys, blinds, proof nonces, the private metadata bit, ARC credentials and
//! their nonces' permutation keys) comes from an RNG whose output is marked undefined with
//! memcheck client requests, and each secret-dependent public operation of every protocol and
//! suite runs on it. Under `valgrind --error-exitcode=1`, any branch or memory address that
//! depends on a secret is a memcheck error.
//!
//! A value computed from secrets stays undefined until the protocol publishes it. The library
//! marks it defined at those points itself (`group::validation::publish`, feature
//! `ct-validation`, BoringSSL's `CONSTTIME_DECLASSIFY`): public keys, blinded and evaluated
//! elements, proofs, issue responses, verdicts, redemption messages. This test marks defined
//! only what it publishes itself (a Privacy Pass token when it sends it) and the outputs its
//! own checks compare.
//!
//! What runs: the group layer's secret operations on all five groups (P-256, P-384, P-521,
//! ristretto255, decaf448; the NIST curves' blinded ladders and fixed-base tables too); OPRF,
//! VOPRF and POPRF (single and batched, with their proofs) on all five suites; Privacy Pass
//! types 0x0001 and 0x0005 (single and batched issuance, token verification); every Trust
//! Token method (`pst_v1_voprf`, `pst_v1_pmb` with a secret private metadata bit, and the
//! experiment methods) from key generation to redemption; ARC v2 (Privacy Pass ARC) and v1
//! (legacy) from key generation to verification; RSA blind signatures (RFC 9474, partially
//! blind with `info`) and Privacy Pass types 0x0002 and 0xDA7A issuance, on a key whose private
//! values are marked undefined after it is loaded; ACT from the Moderator's key generation to
//! the refund, `ProveSpend` on a credential whose every field is marked undefined. Valgrind 3.19 hides ADX from `cpuid`, so the
//! field arithmetic checked is the portable code (the line `ct-valgrind backend:` says which).
//!
//! Run by `bash scripts/ct-valgrind.sh` (which builds it with `--features ct-validation`), which
//! also runs the control (`CT_VALGRIND_CONTROL=1`: a planted branch and table index on a secret
//! byte, and a variable-time multiplication by a secret scalar), which memcheck must detect.
//! Without valgrind, or without the feature, this is an ordinary (fast) test of the same flows.

#[path = "support/memcheck.rs"]
mod memcheck;

use memcheck::{public, secret};
use privacy_tokens::group::{self, MessageExpansion, PrimeGroup, Xmd, Xof};
use privacy_tokens::voprf::{
    OprfClient, OprfServer, PoprfClient, PoprfServer, VoprfClient, VoprfServer,
};
use privacy_tokens::{
    Decaf448Shake256, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A seeded RNG whose every output is a secret (marked undefined).
struct SecretRng(StdRng);

impl rand::TryRng for SecretRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let v = self.0.next_u32();
        secret(&v);
        Ok(v)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let v = self.0.next_u64();
        secret(&v);
        Ok(v)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        self.0.fill_bytes(dest);
        secret(dest);
        Ok(())
    }
}

impl rand::TryCryptoRng for SecretRng {}

/// The operations run, each with the memcheck errors it caused.
struct Ops {
    rng: SecretRng,
    done: Vec<(String, u64)>,
}

impl Ops {
    fn run(&mut self, name: &str, f: impl FnOnce(&mut SecretRng)) {
        let before = memcheck::error_count();
        f(&mut self.rng);
        let errors = memcheck::error_count() - before;
        println!("ct-valgrind op {name}: {errors} errors");
        self.done.push((name.to_string(), errors));
    }
}

/// The group layer's secret operations on group `G`: secret scalars from the RNG, the
/// constant-time multiplications (fixed and variable base, batched), normalisation, encoding
/// and inversion of secrets.
fn group_ops<G: PrimeGroup>(ops: &mut Ops, name: &str) {
    let base = G::hash_to_group(
        MessageExpansion::Xmd(Xmd::Sha512),
        &[b"ct-valgrind"],
        &[b"QUUX-V01-CS02-with-expander-SHA512-256"],
    );
    let base = match base {
        Ok(b) => b,
        Err(_) => G::mul_generator(
            &G::hash_to_scalar(
                MessageExpansion::Xof(Xof::Shake256),
                &[b"ct-valgrind"],
                &[b"QUUX-V01-CS02-with-expander-SHAKE256"],
            )
            .unwrap(),
        ),
    };
    let base_normal = G::normalize(&base);
    let mut k = None;
    ops.run(&format!("group/{name}/random_scalar"), |rng| {
        k = Some(G::random_scalar(rng));
    });
    let k = k.unwrap();
    ops.run(
        &format!("group/{name}/mul_generator+normalize+encode"),
        |_| {
            let p = G::mul_generator(&k);
            let n = G::normalize(&p);
            std::hint::black_box(G::encode_element(&n));
        },
    );
    ops.run(&format!("group/{name}/mul+mul_normal+add_normal"), |_| {
        let p = G::mul(&base, &k);
        let q = G::mul_normal(&base_normal, &k);
        std::hint::black_box(G::add_normal(&p, &G::normalize(&q)));
    });
    ops.run(&format!("group/{name}/mul_batch+normalize_slice"), |_| {
        let points = [
            base_normal,
            G::normalize(&G::mul_generator(&k)),
            base_normal,
        ];
        let mut out = [G::identity(); 3];
        G::mul_batch(&points, &k, &mut out).unwrap();
        let mut normal = [G::normal_identity(); 3];
        G::normalize_slice(&out, &mut normal).unwrap();
        std::hint::black_box(normal);
    });
    ops.run(
        &format!("group/{name}/invert+batch_invert+encode_scalar"),
        |rng| {
            let inv = G::invert_scalar(&k).unwrap();
            let mut v = [k, inv, G::random_scalar(rng)];
            let mut scratch = v;
            G::batch_invert(&mut v, &mut scratch).unwrap();
            std::hint::black_box(G::encode_scalar(&v[0]));
        },
    );
}

/// The NIST curves' constant-time multi-scalar routines: blinded ladders and fixed-base tables.
fn nist_ops<C: group::Curve>(ops: &mut Ops, name: &str) {
    use group::{FixedBaseTable, LadderBlind};
    let base = C::hash_to_curve(
        Xmd::Sha512,
        &[b"ct-valgrind"],
        &[b"QUUX-V01-CS02-with-expander-SHA512-256"],
    )
    .unwrap();
    let mut secrets = None;
    ops.run(&format!("group/{name}/ladder_blind"), |rng| {
        let blind = LadderBlind::<C>::random(rng);
        secrets = Some((
            blind,
            group::random_scalar::<C>(rng),
            group::random_scalar::<C>(rng),
        ));
    });
    let (blind, a, b) = secrets.unwrap();
    ops.run(&format!("group/{name}/mul_multi_ct"), |_| {
        std::hint::black_box(group::mul_multi_ct::<C, 2>(
            &[base, group::mul_generator::<C>(&b)],
            &[a, b],
            &blind,
        ));
    });
    ops.run(&format!("group/{name}/mul_multi_shared_ct"), |_| {
        std::hint::black_box(group::mul_multi_shared_ct::<C, 2, 2>(
            &[base, base],
            &[[a, b], [b, a]],
            &blind,
        ));
    });
    ops.run(&format!("group/{name}/fixed_base"), |_| {
        let table = FixedBaseTable::<C>::new(&group::to_affine::<C>(&base));
        std::hint::black_box(table.mul(&a));
        std::hint::black_box(group::mul_fixed_ct::<C, 2>([&table, &table], &[a, b]));
    });
}

/// The OPRF steps: key generation, blind, blind evaluation, finalize, evaluate. The library
/// publishes the blinded and evaluated elements (`group::validation::publish`); the outputs are
/// the client's secrets and are marked defined here only for the test's own comparison.
fn voprf<S: Suite>(ops: &mut Ops, suite: &str) {
    let input = b"ct-valgrind input";
    let mut server = None;
    ops.run(&format!("{suite}/oprf/keygen"), |rng| {
        server = Some(OprfServer::<S>::new(rng));
    });
    let server = server.unwrap();
    let mut blind = None;
    ops.run(&format!("{suite}/oprf/blind"), |rng| {
        blind = Some(OprfClient::<S>::blind(input, rng).unwrap());
    });
    let b = blind.unwrap();
    let mut eval = None;
    ops.run(&format!("{suite}/oprf/blind_evaluate"), |_| {
        eval = Some(server.blind_evaluate(&b.message));
    });
    let e = eval.unwrap();
    ops.run(&format!("{suite}/oprf/finalize"), |_| {
        let out = b.state.finalize(input, &e).unwrap();
        let want = server.evaluate(input).unwrap();
        public(&out);
        public(&want);
        assert_eq!(out, want);
    });
}

/// Every step of suite `S`: OPRF, VOPRF, POPRF.
fn suite<S: Suite>(ops: &mut Ops, name: &str) {
    voprf::<S>(ops, name);
    voprf_proofs::<S>(ops, name);
}

/// VOPRF and POPRF (the steps with proofs): the library publishes the public keys, the
/// blinded and evaluated elements and the proofs; nothing is marked defined here but the
/// outputs compared.
fn voprf_proofs<S: Suite>(ops: &mut Ops, suite: &str) {
    let input = b"ct-valgrind input";
    // VOPRF: key generation, single and batched blind evaluation with a proof, the client's
    // proof verification and unblinding.
    let mut server = None;
    ops.run(&format!("{suite}/voprf/keygen"), |rng| {
        server = Some(VoprfServer::<S>::new(rng));
    });
    let server = server.unwrap();
    let inputs: [&[u8]; 2] = [b"first", b"second"];
    let mut blinds = Vec::new();
    ops.run(&format!("{suite}/voprf/blind"), |rng| {
        for i in inputs {
            blinds.push(VoprfClient::<S>::blind(i, rng).unwrap());
        }
    });
    ops.run(&format!("{suite}/voprf/blind_evaluate+finalize"), |rng| {
        let b = VoprfClient::<S>::blind(input, rng).unwrap();
        let ev = server.blind_evaluate(rng, &b.message).unwrap();
        let out = b
            .state
            .finalize(input, &ev.message, &ev.proof, server.public_key())
            .unwrap();
        let want = server.evaluate(input).unwrap();
        public(&out);
        public(&want);
        assert_eq!(out, want);
    });
    let msgs: Vec<_> = blinds.iter().map(|b| b.message).collect();
    let mut eval = None;
    ops.run(&format!("{suite}/voprf/blind_evaluate_batch"), |rng| {
        eval = Some(server.blind_evaluate_batch(rng, &msgs).unwrap());
    });
    let ev = eval.unwrap();
    ops.run(&format!("{suite}/voprf/finalize_batch"), |_| {
        let states = blinds.into_iter().map(|b| b.state).collect();
        let outs = VoprfClient::finalize_batch(
            states,
            &inputs,
            &ev.messages,
            &ev.proof,
            server.public_key(),
        )
        .unwrap();
        public(&outs[..]);
        for (o, i) in outs.iter().zip(inputs) {
            let want = server.evaluate(i).unwrap();
            public(&want);
            assert_eq!(*o, want);
        }
    });

    // POPRF: the tweaked key from the info, single and batched evaluation with a proof.
    let mut server = None;
    ops.run(&format!("{suite}/poprf/keygen"), |rng| {
        server = Some(PoprfServer::<S>::new(rng));
    });
    let server = server.unwrap();
    let mut blind = None;
    ops.run(&format!("{suite}/poprf/blind"), |rng| {
        blind = Some(PoprfClient::<S>::blind(input, b"info", server.public_key(), rng).unwrap());
    });
    let b = blind.unwrap();
    let mut eval = None;
    ops.run(&format!("{suite}/poprf/blind_evaluate"), |rng| {
        eval = Some(server.blind_evaluate(rng, &b.message, b"info").unwrap());
    });
    let e = eval.unwrap();
    ops.run(&format!("{suite}/poprf/finalize"), |_| {
        let out = b
            .state
            .finalize(input, b"info", &e.message, &e.proof)
            .unwrap();
        let want = server.evaluate(input, b"info").unwrap();
        public(&out);
        public(&want);
        assert_eq!(out, want);
    });
    ops.run(&format!("{suite}/poprf/batch"), |rng| {
        let mut states = Vec::new();
        let mut msgs = Vec::new();
        for i in inputs {
            let b = PoprfClient::<S>::blind(i, b"info", server.public_key(), rng).unwrap();
            msgs.push(b.message);
            states.push(b.state);
        }
        let ev = server.blind_evaluate_batch(rng, &msgs, b"info").unwrap();
        let outs =
            PoprfClient::finalize_batch(states, &inputs, b"info", &ev.messages, &ev.proof).unwrap();
        public(&outs[..]);
        for (o, i) in outs.iter().zip(inputs) {
            let want = server.evaluate(i, b"info").unwrap();
            public(&want);
            assert_eq!(*o, want);
        }
    });
}

/// Privacy Pass issuance of token types 0x0001 (VOPRF P-384) and 0x0005 (VOPRF ristretto255),
/// single and batched, and the issuer's token verification. A token is the client's bearer
/// secret until it is redeemed: this test marks its bytes defined where it sends them.
fn privacy_pass<T: privacy_tokens::voprf::privacy_pass::TokenType>(ops: &mut Ops, name: &str) {
    use privacy_tokens::voprf::privacy_pass::generic::{
        Client, Issuer, Token, TokenRequest, TokenResponse,
    };
    use privacy_tokens::voprf::privacy_pass::TokenChallenge;
    let mut issuer = None;
    ops.run(&format!("privacy-pass/{name}/keygen"), |rng| {
        let mut seed = [0u8; 48];
        rng.fill_bytes(&mut seed);
        issuer = Some(Issuer::<T>::new(
            VoprfServer::derive(&seed, b"PrivacyPass").unwrap(),
        ));
    });
    let issuer = issuer.unwrap();
    let challenge = TokenChallenge::new(
        T::TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )
    .unwrap()
    .to_bytes();
    let mut request = None;
    ops.run(&format!("privacy-pass/{name}/request"), |rng| {
        let (r, state) = Client::<T>::request(issuer.public_key(), &challenge, rng).unwrap();
        request = Some((r.to_bytes(), state));
    });
    let (request_bytes, state) = request.unwrap();
    let mut response = None;
    ops.run(&format!("privacy-pass/{name}/issue"), |rng| {
        let r = TokenRequest::<T>::from_bytes(request_bytes.as_ref()).unwrap();
        response = Some(issuer.issue(rng, &r).unwrap().to_bytes());
    });
    let response_bytes = response.unwrap();
    let mut token = None;
    ops.run(&format!("privacy-pass/{name}/finalize"), |_| {
        let r = TokenResponse::<T>::from_bytes(response_bytes.as_ref()).unwrap();
        token = Some(state.finalize(&r).unwrap().to_bytes());
    });
    let token_bytes = token.unwrap();
    ops.run(&format!("privacy-pass/{name}/verify_token"), |_| {
        // Redemption: the client sends the token.
        public(token_bytes.as_ref());
        let t = Token::<T>::from_bytes(token_bytes.as_ref()).unwrap();
        assert!(issuer.verify_token(&t).unwrap());
    });
    ops.run(&format!("privacy-pass/{name}/batch"), |rng| {
        let (request, state) =
            Client::<T>::request_batch(issuer.public_key(), &challenge, 3, rng).unwrap();
        let response_bytes = issuer
            .issue_batch_from_bytes(rng, &request.to_bytes())
            .unwrap()
            .to_bytes();
        let response = state.response_from_bytes(&response_bytes).unwrap();
        let tokens = state.finalize_batch(&response).unwrap();
        for t in &tokens {
            let bytes = t.to_bytes();
            public(bytes.as_ref());
            let t = Token::<T>::from_bytes(bytes.as_ref()).unwrap();
            assert!(issuer.verify_token(&t).unwrap());
        }
    });
}

/// Trust Token issuance (the private metadata bit a secret in PMB) and redemption.
fn trust_token(ops: &mut Ops, method: privacy_tokens::trust_token::Method) {
    use privacy_tokens::trust_token::{generate_key, Client, Issuer};
    let name = method.name();
    let mut issuer = Issuer::new(method, 10);
    let mut client = Client::new(method, 10);
    ops.run(&format!("trust-token/{name}/keygen"), |rng| {
        for key_id in 0..2 {
            let (private, public_key) = generate_key(method, key_id, rng);
            issuer.add_key(private).unwrap();
            client.add_key_bytes(&public_key.to_bytes()).unwrap();
        }
    });
    let mut request = None;
    ops.run(&format!("trust-token/{name}/begin_issuance"), |rng| {
        request = Some(client.begin_issuance(3, rng).unwrap());
    });
    let request = request.unwrap();
    let mut response = None;
    let mut bit = false;
    ops.run(&format!("trust-token/{name}/issue"), |rng| {
        // The private metadata bit: a secret (PMB methods only).
        bit = method.has_private_metadata() && rng.next_u32() & 1 == 1;
        response = Some(issuer.issue(&request.message, 1, bit, 10, rng).unwrap());
    });
    let response = response.unwrap();
    let mut tokens = None;
    ops.run(&format!("trust-token/{name}/finish_issuance"), |_| {
        tokens = Some(
            client
                .finish_issuance(request.state, &response.message)
                .unwrap(),
        );
    });
    let tokens = tokens.unwrap();
    ops.run(&format!("trust-token/{name}/redeem"), |_| {
        for token in &tokens {
            let redemption = client.begin_redemption(token, b"client data").unwrap();
            let r = issuer.redeem(&redemption).unwrap();
            assert_eq!(r.key_id, 1);
            // The bit read back, for the test's own check.
            public(&r.private_metadata);
            public(&bit);
            assert_eq!(r.private_metadata, bit);
        }
    });
}

/// ARC v2 (Privacy Pass ARC, P-256): key generation, credential request, issuance and
/// finalization (the credential is the client's secret), presentations and their verification.
fn arc(ops: &mut Ops) {
    use privacy_tokens::arc::privacy_pass::{
        Client, CredentialRequest, CredentialResponse, Issuer, Token, TokenChallenge,
    };
    use privacy_tokens::arc::{ArcV2P256, ServerPrivateKey};
    let mut issuer = None;
    ops.run("arc/v2/keygen", |rng| {
        issuer = Some(Issuer::new(ServerPrivateKey::<ArcV2P256>::random(rng)));
    });
    let issuer = issuer.unwrap();
    let challenge = TokenChallenge::new(b"issuer.example", &[], b"origin.example", &[]).unwrap();
    let mut request = None;
    ops.run("arc/v2/request", |rng| {
        let (r, state) = Client::request(&challenge, issuer.public_key(), rng).unwrap();
        request = Some((r.to_bytes(), state));
    });
    let (request_bytes, state) = request.unwrap();
    let mut response = None;
    ops.run("arc/v2/issue", |rng| {
        let r = CredentialRequest::from_bytes(&request_bytes).unwrap();
        response = Some(issuer.issue(&r, rng).unwrap().to_bytes());
    });
    let response_bytes = response.unwrap();
    let mut credential = None;
    ops.run("arc/v2/finalize", |_| {
        let r = CredentialResponse::from_bytes(&response_bytes).unwrap();
        credential = Some(state.finalize(&r).unwrap());
    });
    let mut credential = credential.unwrap();
    let redeem =
        TokenChallenge::new(b"issuer.example", &[0x42; 32], b"origin.example", &[]).unwrap();
    let mut sent = Vec::new();
    ops.run("arc/v2/present", |rng| {
        let mut tokens =
            Client::token_state(&mut credential, &redeem, issuer.public_key(), 3).unwrap();
        for _ in 0..2 {
            sent.push(tokens.token(rng).unwrap().to_bytes());
        }
    });
    ops.run("arc/v2/verify", |_| {
        let tags: Vec<_> = sent
            .iter()
            .map(|bytes| {
                issuer
                    .verify(&Token::from_bytes(bytes).unwrap(), &redeem, 3)
                    .unwrap()
            })
            .collect();
        assert_ne!(tags[0], tags[1]);
    });
}

/// ARC v1 (legacy, P-256; the nonce in the clear): request, issuance, finalization, a legacy
/// presentation and its verification.
fn arc_legacy(ops: &mut Ops) {
    use privacy_tokens::arc::{ArcV1P256, CredentialRequest, ServerPrivateKey};
    ops.run("arc/v1/flow", |rng| {
        let server = ServerPrivateKey::<ArcV1P256>::random(rng);
        let req = CredentialRequest::<ArcV1P256>::new(b"request context", rng).unwrap();
        let response = server.issue(&req.message, rng).unwrap();
        let mut credential = req.state.finalize(server.public_key(), &response).unwrap();
        let mut state = credential
            .legacy_presentation_state(b"presentation context", 10, rng)
            .unwrap();
        let (presentation, nonce) = state.present(rng).unwrap();
        let tag = server
            .verify_legacy_presentation(
                b"request context",
                b"presentation context",
                &presentation,
                nonce,
                10,
            )
            .unwrap();
        assert_eq!(tag, presentation.tag());
    });
}

/// Marks an RSA key's private values undefined (the library's test hook, feature
/// `ct-validation`; without it, nothing).
fn mark_rsa_key(sk: &privacy_tokens::blind_rsa::SecretKey) {
    #[cfg(feature = "ct-validation")]
    sk.mark_secret_for_validation();
    #[cfg(not(feature = "ct-validation"))]
    let _ = sk;
}

/// RSA blind signatures (RFC 9474) and partially blind RSA: the signer's `BlindSign` (the CRT
/// private operation and its fault check) with the key's `p`, `q`, `d`, `dp`, `dq`, `qinv` and
/// `phi` marked undefined (the key is loaded from published test values, in variable time, then
/// marked: `SecretKey::mark_secret_for_validation`), and the client's `Blind` (the blind `r`
/// and the salt from the secret RNG, the inverse, the multiplication) and `Finalize` (the
/// inverse secret). The library publishes the blinded message, the blind signature and the
/// signature, and declassifies only the outcomes of its checks. The prepared message is
/// public here (it is sent with the token); the Randomized variants' prefix comes from a public
/// RNG for that reason. Then Privacy Pass type 0x0002 and 0xDA7A issuance (`Issuer::issue`,
/// `issue_extended`) on the same secret key.
fn blind_rsa(ops: &mut Ops) {
    use privacy_tokens::blind_rsa::privacy_pass::{
        Client, Extension, Extensions, Issuer, TokenKey,
    };
    use privacy_tokens::blind_rsa::{prepare, test_key, Variant};
    let sk = test_key().unwrap();
    ops.run("blind-rsa/mark-key-secret", |_| mark_rsa_key(&sk));
    let pk = sk.public_key().clone();
    // Extensions whose derived key exists for this key (not made of safe primes: `e'` may
    // share a factor with phi), found outside the counted operations on an unmarked copy.
    let extensions = (0u8..64)
        .map(|i| {
            Extensions::new(vec![Extension {
                extension_type: 1,
                data: vec![b'm', i],
            }])
            .unwrap()
        })
        .find(|e| test_key().unwrap().derive(e.as_bytes()).is_ok())
        .unwrap();
    let info = extensions.as_bytes().to_vec();
    for variant in [Variant::PssRandomized, Variant::PssZeroDeterministic] {
        let name = variant.name();
        let msg = prepare(
            variant,
            b"ct-valgrind message",
            &mut StdRng::seed_from_u64(1),
        );
        let mut blinded = None;
        ops.run(&format!("blind-rsa/{name}/blind"), |rng| {
            blinded = Some(pk.blind(variant, &msg, rng).unwrap());
        });
        let (blinded, state) = blinded.unwrap();
        let mut blind_sig = None;
        ops.run(&format!("blind-rsa/{name}/blind_sign"), |_| {
            blind_sig = Some(sk.blind_sign(blinded.as_bytes()).unwrap());
        });
        let blind_sig = blind_sig.unwrap();
        ops.run(&format!("blind-rsa/{name}/finalize+verify"), |_| {
            let sig = state.finalize(blind_sig.as_bytes()).unwrap();
            pk.verify(variant, &msg, sig.as_bytes()).unwrap();
        });
    }
    let variant = Variant::PssDeterministic;
    let mut blinded = None;
    ops.run("blind-rsa/with_info/blind", |rng| {
        blinded = Some(pk.blind_with_info(variant, b"msg", &info, rng).unwrap());
    });
    let (blinded, state) = blinded.unwrap();
    let mut blind_sig = None;
    ops.run("blind-rsa/with_info/blind_sign (derive+CRT)", |_| {
        blind_sig = Some(sk.blind_sign_with_info(blinded.as_bytes(), &info).unwrap());
    });
    let blind_sig = blind_sig.unwrap();
    ops.run("blind-rsa/with_info/finalize+verify", |_| {
        let sig = state.finalize(blind_sig.as_bytes()).unwrap();
        pk.verify_with_info(variant, b"msg", &info, sig.as_bytes())
            .unwrap();
    });
    // Privacy Pass: the issuer's steps on the secret key. The client's request is made with a
    // public RNG (its nonce becomes public with the token).
    let issuer = Issuer::new(sk).unwrap();
    let token_key = TokenKey::from_spki(issuer.token_key().to_spki()).unwrap();
    let mut plain = StdRng::seed_from_u64(2);
    let challenge = |t: u16| {
        privacy_tokens::voprf::privacy_pass::TokenChallenge::new(
            t,
            b"issuer.example".to_vec(),
            vec![],
            b"origin.example".to_vec(),
        )
        .unwrap()
        .to_bytes()
    };
    let (request, state) = Client::request(&token_key, &challenge(0x0002), &mut plain).unwrap();
    let mut response = None;
    ops.run("privacy-pass/0x0002/issue", |_| {
        response = Some(issuer.issue(&request.to_bytes()).unwrap().to_bytes());
    });
    state.finalize(&response.unwrap()).unwrap();
    let (request, state) =
        Client::request_with_extensions(&token_key, &challenge(0xDA7A), &extensions, &mut plain)
            .unwrap();
    let mut response = None;
    ops.run("privacy-pass/0xDA7A/issue_extended", |_| {
        response = Some(
            issuer
                .issue_extended(&request.to_bytes(), |_| true)
                .unwrap()
                .to_bytes(),
        );
    });
    state.finalize(&response.unwrap()).unwrap();
    // The client's steps with everything from the secret RNG: the nonce (public only once the
    // token is presented: a request that leaked it would link issuance to redemption), the
    // PSS salt and the blind. Its request is public (sent), the response too.
    for (t, ext) in [(0x0002u16, None), (0xDA7A, Some(&extensions))] {
        let mut pending = None;
        ops.run(&format!("privacy-pass/{t:#06x}/client-request"), |rng| {
            pending = Some(match ext {
                None => Client::request(&token_key, &challenge(t), rng)
                    .map(|(r, s)| (r.to_bytes(), s))
                    .unwrap(),
                Some(e) => Client::request_with_extensions(&token_key, &challenge(t), e, rng)
                    .map(|(r, s)| (r.to_bytes(), s))
                    .unwrap(),
            });
        });
        let (request, state) = pending.unwrap();
        public(&request[..]);
        let response = match ext {
            None => issuer.issue(&request).unwrap().to_bytes(),
            Some(_) => issuer
                .issue_extended(&request, |_| true)
                .unwrap()
                .to_bytes(),
        };
        ops.run(&format!("privacy-pass/{t:#06x}/client-finalize"), |_| {
            let token = state.finalize(&response).unwrap();
            std::hint::black_box(token.to_bytes());
        });
    }
}

/// The control: a branch and a table index on a secret byte, and a variable-time multiplication
/// by a secret scalar; memcheck must report them.
fn control(ops: &mut Ops) {
    ops.run("control/branch", |rng| {
        let mut k = [0u8; 1];
        rng.fill_bytes(&mut k);
        // A call in one arm keeps this a jump (not a conditional move).
        if std::hint::black_box(k[0]) & 1 == 1 {
            std::hint::black_box(format!("{}", 1));
        }
    });
    ops.run("control/table-index", |rng| {
        let mut k = [0u8; 1];
        rng.fill_bytes(&mut k);
        let table: [u8; 256] = std::hint::black_box(core::array::from_fn(|i| i as u8));
        std::hint::black_box(table[usize::from(std::hint::black_box(k[0]))]);
    });
    ops.run("control/vartime-mul", |rng| {
        use privacy_tokens::group::{self, NistP384};
        let k = group::random_scalar::<NistP384>(rng);
        let p =
            group::mul_generator::<NistP384>(&group::random_scalar::<NistP384>(&mut rand::rng()));
        let p = group::to_affine::<NistP384>(&p);
        std::hint::black_box(group::vartime_mul::<NistP384>(&p, &k));
    });
    ops.run("control/rsa-marked-key-export", |_| {
        // The RSA key's marking is live: its PEM export (a base64 table indexed by the key's
        // bytes, key serialization being variable time) must be reported.
        let sk = privacy_tokens::blind_rsa::test_key().unwrap();
        mark_rsa_key(&sk);
        std::hint::black_box(sk.to_pem());
    });
}

/// ACT (`ACTv1-P256-SHA256`, L = 16): the Moderator's key generation from the secret RNG,
/// issuance (`e` derivation, `(e + skM)^-1`, `x^-1 * X_A`), the Client's request and
/// finalisation, `ProveSpend` on a credential whose every field (the nullifier `k`, the balance
/// `c`, `r`, `A`, `e`) is marked undefined (the balance must not steer a branch or an index: the
/// bit decomposition, the bit commitments and the range proof's witness), the Moderator's
/// `VerifySpend` (its `skM * A'`) and `IssueRefund`, and the Client's `FinalizeRefund`. The
/// library publishes the messages it sends and declassifies the outcomes of its checks only.
fn act(ops: &mut Ops) {
    use privacy_tokens::act::{ClientIssuanceState, CredentialContext, PrivateKey};
    let ctx = CredentialContext::with_width(b"ct-valgrind", 16).unwrap();
    let mut key = None;
    ops.run("act/keygen", |rng| {
        key = Some(PrivateKey::generate(rng).unwrap())
    });
    let key = key.unwrap();
    let mut request = None;
    ops.run("act/request", |rng| {
        request = Some(ClientIssuanceState::request(rng).unwrap());
    });
    let request = request.unwrap();
    let mut response = None;
    ops.run("act/issue", |rng| {
        response = Some(key.issue(&ctx, 1000, &request.message, rng).unwrap());
    });
    let response = response.unwrap();
    let mut credential = None;
    ops.run("act/finalize", |_| {
        credential = Some(
            request
                .state
                .finalize(&ctx, key.public_key(), &response)
                .unwrap(),
        );
    });
    let credential = credential.unwrap();
    for (s, a) in [(30, 0), (0, 0), (5, 7)] {
        // A copy of the credential for each spend (decoded from bytes the test declares
        // public, so that the decoding is not counted), then every field marked secret.
        let bytes = credential.to_bytes();
        public(&*bytes);
        let credential = privacy_tokens::act::Credential::from_bytes(&*bytes).unwrap();
        secret(&credential);
        let mut spend = None;
        ops.run(&format!("act/prove_spend/s={s},a={a}"), |rng| {
            spend = Some(credential.prove_spend(&ctx, s, a, b"ctx", rng).unwrap());
        });
        let spend = spend.unwrap();
        let mut refund = None;
        ops.run(
            &format!("act/verify_spend+issue_refund/s={s},a={a}"),
            |rng| {
                let verified = key.verify_spend(&ctx, &spend.message, b"ctx").unwrap();
                refund = Some(key.issue_refund(&ctx, &verified, s / 2 + a, rng).unwrap());
            },
        );
        let refund = refund.unwrap();
        ops.run(&format!("act/finalize_refund/s={s},a={a}"), |_| {
            let next = spend
                .state
                .finalize(&ctx, key.public_key(), &refund)
                .unwrap();
            std::hint::black_box(next);
        });
    }
}

/// Rollatini: the Anchor's key generation, `Commit` and `Respond` (its key and `(a, y, t)`), the
/// Client's `Challenge` and `Finalize` (its blinds and `nf`), and `Redeem` at Anchor Sets of 3
/// and 8 keys on an Endorsement and an Anchor key marked undefined: the Client's Anchor, hence
/// its index in the set, must steer no branch and no index (the key selection, the leaf, the
/// siblings, `PermutationPair`'s direction). The library publishes what it sends (`A`, `C`,
/// the challenge, the response, `X_hat`, the shown signature, the keys, the openings, the
/// proof's challenge and response).
fn rollatini(ops: &mut Ops) {
    use privacy_tokens::rollatini::{Anchor, AnchorSet, ClientState, Endorsement, PublicKey};
    let mut anchors = Vec::new();
    for i in 0..8 {
        ops.run(&format!("rollatini/keygen/{i}"), |rng| {
            anchors.push(Anchor::generate(rng).unwrap())
        });
    }
    let a = &anchors[5];
    let mut commit = None;
    ops.run("rollatini/commit", |rng| {
        commit = Some(a.commit(b"ctx_iss", b"session", rng).unwrap());
    });
    let commit = commit.unwrap();
    let mut challenge = None;
    ops.run("rollatini/challenge", |rng| {
        challenge = Some(
            ClientState::challenge(a.public_key(), b"ctx_iss", b"ctx_red", &commit.message, rng)
                .unwrap(),
        );
    });
    let challenge = challenge.unwrap();
    let mut response = None;
    ops.run("rollatini/respond", |_| {
        response = Some(a.respond(commit.state, &challenge.message).unwrap());
    });
    let response = response.unwrap();
    let mut endorsement = None;
    ops.run("rollatini/finalize", |_| {
        endorsement = Some(challenge.state.finalize(a.public_key(), &response).unwrap());
    });
    let bytes = endorsement.unwrap().to_bytes();
    public(&*bytes);
    let keys: Vec<PublicKey> = anchors.iter().map(|k| *k.public_key()).collect();
    for n in [3usize, 8] {
        // Sets of 3 (the Anchor first) and 8 (the Anchor at 5).
        let set = AnchorSet::new(&keys[8 - n..(8 - n + 3).max(n)]).unwrap();
        let e = Endorsement::from_bytes(&*bytes).unwrap();
        secret(&e);
        // The Client's Anchor (its position in the set is the secret index).
        let mine = *a.public_key();
        secret(&mine);
        let mut redemption = None;
        ops.run(&format!("rollatini/redeem/n={n}"), |rng| {
            redemption = Some(
                e.redeem(&set, &mine, b"ctx_iss", b"ctx_red", b"digest", rng)
                    .unwrap(),
            );
        });
        public(&mine);
        std::hint::black_box(redemption.unwrap().to_bytes());
    }
}

#[test]
fn ct_valgrind() {
    let on = memcheck::running_on_valgrind();
    let mut ops = Ops {
        rng: SecretRng(StdRng::seed_from_u64(0xc7_5a1d)),
        done: Vec::new(),
    };
    if std::env::var_os("CT_VALGRIND_CONTROL").is_some() {
        control(&mut ops);
    } else {
        group_ops::<<P256Sha256 as Suite>::Group>(&mut ops, "P-256");
        group_ops::<<P384Sha384 as Suite>::Group>(&mut ops, "P-384");
        group_ops::<<P521Sha512 as Suite>::Group>(&mut ops, "P-521");
        group_ops::<<Ristretto255Sha512 as Suite>::Group>(&mut ops, "ristretto255");
        group_ops::<<Decaf448Shake256 as Suite>::Group>(&mut ops, "decaf448");
        nist_ops::<group::NistP256>(&mut ops, "P-256");
        nist_ops::<group::NistP384>(&mut ops, "P-384");
        suite::<P256Sha256>(&mut ops, "P256-SHA256");
        suite::<P384Sha384>(&mut ops, "P384-SHA384");
        suite::<P521Sha512>(&mut ops, "P521-SHA512");
        suite::<Ristretto255Sha512>(&mut ops, "ristretto255-SHA512");
        suite::<Decaf448Shake256>(&mut ops, "decaf448-SHAKE256");
        privacy_pass::<privacy_tokens::voprf::privacy_pass::Type1>(&mut ops, "0x0001");
        privacy_pass::<privacy_tokens::voprf::privacy_pass::Type5>(&mut ops, "0x0005");
        for method in privacy_tokens::trust_token::Method::ALL {
            trust_token(&mut ops, method);
        }
        arc(&mut ops);
        arc_legacy(&mut ops);
        blind_rsa(&mut ops);
        act(&mut ops);
        rollatini(&mut ops);
    }
    let errors: u64 = ops.done.iter().map(|(_, e)| e).sum();
    println!("ct-valgrind backend: {}", group::arithmetic_backend());
    println!(
        "ct-valgrind: {} operations, {errors} errors{}",
        ops.done.len(),
        if !memcheck::ENABLED {
            " (built without the ct-validation feature: the client requests are off)"
        } else if !on {
            " (not under valgrind: the client requests are no-ops)"
        } else {
            ""
        }
    );
}
