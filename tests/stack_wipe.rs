//! Review finding 5, on the stack: once an operation that handles secrets returns, no copy of
//! its keys, nonces or blinds is left in the stack memory it used.
//!
//! Each scenario runs one public operation with a recording RNG, copies the stale stack below
//! the caller's frame straight after it returns, and only then computes what to look for: every
//! scalar the RNG gave (proof nonces, blinds, the ladder blind), the key's scalars, and the
//! secrets that follow from the public proof (the POPRF tweak `t` and `t^-1`, the DLEQ `c·k`),
//! each in its in-memory form and as big-endian bytes. A control checks that the scan sees a
//! value left on the stack. Optimised builds only: without optimisations the compiler keeps
//! extra temporaries that no source-level wipe reaches.
//!
//! With the wipe disabled (`crate::stack::wiped` running the body alone) the scan finds the PMB
//! prover's seven nonces (`k0`, `k1` among them), the ARC presentation's nonces, the VOPRF blind
//! and its inverse, Trust Token blinds and an ARC request secret: by-value arithmetic in the
//! curve crates and in the provers leaves copies in frames no `Zeroizing` reaches. With it, none.
//!
//! With `--features rayon`, `split_batches_leave_no_secret_on_worker_stacks` also scans the
//! stale stacks of rayon's workers after every split batch path (each worker's share of a batch
//! runs inside the same wipe, `src/par.rs`).

#[path = "support/secret_scan.rs"]
mod secret_scan;

use core::hint::black_box;

use privacy_tokens::arc::{
    self, ArcSuite, Credential, CredentialRequest, HiddenNonceSuite, ServerPrivateKey,
};
use privacy_tokens::group::{self, Curve, Scalar};
use privacy_tokens::trust_token::{generate_key, Client, Issuer, Method, PrivateKey};
use privacy_tokens::voprf::privacy_pass;
use privacy_tokens::voprf::{PoprfServer, Proof, VoprfClient, VoprfServer};
use privacy_tokens::{P384Sha384, Suite};
use rand::rngs::StdRng;
use rand::SeedableRng;
use secret_scan::{assert_scan_sees_stale_stack, forms, stack_use_of, Recording, StaleStack};

type S = P384Sha384;
type C = <S as Suite>::Group;

/// Named needles: both in-memory forms of each named scalar.
#[derive(Default)]
struct Needles(Vec<(String, Vec<u8>)>);

impl Needles {
    fn add<K: Curve>(&mut self, name: impl Into<String>, s: &Scalar<K>) {
        let name = name.into();
        let [limbs, be] = forms::<K>(s);
        self.0.push((format!("{name} (limbs)"), limbs));
        self.0.push((format!("{name} (bytes)"), be));
    }

    fn add_all<K: Curve>(&mut self, prefix: &str, scalars: &[Scalar<K>]) {
        for (i, s) in scalars.iter().enumerate() {
            self.add::<K>(format!("{prefix}[{i}]"), s);
        }
    }

    /// The blinds and their inverses.
    fn add_blinds(&mut self, blinds: &[Scalar<C>]) {
        self.add_all::<C>("blind", blinds);
        let inverses: Vec<_> = blinds
            .iter()
            .map(|b| group::invert::<C>(b).expect("non-zero"))
            .collect();
        self.add_all::<C>("1/blind", &inverses);
    }

    /// A POPRF server's secrets after a proof with nonce `r`: `r`, the key `k`, the tweak
    /// `t = k + m` (from the public proof: `s = r - c*t`), `t^-1` and `c*t`.
    fn add_poprf(&mut self, r: &Scalar<C>, k: &Scalar<C>, proof: &Proof<S>) {
        let (c, s) = challenge_and_response(proof);
        let t = (*r - s) * group::invert::<C>(&c).expect("c != 0");
        self.add::<C>("r", r);
        self.add::<C>("k", k);
        self.add::<C>("t", &t);
        self.add::<C>("1/t", &group::invert::<C>(&t).expect("t != 0"));
        self.add::<C>("c*t", &(c * t));
    }

    /// Every canonical scalar in the `K::SCALAR_LEN`-byte chunks of a key blob, from `skip`.
    fn add_key_blob<K: Curve>(&mut self, prefix: &str, blob: &[u8], skip: usize) {
        let keys: Vec<Scalar<K>> = blob[skip..]
            .chunks_exact(K::SCALAR_LEN)
            .filter_map(|c| group::decode_nonzero_scalar::<K>(c).ok())
            .collect();
        assert!(!keys.is_empty(), "no key scalar in the blob");
        self.add_all::<K>(prefix, &keys);
    }

    /// Records in `leaks` what `stale` holds of these needles after `what`.
    fn check(&self, stale: &StaleStack, what: &str, leaks: &mut Vec<String>) {
        let found = stale.found(&self.0);
        println!(
            "stale stack after {what}: {} needles, {} found",
            self.0.len(),
            found.len()
        );
        if !found.is_empty() {
            leaks.push(format!("{what}: {found:?}"));
        }
    }
}

fn assert_no_leaks(leaks: &[String]) {
    assert!(leaks.is_empty(), "left on the stack:\n{}", leaks.join("\n"));
}

fn scalar(bytes: &[u8]) -> Scalar<C> {
    group::decode_scalar::<C>(bytes).expect("canonical scalar")
}

/// `(c, s)` of a DLEQ proof.
fn challenge_and_response(p: &Proof<S>) -> (Scalar<C>, Scalar<C>) {
    let bytes = p.to_bytes();
    (scalar(&bytes[..48]), scalar(&bytes[48..]))
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stale-stack scan needs an optimised build"
)]
fn voprf_and_poprf_leave_no_secret_on_the_stack() {
    assert_scan_sees_stale_stack();
    let mut leaks = Vec::new();
    let mut rng = StdRng::seed_from_u64(5);
    let mut stale = StaleStack::new();
    let mut rec = Recording::new(6);

    // Client blind (VOPRF mode): the blind.
    let blind = black_box(VoprfClient::<S>::blind(b"input", &mut rec).expect("blind"));
    stale.take();
    let mut n = Needles::default();
    n.add_all::<C>("blind", &rec.scalars::<C>());
    n.check(&stale, "VoprfClient::blind", &mut leaks);

    // Server: proof nonce r, key k, c·k.
    let voprf = VoprfServer::<S>::new(&mut rng);
    rec.clear();
    let eval = black_box(
        voprf
            .blind_evaluate(&mut rec, &blind.message)
            .expect("evaluate"),
    );
    stale.take();
    let r = rec.scalars::<C>();
    assert_eq!(r.len(), 1, "one proof nonce");
    let k = scalar(&voprf.secret_key().to_bytes());
    let (c, s) = challenge_and_response(&eval.proof);
    assert_eq!(r[0] - c * k, s, "recorded the proof nonce");
    let mut n = Needles::default();
    n.add::<C>("r", &r[0]);
    n.add::<C>("k", &k);
    n.add::<C>("c*k", &(c * k));
    n.check(&stale, "VoprfServer::blind_evaluate", &mut leaks);

    // Batch of 4.
    let blinded: Vec<_> = (0..4u8)
        .map(|i| {
            VoprfClient::<S>::blind(&[i], &mut rng)
                .expect("blind")
                .message
        })
        .collect();
    rec.clear();
    let batch = black_box(
        voprf
            .blind_evaluate_batch(&mut rec, &blinded)
            .expect("batch"),
    );
    stale.take();
    let (c, _) = challenge_and_response(&batch.proof);
    let mut n = Needles::default();
    n.add_all::<C>("r", &rec.scalars::<C>());
    n.add::<C>("k", &k);
    n.add::<C>("c*k", &(c * k));
    n.check(&stale, "VoprfServer::blind_evaluate_batch", &mut leaks);

    // Client finalize: the blind and its inverse.
    let mut rec7 = Recording::new(7);
    let state = VoprfClient::<S>::blind(b"input", &mut rec7).expect("blind");
    let eval = voprf
        .blind_evaluate(&mut rng, &state.message)
        .expect("evaluate");
    let out = black_box(
        state
            .state
            .finalize(b"input", &eval.message, &eval.proof, voprf.public_key())
            .expect("finalize"),
    );
    stale.take();
    black_box(out);
    let blinds = rec7.scalars::<C>();
    assert_eq!(blinds.len(), 1, "one blind");
    let blind_scalar = blinds[0];
    let mut n = Needles::default();
    n.add::<C>("blind", &blind_scalar);
    n.add::<C>(
        "1/blind",
        &group::invert::<C>(&blind_scalar).expect("non-zero"),
    );
    n.check(&stale, "VoprfClient::finalize", &mut leaks);

    // POPRF server: r, k, t = k + m, t^-1.
    let poprf = PoprfServer::<S>::new(&mut rng);
    rec.clear();
    let eval = black_box(
        poprf
            .blind_evaluate(&mut rec, &blind.message, b"info")
            .expect("evaluate"),
    );
    stale.take();
    let r = rec.scalars::<C>();
    let mut n = Needles::default();
    n.add_poprf(&r[0], &scalar(&poprf.secret_key().to_bytes()), &eval.proof);
    n.check(&stale, "PoprfServer::blind_evaluate", &mut leaks);
    assert_no_leaks(&leaks);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stale-stack scan needs an optimised build"
)]
fn privacy_pass_issuer_leaves_no_secret_on_the_stack() {
    assert_scan_sees_stale_stack();
    let mut leaks = Vec::new();
    let mut rng = StdRng::seed_from_u64(8);
    let mut stale = StaleStack::new();
    let issuer = privacy_pass::Issuer::new(VoprfServer::<S>::new(&mut rng));
    let challenge = privacy_pass::TokenChallenge::new(
        privacy_pass::TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )
    .expect("challenge")
    .to_bytes();
    // Client: the blind (one outer wipe for the request, none per token).
    let mut rec = Recording::new(10);
    let (req, state) = black_box(
        privacy_pass::Client::request(issuer.public_key(), &challenge, &mut rec).expect("request"),
    );
    stale.take();
    let mut n = Needles::default();
    n.add_all::<C>("blind", &rec.scalars::<C>());
    n.check(&stale, "privacy_pass::Client::request", &mut leaks);
    let mut rec = Recording::new(11);
    let batch = black_box(
        privacy_pass::Client::request_batch(issuer.public_key(), &challenge, 4, &mut rec)
            .expect("request_batch"),
    );
    stale.take();
    drop(batch);
    let mut n = Needles::default();
    n.add_all::<C>("blind", &rec.scalars::<C>());
    n.check(&stale, "privacy_pass::Client::request_batch", &mut leaks);
    let mut rec = Recording::new(9);
    let resp = black_box(issuer.issue(&mut rec, &req).expect("issue"));
    stale.take();
    black_box(resp);
    let mut n = Needles::default();
    n.add_all::<C>("r", &rec.scalars::<C>());
    n.add::<C>("k", &scalar(&issuer.server().secret_key().to_bytes()));
    n.check(&stale, "privacy_pass::Issuer::issue", &mut leaks);
    // Serializing a token (a bearer secret) wipes the encoding it makes for serde: no copy of
    // the token's authenticator (its last 48 bytes) is left below the caller.
    let token = state.finalize(&resp).expect("finalize");
    let json = black_box(serde_json::to_string(black_box(&token)).expect("serialize"));
    stale.take();
    let bytes = token.to_bytes();
    let authenticator = bytes[bytes.len() - 48..].to_vec();
    assert_eq!(json.len(), 2 * bytes.len() + 2, "a hex string");
    let n = Needles(vec![("token authenticator".to_string(), authenticator)]);
    n.check(
        &stale,
        "serde_json::to_string(&privacy_pass::Token)",
        &mut leaks,
    );
    // The same through a binary format, where the raw encoding itself is handed to the
    // serializer (so it exists in memory whatever the optimiser does) and wiped after.
    let (ok, seen) = serialize_binary(black_box(&token));
    stale.take();
    assert!(
        ok && seen == bytes.len(),
        "the token went out as one byte string"
    );
    n.check(
        &stale,
        "Serialize::serialize(&privacy_pass::Token) (binary)",
        &mut leaks,
    );
    assert_no_leaks(&leaks);
}

/// `t` through [`BytesSink`] in a frame of its own (so that whatever the serialization leaves
/// is below the caller once it returns): whether it succeeded and the byte string's length.
/// A kilobyte of padding keeps the serialization's frames clear of the few words the scan's own
/// call writes below the caller.
#[inline(never)]
fn serialize_binary(t: &impl serde::Serialize) -> (bool, usize) {
    let pad = black_box([0u8; 1024]);
    let out = serialize_binary_below(t);
    black_box(&pad);
    out
}

#[inline(never)]
fn serialize_binary_below(t: &impl serde::Serialize) -> (bool, usize) {
    let mut seen = 0;
    let ok = black_box(t.serialize(BytesSink(&mut seen))).is_ok();
    (ok, seen)
}

/// A binary (not human-readable) serializer that takes one byte string, records its length and
/// keeps nothing else; any other value is an error.
struct BytesSink<'a>(&'a mut usize);

/// The `serde::Serializer` methods `BytesSink` refuses (each returns an error): plain ones,
/// then those generic over the value they are given.
macro_rules! refuse {
    ($($name:ident($($t:ty),*) -> $ret:ty;)* $(<T> $gname:ident($($gt:ty),*);)*) => {
        $(fn $name(self, $(_: $t),*) -> Result<$ret, serde_json::Error> {
            Err(serde::ser::Error::custom("only bytes"))
        })*
        $(fn $gname<T: ?Sized + serde::Serialize>(
            self,
            $(_: $gt,)*
            _: &T,
        ) -> Result<(), serde_json::Error> {
            Err(serde::ser::Error::custom("only bytes"))
        })*
    };
}

/// Every compound serializer of `BytesSink`: none is ever made.
type Never = serde::ser::Impossible<(), serde_json::Error>;

impl serde::Serializer for BytesSink<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Never;
    type SerializeTuple = Never;
    type SerializeTupleStruct = Never;
    type SerializeTupleVariant = Never;
    type SerializeMap = Never;
    type SerializeStruct = Never;
    type SerializeStructVariant = Never;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline(never)]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), serde_json::Error> {
        *self.0 = black_box(v).len();
        Ok(())
    }

    refuse!(
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Never;
        serialize_tuple(usize) -> Never;
        serialize_tuple_struct(&'static str, usize) -> Never;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Never;
        serialize_map(Option<usize>) -> Never;
        serialize_struct(&'static str, usize) -> Never;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Never;
        <T> serialize_some();
        <T> serialize_newtype_struct(&'static str);
        <T> serialize_newtype_variant(&'static str, u32, &'static str);
    );
}

fn trust_token_pair(method: Method, rng: &mut StdRng) -> (Issuer, Client, PrivateKey) {
    let mut issuer = Issuer::new(method, 10);
    let mut client = Client::new(method, 10);
    let (sk, pk) = generate_key(method, 7, rng);
    issuer.add_key(sk.clone()).expect("add key");
    client.add_key(pk).expect("add key");
    (issuer, client, sk)
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stale-stack scan needs an optimised build"
)]
fn trust_token_issue_redeem_and_finish_leave_no_secret_on_the_stack() {
    assert_scan_sees_stale_stack();
    let mut leaks = Vec::new();
    let mut stale = StaleStack::new();
    for method in Method::ALL {
        let mut rng = StdRng::seed_from_u64(10);
        let (issuer, client, sk) = trust_token_pair(method, &mut rng);
        let key = sk.to_bytes();
        let bits: &[bool] = if method.has_private_metadata() {
            &[false, true]
        } else {
            &[false]
        };
        for &bit in bits {
            let what = format!("{method:?} (bit {bit})");
            // Client: the blinds.
            let mut rec = Recording::new(11);
            let req = black_box(client.begin_issuance(3, &mut rec).expect("begin"));
            stale.take();
            let blinds = rec.scalars::<C>();
            let mut n = Needles::default();
            n.add_all::<C>("blind", &blinds);
            n.check(
                &stale,
                &format!("{what} Client::begin_issuance"),
                &mut leaks,
            );

            // Issuer: every nonce it draws and the key.
            let mut rec = Recording::new(12);
            let resp = black_box(
                issuer
                    .issue(&req.message, 7, bit, 10, &mut rec)
                    .expect("issue"),
            );
            stale.take();
            let mut n = Needles::default();
            n.add_all::<C>("nonce", &rec.scalars::<C>());
            n.add_key_blob::<C>("key", &key, 4);
            n.check(&stale, &format!("{what} Issuer::issue"), &mut leaks);

            // Client finish: the blinds and their inverses.
            let tokens = black_box(
                client
                    .finish_issuance(req.state, &resp.message)
                    .expect("finish"),
            );
            stale.take();
            let mut n = Needles::default();
            n.add_blinds(&blinds);
            n.check(
                &stale,
                &format!("{what} Client::finish_issuance"),
                &mut leaks,
            );

            // Issuer redeem: the key.
            let redemption = client
                .begin_redemption(&tokens[0], b"client data")
                .expect("begin redemption");
            let got = black_box(issuer.redeem(&redemption).expect("redeem"));
            stale.take();
            drop(got);
            let mut n = Needles::default();
            n.add_key_blob::<C>("key", &key, 4);
            n.check(&stale, &format!("{what} Issuer::redeem"), &mut leaks);
        }
    }
    assert_no_leaks(&leaks);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stale-stack scan needs an optimised build"
)]
fn arc_issue_and_present_leave_no_secret_on_the_stack() {
    assert_scan_sees_stale_stack();
    let mut leaks = Vec::new();
    arc_scenario::<arc::ArcV2P256>(20, &mut leaks);
    assert_no_leaks(&leaks);
}

fn arc_scenario<A: HiddenNonceSuite>(seed: u64, leaks: &mut Vec<String>) {
    type K<A> = <A as ArcSuite>::Curve;
    let mut stale = StaleStack::new();
    let mut rng = StdRng::seed_from_u64(seed);
    let server = ServerPrivateKey::<A>::random(&mut rng);
    let key = server.to_bytes();

    let mut rec = Recording::new(seed + 1);
    let req = black_box(CredentialRequest::<A>::new(b"request context", &mut rec).expect("req"));
    stale.take();
    let client_secrets = rec.scalars::<K<A>>();
    let mut n = Needles::default();
    n.add_all::<K<A>>("client", &client_secrets);
    n.check(&stale, "arc CredentialRequest::new", leaks);

    let mut rec = Recording::new(seed + 2);
    let resp = black_box(server.issue(&req.message, &mut rec).expect("issue"));
    stale.take();
    let mut n = Needles::default();
    n.add_all::<K<A>>("nonce", &rec.scalars::<K<A>>());
    n.add_key_blob::<K<A>>("key", &key, 0);
    n.check(&stale, "arc ServerPrivateKey::issue", leaks);

    let mut cred: Credential<A> = black_box(
        req.state
            .finalize(server.public_key(), &resp)
            .expect("finalize"),
    );
    stale.take();
    let mut n = Needles::default();
    n.add_all::<K<A>>("client", &client_secrets);
    n.check(&stale, "arc CredentialRequestState::finalize", leaks);

    let mut state = cred
        .presentation_state(b"presentation context", 8)
        .expect("state");
    let mut rec = Recording::new(seed + 3);
    let p = black_box(state.present(&mut rec).expect("present"));
    stale.take();
    let mut n = Needles::default();
    n.add_all::<K<A>>("nonce", &rec.scalars::<K<A>>());
    n.add_all::<K<A>>("client", &client_secrets);
    n.check(&stale, "arc PresentationState::present", leaks);

    let tag = black_box(
        server
            .verify_presentation(b"request context", b"presentation context", &p, 8)
            .expect("verify"),
    );
    stale.take();
    black_box(tag);
    let mut n = Needles::default();
    n.add_key_blob::<K<A>>("key", &key, 0);
    n.check(&stale, "arc ServerPrivateKey::verify_presentation", leaks);
}

/// The wipe after each operation reaches as deep as the operation went: on a painted stack, the
/// deepest bytes written are the wipe's zeros. Prints each operation's depth (the wipe's).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the wipe sizes are set for optimised builds"
)]
fn every_operation_is_within_its_wipe() {
    let mut rng = StdRng::seed_from_u64(30);
    let mut report = Vec::new();
    let mut check = |what: String, f: &mut dyn FnMut()| {
        let (depth, wiped) = stack_use_of(f);
        println!("stack {what}: {depth} bytes, deepest writes wiped: {wiped}");
        report.push((what, wiped));
    };
    let voprf = VoprfServer::<S>::new(&mut rng);
    let poprf = PoprfServer::<S>::new(&mut rng);
    let b = VoprfClient::<S>::blind(b"x", &mut rng).expect("blind");
    check("VoprfClient::blind".into(), &mut || {
        black_box(VoprfClient::<S>::blind(b"x", &mut rng).expect("blind"));
    });
    check("VoprfServer::blind_evaluate".into(), &mut || {
        black_box(voprf.blind_evaluate(&mut rng, &b.message).expect("eval"));
    });
    check("PoprfServer::blind_evaluate".into(), &mut || {
        black_box(
            poprf
                .blind_evaluate(&mut rng, &b.message, b"i")
                .expect("eval"),
        );
    });
    for method in Method::ALL {
        let (issuer, client, _) = trust_token_pair(method, &mut rng);
        let mut req = None;
        check(format!("{method:?} Client::begin_issuance"), &mut || {
            req = Some(client.begin_issuance(10, &mut rng).expect("begin"));
        });
        let req = req.expect("request");
        let mut resp = None;
        check(format!("{method:?} Issuer::issue"), &mut || {
            resp = Some(
                issuer
                    .issue(&req.message, 7, false, 10, &mut rng)
                    .expect("issue"),
            );
        });
        let resp = resp.expect("response");
        let mut state = Some(req.state);
        let mut tokens = None;
        check(format!("{method:?} Client::finish_issuance"), &mut || {
            let st = state.take().expect("state");
            tokens = Some(client.finish_issuance(st, &resp.message).expect("finish"));
        });
        let red = client
            .begin_redemption(&tokens.expect("tokens")[0], b"cd")
            .expect("redemption");
        check(format!("{method:?} Issuer::redeem"), &mut || {
            black_box(issuer.redeem(&red).expect("redeem"));
        });
    }
    type A = arc::ArcV2P256;
    let server = ServerPrivateKey::<A>::random(&mut rng);
    let mut req = None;
    check("arc CredentialRequest::new".into(), &mut || {
        req = Some(CredentialRequest::<A>::new(b"rc", &mut rng).expect("request"));
    });
    let req = req.expect("request");
    let mut resp = None;
    check("arc ServerPrivateKey::issue".into(), &mut || {
        resp = Some(server.issue(&req.message, &mut rng).expect("issue"));
    });
    let resp = resp.expect("response");
    let mut st = Some(req.state);
    let mut cred = None;
    check("arc CredentialRequestState::finalize".into(), &mut || {
        let st = st.take().expect("state");
        cred = Some(st.finalize(server.public_key(), &resp).expect("finalize"));
    });
    let mut cred = cred.expect("credential");
    let mut ps = cred.presentation_state(b"pc", 8).expect("state");
    let mut p = None;
    check("arc PresentationState::present".into(), &mut || {
        p = Some(ps.present(&mut rng).expect("present"));
    });
    let p = p.expect("presentation");
    check(
        "arc ServerPrivateKey::verify_presentation".into(),
        &mut || {
            black_box(
                server
                    .verify_presentation(b"rc", b"pc", &p, 8)
                    .expect("verify"),
            );
        },
    );
    let deeper: Vec<_> = report.iter().filter(|(_, w)| !w).map(|(n, _)| n).collect();
    assert!(deeper.is_empty(), "went deeper than their wipe: {deeper:?}");
}

/// With the `rayon` feature, batches from [`privacy_tokens::PAR_MIN_BATCH`] elements on are
/// split over rayon's workers, which run on stacks of their own: each worker's share runs
/// inside the same wipe. In a pool of two workers, after each split batch operation, the stale
/// stack of every worker (copied from a broadcast to the pool) and of the calling thread holds
/// none of the operation's keys, nonces, blinds or blind inverses. The control: a value left
/// on the stack by a job split over the pool is seen on some worker's stale stack.
#[cfg(feature = "rayon")]
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stale-stack scan needs an optimised build"
)]
fn split_batches_leave_no_secret_on_worker_stacks() {
    use privacy_tokens::voprf::OprfServer;
    use rayon::prelude::*;
    use secret_scan::leave_on_stack;
    use std::sync::Mutex;

    const N: usize = 16;
    const { assert!(N >= privacy_tokens::PAR_MIN_BATCH, "the batches are split") };
    // The operations run on this thread and split over the global pool: every piece runs on a
    // worker's stack, none on this one.
    let threads = rayon::current_num_threads();
    assert!(threads >= 2, "a pool of one thread does not split");
    // One copy per worker, allocated here so that taking it allocates nothing on the worker.
    let workers: Vec<Mutex<StaleStack>> = (0..threads)
        .map(|_| Mutex::new(StaleStack::new()))
        .collect();
    let mut stale = StaleStack::new();
    let take_workers = || {
        rayon::broadcast(|ctx| workers[ctx.index()].lock().expect("lock").take());
    };
    let check = |n: &Needles, what: &str, stale: &StaleStack, leaks: &mut Vec<String>| {
        n.check(stale, &format!("{what} (calling thread)"), leaks);
        for (i, w) in workers.iter().enumerate() {
            n.check(
                &w.lock().expect("lock"),
                &format!("{what} (worker {i})"),
                leaks,
            );
        }
    };

    // Control.
    let mut marked = [0x3cu8; 48];
    marked[0] = 0xc3;
    marked[47] = 0x5a;
    (0..64)
        .into_par_iter()
        .for_each(|_| leave_on_stack(&marked));
    take_workers();
    let seen = workers
        .iter()
        .filter(|w| w.lock().expect("lock").hits(&[marked.to_vec()])[0] > 0)
        .count();
    assert!(seen >= 1, "the scan misses the workers' stale stacks");

    // Depth: on painted worker stacks, the deepest writes of a split batch are the wipe's (with
    // the workers' wipe removed from `src/par.rs`, they are the ladders' frames, 13 KiB deep,
    // and this fails). Checked on the VOPRF issuer's batch: on the Trust Token paths a worker
    // can run two pieces at different depths, whose wipes overlap in a way this check does
    // not recognise.
    let depth = |what: &str, f: &dyn Fn()| {
        rayon::broadcast(|_| secret_scan::paint());
        f();
        let used = rayon::broadcast(|_| secret_scan::painted_use());
        println!("worker stacks after split {what}: (depth, deepest writes wiped) {used:?}");
        assert!(
            used.iter().any(|&(d, _)| d > 4096),
            "{what}: no worker ran a piece"
        );
        for (d, wiped) in used {
            assert!(
                wiped || d <= 4096,
                "{what}: a worker's share went deeper than its wipe"
            );
        }
    };
    let mut rng = StdRng::seed_from_u64(39);
    let server = VoprfServer::<S>::new(&mut rng);
    let blinded: Vec<_> = (0..N as u8)
        .map(|i| {
            VoprfClient::<S>::blind(&[i], &mut rng)
                .expect("blind")
                .message
        })
        .collect();
    depth("VoprfServer::blind_evaluate_batch", &|| {
        black_box(
            server
                .blind_evaluate_batch(&mut StdRng::seed_from_u64(1), &blinded)
                .expect("batch"),
        );
    });

    let mut leaks = Vec::new();
    let mut rng = StdRng::seed_from_u64(40);

    // VOPRF server batch: the key, the proof nonce, c·k.
    let voprf = VoprfServer::<S>::new(&mut rng);
    let k = scalar(&voprf.secret_key().to_bytes());
    let mut rec = Recording::new(41);
    let states: Vec<_> = (0..N as u8)
        .map(|i| VoprfClient::<S>::blind(&[i], &mut rec).expect("blind"))
        .collect();
    let blinds = rec.scalars::<C>();
    assert_eq!(blinds.len(), N);
    let msgs: Vec<_> = states.iter().map(|b| b.message).collect();
    let mut rec = Recording::new(42);
    let batch = black_box(voprf.blind_evaluate_batch(&mut rec, &msgs).expect("batch"));
    stale.take();
    take_workers();
    let (c, _) = challenge_and_response(&batch.proof);
    let mut n = Needles::default();
    n.add_all::<C>("r", &rec.scalars::<C>());
    n.add::<C>("k", &k);
    n.add::<C>("c*k", &(c * k));
    check(
        &n,
        "split VoprfServer::blind_evaluate_batch",
        &stale,
        &mut leaks,
    );

    // VOPRF client batch finalize: the blinds and their inverses.
    let inputs: Vec<[u8; 1]> = (0..N as u8).map(|i| [i]).collect();
    let refs: Vec<&[u8]> = inputs.iter().map(|i| i.as_slice()).collect();
    let states: Vec<_> = states.into_iter().map(|b| b.state).collect();
    let outs = black_box({
        VoprfClient::finalize_batch(
            states,
            &refs,
            &batch.messages,
            &batch.proof,
            voprf.public_key(),
        )
        .expect("finalize")
    });
    stale.take();
    take_workers();
    drop(outs);
    let mut n = Needles::default();
    n.add_blinds(&blinds);
    check(&n, "split VoprfClient::finalize_batch", &stale, &mut leaks);

    // POPRF server batch: the key, t = k + m and t^-1.
    let poprf = PoprfServer::<S>::new(&mut rng);
    let mut rec = Recording::new(43);
    let eval = black_box({
        poprf
            .blind_evaluate_batch(&mut rec, &msgs, b"info")
            .expect("batch")
    });
    stale.take();
    take_workers();
    let r = rec.scalars::<C>();
    let mut n = Needles::default();
    n.add_poprf(&r[0], &scalar(&poprf.secret_key().to_bytes()), &eval.proof);
    check(
        &n,
        "split PoprfServer::blind_evaluate_batch",
        &stale,
        &mut leaks,
    );

    // OPRF server batch: the key.
    let oprf = OprfServer::<S>::new(&mut rng);
    let out = black_box(oprf.blind_evaluate_batch(&msgs).expect("batch"));
    stale.take();
    take_workers();
    drop(out);
    let mut n = Needles::default();
    n.add::<C>("k", &scalar(&oprf.secret_key().to_bytes()));
    check(
        &n,
        "split OprfServer::blind_evaluate_batch",
        &stale,
        &mut leaks,
    );

    // Trust Tokens, every method: issue (nonces and key) and finish (blinds and inverses).
    for method in Method::ALL {
        let mut issuer = Issuer::new(method, N as u16);
        let mut client = Client::new(method, N as u16);
        let (sk, pk) = generate_key(method, 7, &mut rng);
        issuer.add_key(sk.clone()).expect("add key");
        client.add_key(pk).expect("add key");
        let key = sk.to_bytes();
        let mut rec = Recording::new(44);
        let req = client.begin_issuance(N, &mut rec).expect("begin");
        let blinds = rec.scalars::<C>();
        let mut rec = Recording::new(45);
        let bit = method.has_private_metadata();
        let resp = black_box({
            issuer
                .issue(&req.message, 7, bit, N as u16, &mut rec)
                .expect("issue")
        });
        stale.take();
        take_workers();
        let mut n = Needles::default();
        n.add_all::<C>("nonce", &rec.scalars::<C>());
        n.add_key_blob::<C>("key", &key, 4);
        check(
            &n,
            &format!("split {method:?} Issuer::issue"),
            &stale,
            &mut leaks,
        );
        let tokens = black_box({
            client
                .finish_issuance(req.state, &resp.message)
                .expect("finish")
        });
        stale.take();
        take_workers();
        assert_eq!(tokens.len(), N);
        let mut n = Needles::default();
        n.add_blinds(&blinds);
        check(
            &n,
            &format!("split {method:?} Client::finish_issuance"),
            &stale,
            &mut leaks,
        );
    }
    assert_no_leaks(&leaks);
}

/// What `src/group.rs` ("Stack residue") documents: the group layer's secret-scalar calls do
/// not wipe the stack. Each runs on a painted stack; its deepest writes must be its own frames,
/// not a wipe. If one of them starts wiping, this fails and the documentation changes with it.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stack measurement needs an optimised build"
)]
fn group_layer_calls_do_not_wipe() {
    use group::{FixedBaseTable, LadderBlind, NistP384};
    type K = NistP384;
    let mut rng = StdRng::seed_from_u64(40);
    let k = group::random_scalar::<K>(&mut rng);
    let j = group::random_scalar::<K>(&mut rng);
    let p = group::mul_generator::<K>(&j);
    let a = group::to_affine::<K>(&p);
    let blind = LadderBlind::<K>::random(&mut rng);
    let table = FixedBaseTable::<K>::new(&a);
    let check = |what: &str, f: &mut dyn FnMut()| {
        let (depth, wiped) = stack_use_of(f);
        println!("stack group::{what}: {depth} bytes, wiped: {wiped}");
        assert!(depth > 0, "{what} used no stack");
        assert!(
            !wiped,
            "group::{what} now wipes: update src/group.rs (Stack residue)"
        );
    };
    check("mul", &mut || {
        black_box(group::mul::<K>(&p, &k));
    });
    check("mul_generator", &mut || {
        black_box(group::mul_generator::<K>(&k));
    });
    check("mul_affine", &mut || {
        black_box(group::mul_affine::<K>(&a, &k));
    });
    check("mul_batch_affine", &mut || {
        let mut out = [p; 2];
        group::mul_batch_affine::<K>(&[a, a], &k, &mut out).expect("equal lengths");
        black_box(out);
    });
    check("mul_multi_ct", &mut || {
        black_box(group::mul_multi_ct::<K, 2>(&[p, p], &[k, j], &blind));
    });
    check("mul_multi_shared_ct", &mut || {
        black_box(group::mul_multi_shared_ct::<K, 2, 2>(
            &[p, p],
            &[[k, j], [j, k]],
            &blind,
        ));
    });
    check("mul_multi_shared_batch_ct", &mut || {
        black_box(group::mul_multi_shared_batch_ct::<K, 2, 2>(
            &[[p, p], [p, p]],
            &[[k, j], [j, k]],
            &blind,
        ));
    });
    check("mul_fixed_ct", &mut || {
        black_box(group::mul_fixed_ct::<K, 1>([&table], &[k]));
    });
    check("FixedBaseTable::mul", &mut || {
        black_box(table.mul(&k));
    });
    check("LadderBlind::random", &mut || {
        black_box(LadderBlind::<K>::random(&mut rng));
    });
    check("LadderBlind::from_secret", &mut || {
        black_box(LadderBlind::<K>::from_secret(&k));
    });
    check("random_scalar", &mut || {
        black_box(group::random_scalar::<K>(&mut rng));
    });
    check("invert", &mut || {
        black_box(group::invert::<K>(&k).expect("non-zero"));
    });
}

/// `privacy_tokens::run_wiped`, the public wipe for callers' own frames (the bindings build
/// their per-call RNG in it): a marked value that `body` leaves 8 KiB deep on the stack is gone
/// once it returns. The control leaves the same value without the wipe, and the scan finds it.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the stack measurement needs an optimised build"
)]
fn run_wiped_wipes_what_its_body_left() {
    let mut marked = [0x3cu8; 48];
    marked[0] = 0xc3;
    marked[47] = 0x96;
    let needle = [("marked".to_string(), marked.to_vec())];
    let mut stale = StaleStack::new();

    // Control: without the wipe the scan sees the value.
    secret_scan::leave_on_stack(black_box(&marked));
    stale.take();
    assert_eq!(stale.found(&needle), ["marked"], "the control must see it");

    secret_scan::paint();
    privacy_tokens::run_wiped(|| secret_scan::leave_on_stack(black_box(&marked)));
    stale.take();
    assert!(
        stale.found(&needle).is_empty(),
        "run_wiped left its body's frame"
    );
}
