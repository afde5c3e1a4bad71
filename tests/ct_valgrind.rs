//! Secrets checked by valgrind (BoringSSL's and AWS-LC's `CONSTANT_TIME_VALIDATION` practice):
//! every secret (keys, blinds, proof nonces, the private metadata bit, ARC credentials) comes
//! from an RNG whose output is marked undefined with memcheck client requests, and each
//! secret-dependent public operation of every protocol and suite runs on it. Under
//! `valgrind --error-exitcode=1`, any branch or memory address that depends on a secret is a
//! memcheck error. Messages are marked defined where the protocol publishes them (after
//! blinding); the test's own checks only look at values so marked.
//!
//! What runs: the group layer's secret operations on all five groups (P-256, P-384, P-521,
//! ristretto255, decaf448; the NIST curves' blinded ladders and fixed-base tables too) and the
//! OPRF steps of all five suites (key generation, blind, blind evaluation, finalize,
//! evaluate). The steps with proofs (VOPRF, POPRF) and the token protocols (Privacy Pass, Trust
//! Token with the private metadata bit, ARC) are written below but run only with
//! `CT_VALGRIND_PROOFS=1` and are not yet clean: their statements (evaluated elements, proof
//! commitments) are computed from secrets and published inside one step, and the variable-time
//! proof arithmetic on them is reported until the library declassifies them at those points.
//! Valgrind 3.19 hides ADX from `cpuid`, so the field arithmetic checked is the portable code
//! (the line `ct-valgrind backend:` says which).
//!
//! Run by `bash scripts/ct-valgrind.sh`, which also runs the control (`CT_VALGRIND_CONTROL=1`:
//! a planted branch and table index on a secret byte, and a variable-time multiplication by a
//! secret scalar), which memcheck must detect. Without valgrind this is an ordinary (fast) test
//! of the same flows.

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

fn voprf<S: Suite>(ops: &mut Ops, suite: &str) {
    let input = b"ct-valgrind input";
    // OPRF: key generation, blind, blind evaluation, finalize, evaluate.
    let mut server = None;
    ops.run(&format!("{suite}/oprf/keygen"), |rng| {
        server = Some(OprfServer::<S>::new(rng));
    });
    let server = server.unwrap();
    let mut blind = None;
    ops.run(&format!("{suite}/oprf/blind"), |rng| {
        let b = OprfClient::<S>::blind(input, rng).unwrap();
        public(&b.message);
        blind = Some(b);
    });
    let b = blind.unwrap();
    let mut eval = None;
    ops.run(&format!("{suite}/oprf/blind_evaluate"), |_| {
        let e = server.blind_evaluate(&b.message);
        public(&e);
        eval = Some(e);
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

/// VOPRF and POPRF (the steps with proofs).
fn voprf_proofs<S: Suite>(ops: &mut Ops, suite: &str) {
    let input = b"ct-valgrind input";
    // VOPRF: key generation (the public key published), batched blind evaluation with a proof.
    let mut server = None;
    ops.run(&format!("{suite}/voprf/keygen"), |rng| {
        let s = VoprfServer::<S>::new(rng);
        public(s.public_key());
        server = Some(s);
    });
    let server = server.unwrap();
    let inputs: [&[u8]; 2] = [b"first", b"second"];
    let mut blinds = Vec::new();
    ops.run(&format!("{suite}/voprf/blind"), |rng| {
        for i in inputs {
            let b = VoprfClient::<S>::blind(i, rng).unwrap();
            public(&b.message);
            blinds.push(b);
        }
    });
    let msgs: Vec<_> = blinds.iter().map(|b| b.message).collect();
    let mut eval = None;
    ops.run(&format!("{suite}/voprf/blind_evaluate_batch"), |rng| {
        let ev = server.blind_evaluate_batch(rng, &msgs).unwrap();
        public(&ev.messages[..]);
        public(&ev.proof);
        eval = Some(ev);
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

    // POPRF: the tweaked key from the info, evaluation with a proof.
    let mut server = None;
    ops.run(&format!("{suite}/poprf/keygen"), |rng| {
        let s = PoprfServer::<S>::new(rng);
        public(s.public_key());
        server = Some(s);
    });
    let server = server.unwrap();
    let mut blind = None;
    ops.run(&format!("{suite}/poprf/blind"), |rng| {
        let b = PoprfClient::<S>::blind(input, b"info", server.public_key(), rng).unwrap();
        public(&b.message);
        blind = Some(b);
    });
    let b = blind.unwrap();
    let mut eval = None;
    ops.run(&format!("{suite}/poprf/blind_evaluate"), |rng| {
        let e = server.blind_evaluate(rng, &b.message, b"info").unwrap();
        public(&e);
        eval = Some(e);
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
}

/// Privacy Pass issuance of token types 0x0001 (VOPRF P-384) and 0x0005 (VOPRF ristretto255),
/// single and batched, and the issuer's token verification.
fn privacy_pass<T: privacy_tokens::voprf::privacy_pass::TokenType>(ops: &mut Ops, name: &str) {
    use privacy_tokens::voprf::privacy_pass::generic::{
        Client, Issuer, Token, TokenRequest, TokenResponse,
    };
    use privacy_tokens::voprf::privacy_pass::TokenChallenge;
    let mut issuer = None;
    ops.run(&format!("privacy-pass/{name}/keygen"), |rng| {
        let mut seed = [0u8; 48];
        rng.fill_bytes(&mut seed);
        let i = Issuer::<T>::new(VoprfServer::derive(&seed, b"PrivacyPass").unwrap());
        public(i.public_key());
        issuer = Some(i);
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
        let bytes = r.to_bytes();
        public(bytes.as_ref());
        request = Some((bytes, state));
    });
    let (request_bytes, state) = request.unwrap();
    let mut response = None;
    ops.run(&format!("privacy-pass/{name}/issue"), |rng| {
        let r = TokenRequest::<T>::from_bytes(request_bytes.as_ref()).unwrap();
        let bytes = issuer.issue(rng, &r).unwrap().to_bytes();
        public(bytes.as_ref());
        response = Some(bytes);
    });
    let response_bytes = response.unwrap();
    let mut token = None;
    ops.run(&format!("privacy-pass/{name}/finalize"), |_| {
        let r = TokenResponse::<T>::from_bytes(response_bytes.as_ref()).unwrap();
        let bytes = state.finalize(&r).unwrap().to_bytes();
        public(bytes.as_ref());
        token = Some(bytes);
    });
    let token_bytes = token.unwrap();
    ops.run(&format!("privacy-pass/{name}/verify_token"), |_| {
        let t = Token::<T>::from_bytes(token_bytes.as_ref()).unwrap();
        let ok = issuer.verify_token(&t).unwrap();
        public(&ok);
        assert!(ok);
    });
    ops.run(&format!("privacy-pass/{name}/batch"), |rng| {
        let (request, state) =
            Client::<T>::request_batch(issuer.public_key(), &challenge, 3, rng).unwrap();
        let request_bytes = request.to_bytes();
        public(&request_bytes[..]);
        let response_bytes = issuer
            .issue_batch_from_bytes(rng, &request_bytes)
            .unwrap()
            .to_bytes();
        public(&response_bytes[..]);
        let response = state.response_from_bytes(&response_bytes).unwrap();
        let tokens = state.finalize_batch(&response).unwrap();
        for t in &tokens {
            let bytes = t.to_bytes();
            public(bytes.as_ref());
            let t = Token::<T>::from_bytes(bytes.as_ref()).unwrap();
            let ok = issuer.verify_token(&t).unwrap();
            public(&ok);
            assert!(ok);
        }
    });
}

/// Trust Token issuance (the private metadata bit a secret in PMB) and redemption, every method.
fn trust_token(ops: &mut Ops) {
    use privacy_tokens::trust_token::{generate_key, Client, Issuer, Method};
    for method in Method::ALL {
        let name = method.name();
        let mut issuer = Issuer::new(method, 10);
        let mut client = Client::new(method, 10);
        ops.run(&format!("trust-token/{name}/keygen"), |rng| {
            for key_id in 0..method.max_keys() as u32 {
                let (private, public_key) = generate_key(method, key_id, rng);
                issuer.add_key(private).unwrap();
                let bytes = public_key.to_bytes();
                public(&bytes[..]);
                client.add_key_bytes(&bytes).unwrap();
            }
        });
        let mut request = None;
        ops.run(&format!("trust-token/{name}/begin_issuance"), |rng| {
            let r = client.begin_issuance(3, rng).unwrap();
            public(&r.message[..]);
            request = Some(r);
        });
        let request = request.unwrap();
        let mut response = None;
        ops.run(&format!("trust-token/{name}/issue"), |rng| {
            // The private metadata bit: a secret (PMB methods only).
            let bit = method.has_private_metadata() && rng.next_u32() & 1 == 1;
            let r = issuer.issue(&request.message, 1, bit, 10, rng).unwrap();
            public(&r.message[..]);
            response = Some(r);
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
            let redemption = client.begin_redemption(&tokens[0], b"client data").unwrap();
            public(&redemption[..]);
            let r = issuer.redeem(&redemption).unwrap();
            public(&r);
            assert_eq!(r.key_id, 1);
        });
    }
}

/// ARC (Privacy Pass ARC, P-256): issuance of a credential (the client's secret) and tokens.
fn arc(ops: &mut Ops) {
    use privacy_tokens::arc::privacy_pass::{
        Client, CredentialRequest, CredentialResponse, Issuer, Token, TokenChallenge,
    };
    use privacy_tokens::arc::{ArcV2P256, ServerPrivateKey};
    let mut issuer = None;
    ops.run("arc/P-256/keygen", |rng| {
        let i = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(rng));
        public(i.public_key());
        issuer = Some(i);
    });
    let issuer = issuer.unwrap();
    let challenge = TokenChallenge::new(b"issuer.example", &[], b"origin.example", &[]).unwrap();
    let mut request = None;
    ops.run("arc/P-256/request", |rng| {
        let (r, state) = Client::request(&challenge, issuer.public_key(), rng).unwrap();
        let bytes = r.to_bytes();
        public(&bytes[..]);
        request = Some((bytes, state));
    });
    let (request_bytes, state) = request.unwrap();
    let mut response = None;
    ops.run("arc/P-256/issue", |rng| {
        let r = CredentialRequest::from_bytes(&request_bytes).unwrap();
        let bytes = issuer.issue(&r, rng).unwrap().to_bytes();
        public(&bytes[..]);
        response = Some(bytes);
    });
    let response_bytes = response.unwrap();
    let mut credential = None;
    ops.run("arc/P-256/finalize", |_| {
        let r = CredentialResponse::from_bytes(&response_bytes).unwrap();
        credential = Some(state.finalize(&r).unwrap());
    });
    let mut credential = credential.unwrap();
    let redeem =
        TokenChallenge::new(b"issuer.example", &[0x42; 32], b"origin.example", &[]).unwrap();
    ops.run("arc/P-256/present-and-verify", |rng| {
        let mut tokens =
            Client::token_state(&mut credential, &redeem, issuer.public_key(), 3).unwrap();
        for _ in 0..2 {
            let bytes = tokens.token(rng).unwrap().to_bytes();
            public(&bytes[..]);
            let tag = issuer
                .verify(&Token::from_bytes(&bytes).unwrap(), &redeem, 3)
                .unwrap();
            public(&tag);
        }
    });
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
        voprf::<P256Sha256>(&mut ops, "P256-SHA256");
        voprf::<P384Sha384>(&mut ops, "P384-SHA384");
        voprf::<P521Sha512>(&mut ops, "P521-SHA512");
        voprf::<Ristretto255Sha512>(&mut ops, "ristretto255-SHA512");
        voprf::<Decaf448Shake256>(&mut ops, "decaf448-SHAKE256");
    }
    if std::env::var_os("CT_VALGRIND_PROOFS").is_some() {
        // The steps with proofs and the token protocols: not yet clean (their statements are
        // computed from secrets and published inside one step; declassifying them needs
        // client requests in the library at those points), so not in the checked set.
        voprf_proofs::<P256Sha256>(&mut ops, "P256-SHA256");
        voprf_proofs::<P384Sha384>(&mut ops, "P384-SHA384");
        voprf_proofs::<P521Sha512>(&mut ops, "P521-SHA512");
        voprf_proofs::<Ristretto255Sha512>(&mut ops, "ristretto255-SHA512");
        voprf_proofs::<Decaf448Shake256>(&mut ops, "decaf448-SHAKE256");
        privacy_pass::<privacy_tokens::voprf::privacy_pass::Type1>(&mut ops, "0x0001");
        privacy_pass::<privacy_tokens::voprf::privacy_pass::Type5>(&mut ops, "0x0005");
        trust_token(&mut ops);
        arc(&mut ops);
    }
    let errors: u64 = ops.done.iter().map(|(_, e)| e).sum();
    println!("ct-valgrind backend: {}", group::arithmetic_backend());
    println!(
        "ct-valgrind: {} operations, {errors} errors{}",
        ops.done.len(),
        if on {
            ""
        } else {
            " (not under valgrind: the client requests are no-ops)"
        }
    );
}
