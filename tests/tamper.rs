//! Tamper suite: for every message type of every protocol, take a valid message and hand its
//! receiver every single-bit flip, every truncation (`0 .. len - 1` bytes) and every one-byte
//! extension (`0x00`, `0x01`, `0xff`). The receiver must reject the variant with a typed
//! [`Error`] (or a `false` verdict where the API returns one), or, for bytes the protocol does
//! not authenticate, provably ignore it (the result equals the one the untampered message
//! gives). It must never panic, and the receiver's state must be as before: afterwards the
//! untampered message still gives the untampered result, and the keys and counters the parties
//! expose are unchanged.
//!
//! A "receiver" is the whole chain a message goes through until some party decides: a blinded
//! element cannot be authenticated by the server (it is a uniformly random group element), so a
//! tampered one that still decodes is evaluated, and the client's proof check rejects the
//! answer. Each rejection is recorded with the step that made it.
//!
//! Run with `cargo test --release --test tamper -- --nocapture` for the per-message lines and
//! the summary `tamper: <cases> cases, <accepted> accepted, <panics> panics`.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Instant;

use privacy_tokens::arc::{self, privacy_pass as app};
use privacy_tokens::group::PrimeGroup;
use privacy_tokens::suite::Output;
use privacy_tokens::trust_token as tt;
use privacy_tokens::voprf::privacy_pass as pp;
use privacy_tokens::voprf::{
    BatchEvaluation, BlindResult, BlindedElement, EvaluationElement, PoprfClient, PoprfServer,
    Proof, PublicKey, VoprfClient, VoprfServer,
};
use privacy_tokens::{hazmat, Error, P256Sha256, P384Sha384, Suite};
use rand::rngs::StdRng;
use rand::SeedableRng;

// ---------------------------------------------------------------------------------------------
// Harness

/// Why a variant was rejected: the step that refused it and the typed error (`None` for a
/// `false` verdict of a `Result<bool>` verifier).
#[derive(Clone, Copy, Debug)]
struct Rejected {
    step: &'static str,
    error: Option<Error>,
}

/// The outcome of one receiver call: its result, or the rejection.
type Received<R> = Result<R, Rejected>;

/// `map_err` adapter naming the step that returned the error.
fn at(step: &'static str) -> impl Fn(Error) -> Rejected {
    move |e| Rejected {
        step,
        error: Some(e),
    }
}

/// A `false` verdict of `step` as a rejection.
fn verdict(step: &'static str, ok: bool) -> Received<()> {
    if ok {
        Ok(())
    } else {
        Err(Rejected { step, error: None })
    }
}

/// One tampered variant of a message.
#[derive(Clone, Copy, Debug)]
enum Variant {
    /// Bit `i % 8` of byte `i / 8` flipped.
    Flip(usize),
    /// The first `n` bytes only.
    Truncate(usize),
    /// One byte appended.
    Extend(u8),
}

const EXTENSIONS: [u8; 3] = [0x00, 0x01, 0xff];

fn variants(len: usize) -> impl Iterator<Item = Variant> {
    (0..len * 8)
        .map(Variant::Flip)
        .chain((0..len).map(Variant::Truncate))
        .chain(EXTENSIONS.into_iter().map(Variant::Extend))
}

fn apply(msg: &[u8], v: Variant) -> Vec<u8> {
    let mut out = msg.to_vec();
    match v {
        Variant::Flip(i) => out[i / 8] ^= 1 << (i % 8),
        Variant::Truncate(n) => out.truncate(n),
        Variant::Extend(b) => out.push(b),
    }
    out
}

/// Bytes of a message the protocol does not authenticate, with the reason and the result a
/// variant flipping a bit there must give (`expect(untampered result, variant bytes)`).
struct Ignored<'a, R> {
    range: Range<usize>,
    why: &'static str,
    expect: &'a dyn Fn(&R, &[u8]) -> R,
}

/// The tally of one message type.
#[derive(Debug, Default)]
struct Tally {
    name: String,
    len: usize,
    cases: usize,
    rejected: usize,
    ignored: usize,
    accepted: usize,
    panics: usize,
    /// Rejections by `step: error`.
    reasons: BTreeMap<String, usize>,
    /// Accepted or panicking variants, for the report.
    bad: Vec<String>,
    /// Why ignored bytes are ignored.
    notes: Vec<String>,
    secs: f64,
}

impl Tally {
    fn line(&self) -> String {
        let reasons: Vec<String> = self
            .reasons
            .iter()
            .map(|(k, v)| format!("{k} x{v}"))
            .collect();
        format!(
            "{}: {} bytes, {} cases, {} rejected, {} ignored, {} accepted, {} panics, {:.1}s [{}]{}",
            self.name,
            self.len,
            self.cases,
            self.rejected,
            self.ignored,
            self.accepted,
            self.panics,
            self.secs,
            reasons.join(", "),
            self.notes
                .iter()
                .map(|n| format!("\n    ignored {n}"))
                .collect::<String>()
        )
    }
}

/// Runs every variant of `msg` through `receive` and checks the state with `snapshot` before
/// and after (and the untampered message again at the end).
fn tamper<R: PartialEq + Debug>(
    name: String,
    msg: &[u8],
    ignored: &[Ignored<'_, R>],
    snapshot: &dyn Fn() -> String,
    receive: &dyn Fn(&[u8]) -> Received<R>,
) -> Tally {
    let start = Instant::now();
    let before = snapshot();
    let good = match receive(msg) {
        Ok(r) => r,
        Err(e) => panic!("{name}: the untampered message is rejected: {e:?}"),
    };
    for ig in ignored {
        assert_eq!((ig.expect)(&good, msg), good, "{name}: {}", ig.why);
    }
    let mut t = Tally {
        name: name.clone(),
        len: msg.len(),
        notes: ignored
            .iter()
            .map(|i| format!("{:?}: {}", i.range, i.why))
            .collect(),
        ..Tally::default()
    };
    for v in variants(msg.len()) {
        let bytes = apply(msg, v);
        t.cases += 1;
        match catch_unwind(AssertUnwindSafe(|| receive(&bytes))) {
            Err(_) => {
                t.panics += 1;
                t.bad
                    .push(format!("panic: {v:?} input {}", hex::encode(&bytes)));
            }
            Ok(Err(r)) => {
                t.rejected += 1;
                let key = match r.error {
                    Some(e) => format!("{}: {e:?}", r.step),
                    None => format!("{}: false", r.step),
                };
                *t.reasons.entry(key).or_default() += 1;
            }
            Ok(Ok(r)) => {
                let ig = match v {
                    Variant::Flip(i) => ignored.iter().find(|g| g.range.contains(&(i / 8))),
                    _ => None,
                };
                match ig {
                    Some(g) if (g.expect)(&good, &bytes) == r => t.ignored += 1,
                    _ => {
                        t.accepted += 1;
                        t.bad.push(format!(
                            "accepted: {v:?} input {} result {r:?}",
                            hex::encode(&bytes)
                        ));
                    }
                }
            }
        }
    }
    assert_eq!(snapshot(), before, "{name}: receiver state changed");
    assert_eq!(
        receive(msg).ok(),
        Some(good),
        "{name}: the untampered message no longer gives the untampered result"
    );
    t.secs = start.elapsed().as_secs_f64();
    t
}

/// The same result whatever the variant (for bytes nobody reads).
fn unchanged<R: Clone>(good: &R, _: &[u8]) -> R {
    good.clone()
}

fn hexs(parts: &[&[u8]]) -> String {
    parts.iter().map(hex::encode).collect::<Vec<_>>().join("/")
}

// ---------------------------------------------------------------------------------------------
// VOPRF and POPRF (RFC 9497)

const INPUT: &[u8] = b"tamper input";
const INFO: &[u8] = b"tamper info";
const BATCH: usize = 2;

fn suite_name<S: Suite>() -> &'static str {
    if <S::Group as PrimeGroup>::NS == 32 {
        "P-256"
    } else {
        "P-384"
    }
}

fn blind_bytes<S: Suite>(rng: &mut StdRng) -> Vec<u8> {
    <S::Group as PrimeGroup>::encode_scalar(&<S::Group as PrimeGroup>::random_scalar(rng))
        .as_ref()
        .to_vec()
}

/// Decodes `n` evaluated elements followed by one proof (the batch framing of this suite:
/// `n * Ne` element bytes, then `2 * Ns` proof bytes, exact length).
fn decode_batch<S: Suite>(
    bytes: &[u8],
    n: usize,
) -> Received<(Vec<EvaluationElement<S>>, Proof<S>)> {
    let ne = <S::Group as PrimeGroup>::NE;
    let ns = <S::Group as PrimeGroup>::NS;
    if bytes.len() != n * ne + 2 * ns {
        return Err(at("decode")(Error::InvalidLength));
    }
    let (elems, proof) = bytes.split_at(n * ne);
    let elems = elems
        .chunks_exact(ne)
        .map(EvaluationElement::<S>::from_bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(at("decode"))?;
    Ok((elems, Proof::from_bytes(proof).map_err(at("decode"))?))
}

fn encode_batch<S: Suite>(elems: &[EvaluationElement<S>], proof: &Proof<S>) -> Vec<u8> {
    let mut out: Vec<u8> = elems
        .iter()
        .flat_map(|e| e.to_bytes().as_ref().to_vec())
        .collect();
    out.extend_from_slice(proof.to_bytes().as_ref());
    out
}

/// The two verifiable modes behind one interface (their servers and finalize steps differ in
/// signature: POPRF takes `info`, VOPRF the public key).
trait Mode<S: Suite> {
    const NAME: &'static str;
    type Server;
    type Client;
    fn server(rng: &mut StdRng) -> Self::Server;
    /// The server's secret and public key bytes.
    fn keys(server: &Self::Server) -> (Vec<u8>, PublicKey<S>);
    fn blind(pk: &PublicKey<S>, input: &[u8], blind: &[u8]) -> BlindResult<Self::Client, S>;
    fn evaluate(
        server: &Self::Server,
        rng: &mut StdRng,
        blinded: &[BlindedElement<S>],
    ) -> Result<BatchEvaluation<S>, Error>;
    fn finalize(
        clients: Vec<Self::Client>,
        inputs: &[&[u8]],
        evaluated: &[EvaluationElement<S>],
        proof: &Proof<S>,
        pk: &PublicKey<S>,
    ) -> Result<Vec<Output<S>>, Error>;
}

struct Voprf;
struct Poprf;

impl<S: Suite> Mode<S> for Voprf {
    const NAME: &'static str = "voprf";
    type Server = VoprfServer<S>;
    type Client = VoprfClient<S>;
    fn server(rng: &mut StdRng) -> Self::Server {
        VoprfServer::new(rng)
    }
    fn keys(server: &Self::Server) -> (Vec<u8>, PublicKey<S>) {
        let sk = server.secret_key().to_bytes().as_ref().to_vec();
        (sk, *server.public_key())
    }
    fn blind(_: &PublicKey<S>, input: &[u8], blind: &[u8]) -> BlindResult<Self::Client, S> {
        hazmat::voprf_blind_with::<S>(input, blind).unwrap()
    }
    fn evaluate(
        server: &Self::Server,
        rng: &mut StdRng,
        blinded: &[BlindedElement<S>],
    ) -> Result<BatchEvaluation<S>, Error> {
        // One element goes through the single-element entry point.
        match blinded {
            [one] => server.blind_evaluate(rng, one).map(|e| BatchEvaluation {
                messages: vec![e.message],
                proof: e.proof,
            }),
            _ => server.blind_evaluate_batch(rng, blinded),
        }
    }
    fn finalize(
        mut clients: Vec<Self::Client>,
        inputs: &[&[u8]],
        evaluated: &[EvaluationElement<S>],
        proof: &Proof<S>,
        pk: &PublicKey<S>,
    ) -> Result<Vec<Output<S>>, Error> {
        match (clients.len(), inputs, evaluated) {
            (1, [input], [e]) => Ok(vec![clients.remove(0).finalize(input, e, proof, pk)?]),
            _ => VoprfClient::finalize_batch(clients, inputs, evaluated, proof, pk),
        }
    }
}

impl<S: Suite> Mode<S> for Poprf {
    const NAME: &'static str = "poprf";
    type Server = PoprfServer<S>;
    type Client = PoprfClient<S>;
    fn server(rng: &mut StdRng) -> Self::Server {
        PoprfServer::new(rng)
    }
    fn keys(server: &Self::Server) -> (Vec<u8>, PublicKey<S>) {
        let sk = server.secret_key().to_bytes().as_ref().to_vec();
        (sk, *server.public_key())
    }
    fn blind(pk: &PublicKey<S>, input: &[u8], blind: &[u8]) -> BlindResult<Self::Client, S> {
        hazmat::poprf_blind_with::<S>(input, INFO, pk, blind).unwrap()
    }
    fn evaluate(
        server: &Self::Server,
        rng: &mut StdRng,
        blinded: &[BlindedElement<S>],
    ) -> Result<BatchEvaluation<S>, Error> {
        match blinded {
            [one] => server
                .blind_evaluate(rng, one, INFO)
                .map(|e| BatchEvaluation {
                    messages: vec![e.message],
                    proof: e.proof,
                }),
            _ => server.blind_evaluate_batch(rng, blinded, INFO),
        }
    }
    fn finalize(
        mut clients: Vec<Self::Client>,
        inputs: &[&[u8]],
        evaluated: &[EvaluationElement<S>],
        proof: &Proof<S>,
        _: &PublicKey<S>,
    ) -> Result<Vec<Output<S>>, Error> {
        match (clients.len(), inputs, evaluated) {
            (1, [input], [e]) => Ok(vec![clients.remove(0).finalize(input, INFO, e, proof)?]),
            _ => PoprfClient::finalize_batch(clients, inputs, INFO, evaluated, proof),
        }
    }
}

/// One mode and suite: the blinded element (server, then client), the evaluated element and
/// the proof (client finalize) of one evaluation, and a batch of [`BATCH`] evaluated elements
/// with one proof.
fn oprf_messages<S: Suite, M: Mode<S>>() -> Vec<Tally> {
    let name = format!("{}/{}", M::NAME, suite_name::<S>());
    let mut rng = StdRng::seed_from_u64(0x9497);
    let server = M::server(&mut rng);
    let (_, pk) = M::keys(&server);
    let snapshot = || {
        let (sk, pk) = M::keys(&server);
        hexs(&[&sk, pk.to_bytes().as_ref()])
    };
    // The client states are consumed by finalize: they are rebuilt from the same blinds for
    // every case.
    let one: Vec<&[u8]> = vec![INPUT];
    let many: Vec<Vec<u8>> = (0..BATCH).map(|i| vec![b'a' + i as u8; 8]).collect();
    let many: Vec<&[u8]> = many.iter().map(|i| i.as_slice()).collect();
    let blinds: Vec<Vec<u8>> = (0..BATCH).map(|_| blind_bytes::<S>(&mut rng)).collect();
    let fresh = |inputs: &[&[u8]]| {
        let r: Vec<_> = inputs
            .iter()
            .zip(&blinds)
            .map(|(i, b)| M::blind(&pk, i, b))
            .collect();
        let msgs: Vec<BlindedElement<S>> = r.iter().map(|r| r.message).collect();
        (r.into_iter().map(|r| r.state).collect::<Vec<_>>(), msgs)
    };
    let finalize = |inputs: &[&[u8]], e: &[EvaluationElement<S>], p: &Proof<S>| {
        M::finalize(fresh(inputs).0, inputs, e, p, &pk)
            .map(|o| o.iter().map(|o| o.to_vec()).collect::<Vec<_>>())
            .map_err(at("client finalize"))
    };
    let blinded = fresh(&one).1;
    let eval = M::evaluate(&server, &mut rng, &blinded).unwrap();
    let batch = M::evaluate(&server, &mut rng, &fresh(&many).1).unwrap();
    vec![
        tamper(
            format!("{name}/BlindedElement"),
            blinded[0].to_bytes().as_ref(),
            &[],
            &snapshot,
            &|b| {
                let be = BlindedElement::<S>::from_bytes(b).map_err(at("decode"))?;
                let ev = M::evaluate(&server, &mut StdRng::seed_from_u64(7), &[be])
                    .map_err(at("server evaluate"))?;
                finalize(&one, &ev.messages, &ev.proof)
            },
        ),
        tamper(
            format!("{name}/EvaluationElement"),
            eval.messages[0].to_bytes().as_ref(),
            &[],
            &snapshot,
            &|b| {
                let e = EvaluationElement::<S>::from_bytes(b).map_err(at("decode"))?;
                finalize(&one, &[e], &eval.proof)
            },
        ),
        tamper(
            format!("{name}/Proof"),
            eval.proof.to_bytes().as_ref(),
            &[],
            &snapshot,
            &|b| {
                let p = Proof::<S>::from_bytes(b).map_err(at("decode"))?;
                finalize(&one, &eval.messages, &p)
            },
        ),
        tamper(
            format!("{name}/batch of {BATCH}: EvaluationElements || Proof"),
            &encode_batch(&batch.messages, &batch.proof),
            &[],
            &snapshot,
            &|b| {
                let (elems, proof) = decode_batch::<S>(b, BATCH)?;
                finalize(&many, &elems, &proof)
            },
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Privacy Pass issuance protocol 1, token type 0x0001 (RFC 9578), and its batched variant

const PP_BATCH: usize = 2;

/// API-change shim: decoding a batched request (a `from_bytes_with_limit(bytes, max)` with the
/// issuer's batch cap is landing in parallel).
fn pp_batch_request(bytes: &[u8]) -> Result<pp::BatchTokenRequest, Error> {
    pp::BatchTokenRequest::from_bytes(bytes)
}

fn privacy_pass_messages() -> Vec<Tally> {
    let mut rng = StdRng::seed_from_u64(0x9578);
    let issuer = pp::Issuer::new(VoprfServer::new(&mut rng));
    let pk = *issuer.public_key();
    let challenge = pp::TokenChallenge::new(
        pp::TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![0x5a; 32],
        b"origin.example".to_vec(),
    )
    .unwrap()
    .to_bytes();
    let digest = pp::TokenChallenge::from_bytes(&challenge).unwrap().digest();
    let nonce = [0x11u8; pp::NONCE_LEN];
    let blind = blind_bytes::<P384Sha384>(&mut rng);
    // The one-shot client states are rebuilt from a fixed nonce and blind (hazmat) or a seeded
    // RNG (batch) for every case.
    let fresh = |ch: &[u8]| pp::request_with(&pk, ch, &nonce, &blind);
    let fresh_batch = || {
        pp::Client::request_batch(&pk, &challenge, PP_BATCH, &mut StdRng::seed_from_u64(3)).unwrap()
    };
    let snapshot = || {
        hexs(&[
            issuer.server().secret_key().to_bytes().as_ref(),
            issuer.public_key().to_bytes().as_ref(),
            issuer.token_key_id(),
        ])
    };
    // The origin's check (RFC 9578 §5.5 and the `verify_token` docs): the issuer's verdict,
    // then `challenge_digest` against the challenge the origin sent (the caller's check).
    let origin = |t: &pp::Token| -> Received<Vec<u8>> {
        let t = pp::Token::from_bytes(&t.to_bytes()).map_err(at("token decode"))?;
        verdict(
            "issuer verify_token",
            issuer.verify_token(&t).map_err(at("issuer verify_token"))?,
        )?;
        verdict(
            "origin challenge_digest check",
            t.challenge_digest == digest,
        )?;
        Ok(t.to_bytes().to_vec())
    };
    let issue = |req: &pp::TokenRequest| {
        issuer
            .issue(&mut StdRng::seed_from_u64(7), req)
            .map_err(at("issuer issue"))
    };
    let finish_batch = |resp: &pp::BatchTokenResponse| -> Received<Vec<Vec<u8>>> {
        let tokens = fresh_batch()
            .1
            .finalize_batch(resp)
            .map_err(at("client finalize_batch"))?;
        tokens.iter().map(origin).collect()
    };
    let (request, _) = fresh(&challenge).unwrap();
    let response = issue(&request).unwrap();
    let token = fresh(&challenge).unwrap().1.finalize(&response).unwrap();
    let batch_request = fresh_batch().0;
    let batch_response = issuer.issue_batch(&mut rng, &batch_request).unwrap();
    vec![
        tamper(
            "privacy-pass/TokenChallenge".into(),
            &challenge,
            &[],
            &snapshot,
            &|b| {
                let (req, st) = fresh(b).map_err(at("client request"))?;
                let resp = issue(&req)?;
                origin(&st.finalize(&resp).map_err(at("client finalize"))?)
            },
        ),
        tamper(
            "privacy-pass/TokenRequest".into(),
            &request.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let req = pp::TokenRequest::from_bytes(b).map_err(at("decode"))?;
                let resp = issue(&req)?;
                let st = fresh(&challenge).unwrap().1;
                origin(&st.finalize(&resp).map_err(at("client finalize"))?)
            },
        ),
        tamper(
            "privacy-pass/TokenResponse".into(),
            &response.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let resp = pp::TokenResponse::from_bytes(b).map_err(at("decode"))?;
                let st = fresh(&challenge).unwrap().1;
                origin(&st.finalize(&resp).map_err(at("client finalize"))?)
            },
        ),
        tamper(
            "privacy-pass/Token".into(),
            &token.to_bytes(),
            &[],
            &snapshot,
            &|b| origin(&pp::Token::from_bytes(b).map_err(at("decode"))?),
        ),
        tamper(
            format!("privacy-pass/BatchTokenRequest of {PP_BATCH}"),
            &batch_request.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let req = pp_batch_request(b).map_err(at("decode"))?;
                let resp = issuer
                    .issue_batch(&mut StdRng::seed_from_u64(7), &req)
                    .map_err(at("issuer issue_batch"))?;
                finish_batch(&resp)
            },
        ),
        tamper(
            format!("privacy-pass/BatchTokenResponse of {PP_BATCH}"),
            &batch_response.to_bytes(),
            &[],
            &snapshot,
            &|b| finish_batch(&pp::BatchTokenResponse::from_bytes(b).map_err(at("decode"))?),
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Privacy Pass with RSA blind signatures: types 0x0002 (RFC 9578) and 0xDA7A (partially blind,
// public metadata in the request's extensions)

fn blind_rsa_messages() -> Vec<Tally> {
    use privacy_tokens::blind_rsa::privacy_pass as rsa;
    use privacy_tokens::blind_rsa::test_key;
    let issuer = rsa::Issuer::new(test_key().unwrap()).unwrap();
    let key = issuer.token_key().clone();
    // Extensions whose derived key exists for the test key (not made of safe primes, so `e'`
    // may share a factor with phi).
    let extensions = (0u8..64)
        .map(|i| {
            rsa::Extensions::new(vec![rsa::Extension {
                extension_type: 1,
                data: vec![b't', i],
            }])
            .unwrap()
        })
        .find(|e| test_key().unwrap().derive(e.as_bytes()).is_ok())
        .unwrap();
    let challenge = |t: u16| {
        pp::TokenChallenge::new(
            t,
            b"issuer.example".to_vec(),
            vec![0x5a; 32],
            b"origin.example".to_vec(),
        )
        .unwrap()
        .to_bytes()
    };
    let (ch2, ch_da7a) = (challenge(0x0002), challenge(0xDA7A));
    let (d2, d_da7a) = (
        pp::TokenChallenge::from_bytes(&ch2).unwrap().digest(),
        pp::TokenChallenge::from_bytes(&ch_da7a).unwrap().digest(),
    );
    let nonce = [0x11u8; 32];
    let salt = [0x22u8; 48];
    let blind = [0x5au8; 200];
    // The one-shot client states are rebuilt from a fixed nonce, salt and blind for every case.
    let fresh = |ext: Option<&rsa::Extensions>| {
        let ch = if ext.is_some() { &ch_da7a } else { &ch2 };
        rsa::Client::request_with(&key, ch, ext, &nonce, &salt, &blind).unwrap()
    };
    let snapshot = || {
        hexs(&[
            issuer.token_key().to_spki(),
            key.id(),
            test_key().unwrap().to_pkcs8_der().as_slice(),
        ])
    };
    // The origin's check: the token key's verdict (with the extensions it expects for 0xDA7A),
    // then `challenge_digest` against the challenge it sent (the caller's check).
    let origin = |t: &rsa::Token, ext: Option<&rsa::Extensions>| -> Received<Vec<u8>> {
        key.verify(t, ext).map_err(at("origin verify"))?;
        let digest = if ext.is_some() { d_da7a } else { d2 };
        verdict(
            "origin challenge_digest check",
            *t.challenge_digest() == digest,
        )?;
        Ok(t.to_bytes().to_vec())
    };
    let finish = |resp: &[u8], ext: Option<&rsa::Extensions>| -> Received<Vec<u8>> {
        let token = fresh(ext).1.finalize(resp).map_err(at("client finalize"))?;
        origin(&token, ext)
    };
    let request = fresh(None).0.to_bytes();
    let response = issuer.issue(&request).unwrap().to_bytes();
    let token = fresh(None).1.finalize(&response).unwrap().to_bytes();
    let ext_request = [
        fresh(Some(&extensions)).0.to_bytes().as_slice(),
        extensions.as_bytes(),
    ]
    .concat();
    assert_eq!(
        rsa::ExtendedTokenRequest::from_bytes(&ext_request)
            .unwrap()
            .extensions(),
        &extensions
    );
    let ext_response = issuer
        .issue_extended(&ext_request, |_| true)
        .unwrap()
        .to_bytes();
    let ext_token = fresh(Some(&extensions))
        .1
        .finalize(&ext_response)
        .unwrap()
        .to_bytes();
    vec![
        tamper(
            "blind-rsa/0x0002/TokenRequest".into(),
            &request,
            &[],
            &snapshot,
            &|b| {
                let resp = issuer.issue(b).map_err(at("issuer issue"))?;
                finish(&resp.to_bytes(), None)
            },
        ),
        tamper(
            "blind-rsa/0x0002/TokenResponse".into(),
            &response,
            &[],
            &snapshot,
            &|b| finish(b, None),
        ),
        tamper(
            "blind-rsa/0x0002/Token".into(),
            &token,
            &[],
            &snapshot,
            &|b| origin(&rsa::Token::from_bytes(b).map_err(at("decode"))?, None),
        ),
        tamper(
            "blind-rsa/0xDA7A/ExtendedTokenRequest".into(),
            &ext_request,
            &[],
            &snapshot,
            &|b| {
                let resp = issuer
                    .issue_extended(b, |_| true)
                    .map_err(at("issuer issue_extended"))?;
                finish(&resp.to_bytes(), Some(&extensions))
            },
        ),
        tamper(
            "blind-rsa/0xDA7A/TokenResponse".into(),
            &ext_response,
            &[],
            &snapshot,
            &|b| finish(b, Some(&extensions)),
        ),
        tamper(
            "blind-rsa/0xDA7A/Token".into(),
            &ext_token,
            &[],
            &snapshot,
            &|b| {
                origin(
                    &rsa::Token::from_bytes(b).map_err(at("decode"))?,
                    Some(&extensions),
                )
            },
        ),
        tamper(
            "blind-rsa/0xDA7A/Extensions (origin's)".into(),
            extensions.as_bytes(),
            &[],
            &snapshot,
            &|b| {
                let ext = rsa::Extensions::from_bytes(b).map_err(at("decode"))?;
                origin(&rsa::Token::from_bytes(&ext_token).unwrap(), Some(&ext))
            },
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Trust Tokens / Private State Tokens (BoringSSL wire formats)

const CLIENT_DATA: &[u8] = b"tamper client data";

/// `finish_issuance` consumes its state: each case gets a copy restored from the secret storage
/// encoding, and on failure the state handed back in `FinishIssuanceError` must be the one given
/// (nothing half-applied).
fn tt_finish(
    client: &tt::Client,
    state: &tt::IssuanceState,
    response: &[u8],
) -> Result<Vec<tt::Token>, Error> {
    let stored = tt_state_to_bytes(state);
    let copy = tt_state_from_bytes(&stored)?;
    client.finish_issuance(copy, response).map_err(|e| {
        assert_eq!(
            tt_state_to_bytes(&e.state),
            stored,
            "finish_issuance changed the state it handed back"
        );
        e.error
    })
}

/// The secret storage encoding of an issuance state.
fn tt_state_to_bytes(state: &tt::IssuanceState) -> Vec<u8> {
    state.to_secret_bytes().to_vec()
}

/// See [`tt_state_to_bytes`].
fn tt_state_from_bytes(bytes: &[u8]) -> Result<tt::IssuanceState, Error> {
    tt::IssuanceState::from_secret_bytes(bytes)
}

/// What the issuer learns from redeeming each token: key id, bit, nonce.
type Redeemed = Vec<(u32, bool, Vec<u8>)>;

/// A memo of end-to-end results by key blob: the storage form of a key (`u8 method id ‖
/// blob`) decodes to a key equal to the blob's, so its outcome is the blob's, looked up here.
type KeyMemo<R> = RefCell<HashMap<Vec<u8>, Received<R>>>;

fn memo<R: Clone>(
    cache: &KeyMemo<R>,
    blob: Vec<u8>,
    run: impl FnOnce() -> Received<R>,
) -> Received<R> {
    if let Some(r) = cache.borrow().get(&blob) {
        return r.clone();
    }
    let r = run();
    cache.borrow_mut().insert(blob, r.clone());
    r
}

fn trust_token_messages(method: tt::Method) -> Vec<Tally> {
    let m = method.name();
    let mut rng = StdRng::seed_from_u64(0x7457 + u64::from(method.id()));
    let pmb = method.has_private_metadata();
    // Issue requests carry uncompressed points (cheap to check): 4 tokens. Responses and
    // states cost a batched proof check per case: 2 tokens (VOPRF) or 1 (PMB).
    let (big, small) = if pmb { (2, 1) } else { (4, 2) };
    let (sk, pk) = tt::generate_key(method, 7, &mut rng);
    let mut issuer = tt::Issuer::new(method, 16);
    issuer.add_key(sk.clone()).unwrap();
    let mut client = tt::Client::new(method, 16);
    client.add_key(pk).unwrap();
    let big_req = client.begin_issuance(big, &mut rng).unwrap();
    let req = client.begin_issuance(small, &mut rng).unwrap();
    let resp = issuer
        .issue(&req.message, 7, pmb, 16, &mut rng)
        .unwrap()
        .message;
    let tokens = tt_finish(&client, &req.state, &resp).unwrap();
    let redemption = client.begin_redemption(&tokens[0], CLIENT_DATA).unwrap();
    // A token of each bit value (one for VOPRF), for the private key checks.
    let mut both_bits = tokens[..1].to_vec();
    if pmb {
        let r = client.begin_issuance(1, &mut rng).unwrap();
        let resp0 = issuer.issue(&r.message, 7, false, 16, &mut rng).unwrap();
        both_bits.extend(tt_finish(&client, &r.state, &resp0.message).unwrap());
    }
    let snapshot = || {
        let keys: Vec<Vec<u8>> = issuer
            .public_keys()
            .iter()
            .map(|k| k.to_storage_bytes())
            .collect();
        format!(
            "{issuer:?} {} {client:?} {} {}",
            hex::encode(keys.concat()),
            hex::encode(tt_state_to_bytes(&req.state)),
            hex::encode(tt_state_to_bytes(&big_req.state))
        )
    };
    let bytes_of = |t: &[tt::Token]| t.iter().map(|t| t.as_bytes().to_vec()).collect::<Vec<_>>();
    let redeem_all = |with: &tt::Issuer, t: &[tt::Token]| -> Received<Redeemed> {
        t.iter()
            .map(|t| {
                let rr = client
                    .begin_redemption(t, CLIENT_DATA)
                    .map_err(at("client begin_redemption"))?;
                let r = with.redeem(&rr).map_err(at("issuer redeem"))?;
                Ok((r.key_id, r.private_metadata, r.nonce.to_vec()))
            })
            .collect()
    };
    let finish = |c: &tt::Client, st: &tt::IssuanceState, resp: &[u8]| {
        tt_finish(c, st, resp).map_err(at("client finish_issuance"))
    };
    // An issuer holding one (possibly tampered) private key redeems genuine tokens of both bit
    // values: every scalar is used by one of them (x0, y0: bit 0; x1, y1: bit 1; xs, ys: both).
    let redeem_with_key = |key: tt::PrivateKey| -> Received<Redeemed> {
        let mut i = tt::Issuer::new(method, 16);
        i.add_key(key).map_err(at("issuer add_key"))?;
        redeem_all(&i, &both_bits)
    };
    let private_memo: KeyMemo<Redeemed> = RefCell::default();
    let private_blob = |b: &[u8]| {
        memo(&private_memo, b.to_vec(), || {
            redeem_with_key(tt::PrivateKey::from_bytes(method, b).map_err(at("decode"))?)
        })
    };
    let private_storage = |b: &[u8]| {
        let k = tt::PrivateKey::from_storage_bytes(b).map_err(at("decode"))?;
        if k.method() != method {
            return redeem_with_key(k);
        }
        let blob = k.to_bytes().to_vec();
        assert!(k == tt::PrivateKey::from_bytes(method, &blob).unwrap());
        memo(&private_memo, blob, || redeem_with_key(k))
    };
    // A client holding one (possibly tampered) public key finishes the genuine response.
    let finish_with_key = |key: tt::PublicKey| -> Received<Vec<Vec<u8>>> {
        let mut c = tt::Client::new(method, 16);
        c.add_key(key).map_err(at("client add_key"))?;
        Ok(bytes_of(&finish(&c, &req.state, &resp)?))
    };
    let cd_start = 2 + tokens[0].as_bytes().len() + 2;
    let cd_end = cd_start + CLIENT_DATA.len();
    let echo = |good: &tt::Redemption, b: &[u8]| tt::Redemption {
        client_data: b[cd_start..cd_end].to_vec(),
        ..good.clone()
    };
    let mut redemption_ignored = vec![Ignored {
        range: cd_start..cd_end,
        why: "client_data: not authenticated by the token (BoringSSL passes it through); the issuer returns exactly the bytes received",
        expect: &echo,
    }];
    if method.is_legacy() {
        redemption_ignored.push(Ignored {
            range: cd_end..redemption.len(),
            why: "experiment_v1 u64 redemption time: not read by the issuer",
            expect: &unchanged,
        });
    }
    let mut out = vec![
        tamper(
            format!("trust-token/{m}/issue request of {big}"),
            &big_req.message,
            &[],
            &snapshot,
            &|b| {
                let r = issuer
                    .issue(b, 7, pmb, 16, &mut StdRng::seed_from_u64(7))
                    .map_err(at("issuer issue"))?;
                redeem_all(&issuer, &finish(&client, &big_req.state, &r.message)?)
            },
        ),
        tamper(
            format!("trust-token/{m}/redemption request"),
            &redemption,
            &redemption_ignored,
            &snapshot,
            &|b| issuer.redeem(b).map_err(at("issuer redeem")),
        ),
        tamper(
            format!("trust-token/{m}/token (Token::decode)"),
            tokens[0].as_bytes(),
            &[],
            &snapshot,
            &|b| {
                let t = tt::Token::decode(b).map_err(at("decode"))?;
                redeem_all(&issuer, &[t])
            },
        ),
        tamper(
            format!("trust-token/{m}/public key blob"),
            &pk.to_bytes(),
            &[],
            &snapshot,
            &|b| finish_with_key(tt::PublicKey::from_bytes(method, b).map_err(at("decode"))?),
        ),
        tamper(
            format!("trust-token/{m}/public key (storage)"),
            &pk.to_storage_bytes(),
            &[],
            &snapshot,
            &|b| finish_with_key(tt::PublicKey::from_storage_bytes(b).map_err(at("decode"))?),
        ),
    ];
    out.extend([
        // `IssueResponse::decode` (the serde form's strict decoder) runs alongside on every
        // variant; the client's verdict decides, and an accepted response must also decode.
        tamper(
            format!("trust-token/{m}/issue response of {small} (and IssueResponse::decode)"),
            &resp,
            &[],
            &snapshot,
            &|b| {
                let decoded = tt::IssueResponse::decode(b).map(|r| r.issued);
                let t = finish(&client, &req.state, b)?;
                Ok((bytes_of(&t), decoded))
            },
        ),
        tamper(
            format!("trust-token/{m}/issuance state of {small} (storage)"),
            &tt_state_to_bytes(&req.state),
            &[],
            &snapshot,
            &|b| {
                let st = tt_state_from_bytes(b).map_err(at("decode"))?;
                redeem_all(&issuer, &finish(&client, &st, &resp)?)
            },
        ),
        tamper(
            format!("trust-token/{m}/private key blob"),
            &sk.to_bytes(),
            &[],
            &snapshot,
            &private_blob,
        ),
        tamper(
            format!("trust-token/{m}/private key (storage; blob outcomes memoized)"),
            &sk.to_storage_bytes(),
            &[],
            &snapshot,
            &private_storage,
        ),
    ]);
    out
}

/// `experiment_v1`'s signed redemption record (feature `srr`): the issuer's signed response as
/// the client receives it, the SRR public key the client is given, and the issuer's SRR secret
/// key (a tampered one signs, and the client holding the genuine public key must refuse).
#[cfg(feature = "srr")]
fn srr_messages() -> Vec<Tally> {
    let method = tt::Method::ExperimentV1;
    let m = method.name();
    let secret = [0x5au8; tt::SRR_KEY_LEN];
    let record = b"tamper: an issuer-defined redemption record";
    let mut issuer = tt::Issuer::new(method, 16);
    issuer.set_srr_key(&secret).unwrap();
    let public = issuer.srr_public_key().unwrap();
    let mut client = tt::Client::new(method, 16);
    client.set_srr_key(&public).unwrap();
    let response = issuer.redemption_response(record).unwrap();
    let snapshot = || {
        format!(
            "{:?} {:?}",
            client.srr_key().map(hex::encode),
            issuer.srr_public_key().map(hex::encode)
        )
    };
    vec![
        tamper(
            format!("trust-token/{m}/signed redemption response"),
            &response,
            &[],
            &snapshot,
            &|b| {
                client
                    .finish_redemption(b)
                    .map_err(at("client finish_redemption"))
            },
        ),
        tamper(
            format!("trust-token/{m}/SRR public key"),
            &public,
            &[],
            &snapshot,
            &|b| {
                let mut c = tt::Client::new(method, 16);
                c.set_srr_key(b).map_err(at("client set_srr_key"))?;
                c.finish_redemption(&response)
                    .map_err(at("client finish_redemption"))
            },
        ),
        tamper(
            format!("trust-token/{m}/SRR secret key (signs for the genuine public key)"),
            &secret,
            &[],
            &snapshot,
            &|b| {
                let mut i = tt::Issuer::new(method, 16);
                i.set_srr_key(b).map_err(at("issuer set_srr_key"))?;
                let resp = i
                    .redemption_response(record)
                    .map_err(at("issuer redemption_response"))?;
                client
                    .finish_redemption(&resp)
                    .map_err(at("client finish_redemption"))
            },
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// ARC (draft-ietf-privacypass-arc-crypto-01) and its Privacy Pass binding (token type 0xE5AC)

type Arc = arc::ArcV2P256;
const ARC_LIMIT: u32 = 2;

/// The presentation state of a credential for a context (the credential keeps one counter per
/// presentation context).
fn arc_presentation_state<'a>(
    credential: &'a mut arc::Credential<Arc>,
    context: &[u8],
    limit: u32,
) -> Result<arc::PresentationState<'a, Arc>, Error> {
    credential.presentation_state(context, limit)
}

fn arc_messages() -> Vec<Tally> {
    let mut rng = StdRng::seed_from_u64(0xA4C);
    let key = arc::ServerPrivateKey::<Arc>::random(&mut rng);
    let pk = *key.public_key();
    let issuer = app::Issuer::new(key.clone());
    let challenge =
        app::TokenChallenge::new(b"issuer.example", &[9; 32], b"origin.example", &[7; 32]).unwrap();
    let request_ctx = challenge.request_context(issuer.key_id());
    let presentation_ctx = challenge.presentation_context(issuer.key_id());
    let snapshot = || {
        hexs(&[
            key.to_bytes().as_ref(),
            &pk.to_bytes(),
            &issuer.public_key().to_bytes(),
            issuer.key_id(),
        ])
    };
    // One-shot request states, rebuilt from a seeded RNG for every case.
    let fresh_pp = || app::Client::request(&challenge, &pk, &mut StdRng::seed_from_u64(3)).unwrap();
    let fresh =
        || arc::CredentialRequest::<Arc>::new(&request_ctx, &mut StdRng::seed_from_u64(4)).unwrap();
    let seeded = || StdRng::seed_from_u64(7);
    let credential_bytes = |c: arc::Credential<Arc>| c.to_bytes().to_vec();

    let (pp_request, _) = fresh_pp();
    let pp_response = issuer.issue(&pp_request, &mut rng).unwrap();
    let mut pp_credential = fresh_pp().1.finalize(&pp_response).unwrap();
    let mut token_state =
        app::Client::token_state(&mut pp_credential, &challenge, &pk, ARC_LIMIT).unwrap();
    let token = token_state.token(&mut rng).unwrap();

    let request = fresh().message;
    let response = key.issue(&request, &mut rng).unwrap();
    let credential = fresh().state.finalize(&pk, &response).unwrap();
    let fresh_credential_bytes = credential.to_bytes().to_vec();
    // The same credential after one presentation: its storage now holds the context's counter.
    let mut used = arc::Credential::<Arc>::from_bytes(&fresh_credential_bytes).unwrap();
    let presentation = arc_presentation_state(&mut used, &presentation_ctx, ARC_LIMIT)
        .unwrap()
        .present(&mut rng)
        .unwrap();
    let used_bytes = used.to_bytes().to_vec();
    let verify = |p: &arc::Presentation<Arc>| {
        key.verify_presentation(&request_ctx, &presentation_ctx, p, ARC_LIMIT)
            .map(|t| t.to_bytes())
            .map_err(at("verify_presentation"))
    };
    let present_and_verify = |c: &mut arc::Credential<Arc>| {
        let mut st = arc_presentation_state(c, &presentation_ctx, ARC_LIMIT)
            .map_err(at("presentation_state"))?;
        verify(&st.present(&mut seeded()).map_err(at("client present"))?)
    };
    // The counter's `used` field is the client's own unauthenticated storage (layout: the fresh
    // credential, then `BE32(limit) || BE32(used) || BE16(len) || context` per context): a
    // flipped `used` gives the presentation of the nonce written there (a restored stale copy
    // does the same; review finding 3), the tag of which is computed independently here.
    let used_at = fresh_credential_bytes.len() + 4;
    // The tag of the presentation at `nonce`, computed on the explicit-nonce path.
    let tag_at = |nonce: u32| {
        hazmat::arc::present_nonce_with(
            &credential,
            &presentation_ctx,
            nonce,
            ARC_LIMIT,
            &mut hazmat::arc::TestDrng::new(b"any"),
        )
        .map(|p| p.tag().to_bytes())
        .unwrap_or_default()
    };
    let tag_for_used = |_: &Vec<u8>, b: &[u8]| {
        tag_at(u32::from_be_bytes(
            b[used_at..used_at + 4].try_into().unwrap(),
        ))
    };
    // A flipped context name leaves the credential without a counter for this context: it then
    // starts it at nonce 0, again the behaviour of a stale copy (the name is not authenticated
    // either; a flip that breaks the names' sort order is rejected at decoding).
    let tag_for_fresh_context =
        |_: &Vec<u8>, b: &[u8]| tag_at(u32::from(b[used_at + 6..] == presentation_ctx[..]));
    let counter_ignored = [
        Ignored {
            range: used_at..used_at + 4,
            why: "Credential counter `used`: client-local storage without integrity; the result is the presentation of the nonce written (review finding 3)",
            expect: &tag_for_used,
        },
        Ignored {
            range: used_at + 6..used_bytes.len(),
            why: "Credential counter's context name: client-local storage without integrity; another name leaves this context at nonce 0 (review finding 3)",
            expect: &tag_for_fresh_context,
        },
    ];
    vec![
        tamper(
            "arc/privacy-pass/CredentialRequest".into(),
            &pp_request.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let req = app::CredentialRequest::from_bytes(b).map_err(at("decode"))?;
                let resp = issuer.issue(&req, &mut seeded()).map_err(at("issuer issue"))?;
                let c = fresh_pp().1.finalize(&resp).map_err(at("client finalize"))?;
                Ok(credential_bytes(c))
            },
        ),
        tamper(
            "arc/privacy-pass/CredentialResponse".into(),
            &pp_response.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let resp = app::CredentialResponse::from_bytes(b).map_err(at("decode"))?;
                let c = fresh_pp().1.finalize(&resp).map_err(at("client finalize"))?;
                Ok(credential_bytes(c))
            },
        ),
        tamper(
            format!("arc/privacy-pass/Token (limit {ARC_LIMIT})"),
            &token.to_bytes(),
            &[Ignored {
                range: 2..6,
                why: "presentation_nonce: written as 0 and not read (the -01 nonce is hidden; review finding 13)",
                expect: &unchanged,
            }],
            &snapshot,
            &|b| {
                let t = app::Token::from_bytes(b).map_err(at("decode"))?;
                issuer
                    .verify(&t, &challenge, ARC_LIMIT)
                    .map(|t| t.to_bytes())
                    .map_err(at("issuer verify"))
            },
        ),
        tamper(
            format!("arc/Presentation (limit {ARC_LIMIT})"),
            &presentation.to_bytes(),
            &[],
            &snapshot,
            &|b| verify(&arc::Presentation::from_bytes(b).map_err(at("decode"))?),
        ),
        tamper(
            "arc/ServerPrivateKey".into(),
            &key.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let k = arc::ServerPrivateKey::<Arc>::from_bytes(b).map_err(at("decode"))?;
                let resp = k.issue(&request, &mut seeded()).map_err(at("issue"))?;
                let c = fresh().state.finalize(&pk, &resp).map_err(at("client finalize"))?;
                Ok(credential_bytes(c))
            },
        ),
        tamper(
            "arc/ServerPublicKey".into(),
            &pk.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let k = arc::ServerPublicKey::<Arc>::from_bytes(b).map_err(at("decode"))?;
                let c = fresh().state.finalize(&k, &response).map_err(at("client finalize"))?;
                Ok(credential_bytes(c))
            },
        ),
        tamper(
            "arc/Credential (storage)".into(),
            &fresh_credential_bytes,
            &[],
            &snapshot,
            &|b| present_and_verify(&mut arc::Credential::<Arc>::from_bytes(b).map_err(at("decode"))?),
        ),
        tamper(
            "arc/Credential with a context counter (storage)".into(),
            &used_bytes,
            &counter_ignored,
            &snapshot,
            &|b| present_and_verify(&mut arc::Credential::<Arc>::from_bytes(b).map_err(at("decode"))?),
        ),
    ]
}

/// ARC's legacy generation (nonce in the clear): the presentation, its public nonce and the
/// credential storage, on both legacy suites.
fn arc_legacy_messages<S: arc::ClearNonceSuite>(suite: &str) -> Vec<Tally> {
    const LIMIT: u32 = 16;
    let (rctx, pctx): (&[u8], &[u8]) = (b"tamper request context", b"tamper presentation context");
    let mut rng = StdRng::seed_from_u64(0x1E6A);
    let key = arc::ServerPrivateKey::<S>::random(&mut rng);
    let request = arc::CredentialRequest::<S>::new(rctx, &mut rng).unwrap();
    let response = key.issue(&request.message, &mut rng).unwrap();
    let mut credential = request.state.finalize(key.public_key(), &response).unwrap();
    // The credential as stored before any presentation. Its counters, once present, are
    // client-local storage without integrity (the v2 case above predicts their effect; a
    // legacy counter's permutation key only reorders the nonces).
    let stored = credential.to_bytes().to_vec();
    let (presentation, nonce) = credential
        .legacy_presentation_state(pctx, LIMIT, &mut rng)
        .unwrap()
        .present(&mut rng)
        .unwrap();
    let snapshot = || hexs(&[key.to_bytes().as_ref(), &key.public_key().to_bytes()]);
    let verify = |p: &arc::LegacyPresentation<S>, nonce: u32| {
        key.verify_legacy_presentation(rctx, pctx, p, nonce, LIMIT)
            .map(|t| t.to_bytes())
            .map_err(at("verify_legacy_presentation"))
    };
    vec![
        tamper(
            format!("arc/{suite}/LegacyPresentation (limit {LIMIT})"),
            &presentation.to_bytes(),
            &[],
            &snapshot,
            &|b| {
                let p = arc::LegacyPresentation::<S>::from_bytes(b).map_err(at("decode"))?;
                verify(&p, nonce)
            },
        ),
        tamper(
            format!("arc/{suite}/LegacyPresentation nonce (BE32)"),
            &nonce.to_be_bytes(),
            &[],
            &snapshot,
            &|b| {
                let n: [u8; 4] = b.try_into().map_err(|_| Rejected {
                    step: "nonce length",
                    error: Some(Error::InvalidLength),
                })?;
                verify(&presentation, u32::from_be_bytes(n))
            },
        ),
        tamper(
            format!("arc/{suite}/Credential (storage)"),
            &stored,
            &[],
            &snapshot,
            &|b| {
                // The next presentation from the stored credential must verify, at its nonce.
                let mut c = arc::Credential::<S>::from_bytes(b).map_err(at("decode"))?;
                let (p, n) = c
                    .legacy_presentation_state(pctx, LIMIT, &mut StdRng::seed_from_u64(1))
                    .map_err(at("legacy_presentation_state"))?
                    .present(&mut StdRng::seed_from_u64(2))
                    .map_err(at("client present"))?;
                verify(&p, n)
            },
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// ACT (ACTv1-P256-SHA256)

/// Every ACT message at `L = 2`: the issuance request and response, a spend with top-up (both
/// commitment vectors), a refresh spend, the refund, and the Client's stored credential and
/// spend state. Deterministic (`act::hazmat`), so each receiver's result is comparable.
fn act_messages() -> Vec<Tally> {
    use privacy_tokens::act::{self, hazmat as ah};
    const L: u8 = 2;
    const CTX_SPEND: &[u8] = b"tamper ctx_spend";
    let key = ah::generate_key_pair(&[1; 48]).unwrap();
    let pk = *key.public_key();
    let ctx = act::CredentialContext::with_width(b"tamper context", L).unwrap();
    let snapshot = || hexs(&[key.to_bytes().as_ref(), &pk.to_bytes()]);
    let req = ah::issue_request(&[2; 96]).unwrap();
    let state_bytes = req.state.to_bytes().to_vec();
    let request = req.message.to_bytes();
    let response = ah::issue_response(&key, &ctx, 1, &req.message, &[3; 96])
        .unwrap()
        .to_bytes();
    let credential = req
        .state
        .finalize(
            &ctx,
            &pk,
            &act::IssueResponse::from_bytes(&response).unwrap(),
        )
        .map_err(|r| r.error)
        .unwrap();
    let credential_bytes = credential.to_bytes().to_vec();
    let copy = || act::Credential::from_bytes(&credential_bytes).unwrap();
    let spend_of = |c: act::Credential, s: u64, a: u64| {
        ah::prove_spend(c, &ctx, s, a, CTX_SPEND, &[4; 96]).unwrap()
    };
    let top_up = spend_of(copy(), 1, 1);
    let spend_bytes = top_up.message.to_bytes();
    let spend_state = top_up.state.to_bytes().to_vec();
    let refresh = spend_of(copy(), 0, 0).message.to_bytes();
    let verified = key.verify_spend(&ctx, &top_up.message, CTX_SPEND).unwrap();
    let refund = ah::issue_refund(&key, &ctx, &verified, 2, &[5; 96])
        .unwrap()
        .to_bytes();

    let issue = |b: &[u8]| {
        let m = act::IssueRequest::from_bytes(b).map_err(at("IssueRequest::from_bytes"))?;
        ah::issue_response(&key, &ctx, 1, &m, &[3; 96])
            .map(|r| r.to_bytes().to_vec())
            .map_err(at("issue"))
    };
    let finalize_issue = |b: &[u8]| {
        let m = act::IssueResponse::from_bytes(b).map_err(at("IssueResponse::from_bytes"))?;
        act::ClientIssuanceState::from_bytes(&state_bytes)
            .unwrap()
            .finalize(&ctx, &pk, &m)
            .map(|c| c.to_bytes().to_vec())
            .map_err(|r| at("finalize issue")(r.error))
    };
    let verify = |b: &[u8]| {
        let m = act::Spend::from_bytes(b, L).map_err(at("Spend::from_bytes"))?;
        key.verify_spend(&ctx, &m, CTX_SPEND)
            .map(|v| *v.nullifier())
            .map_err(at("verify_spend"))
    };
    let finalize_refund = |b: &[u8]| {
        let m = act::Refund::from_bytes(b).map_err(at("Refund::from_bytes"))?;
        act::ClientSpendState::from_bytes(&spend_state)
            .unwrap()
            .finalize(&ctx, &pk, &m)
            .map(|c| c.to_bytes().to_vec())
            .map_err(|r| at("finalize refund")(r.error))
    };
    // The Client's stored credential: a flipped byte makes a spend the Moderator refuses.
    let spend_from_storage = |b: &[u8]| {
        let c = act::Credential::from_bytes(b).map_err(at("Credential::from_bytes"))?;
        let sp = ah::prove_spend(c, &ctx, 1, 0, CTX_SPEND, &[4; 96]).map_err(at("prove_spend"))?;
        verify(&sp.message.to_bytes())
    };
    // The Client's stored spend state: a flipped byte makes the refund fail to finalise.
    let finalize_from_storage = |b: &[u8]| {
        let st =
            act::ClientSpendState::from_bytes(b).map_err(at("ClientSpendState::from_bytes"))?;
        st.finalize(&ctx, &pk, &act::Refund::from_bytes(&refund).unwrap())
            .map(|c| c.to_bytes().to_vec())
            .map_err(|r| at("finalize refund")(r.error))
    };
    // The issuance state in storage: a flip that still decodes gives a `K` its `k`, `r` no
    // longer open.
    let finalize_issue_from_storage = |b: &[u8]| {
        let st = act::ClientIssuanceState::from_bytes(b)
            .map_err(at("ClientIssuanceState::from_bytes"))?;
        st.finalize(
            &ctx,
            &pk,
            &act::IssueResponse::from_bytes(&response).unwrap(),
        )
        .map(|c| c.to_bytes().to_vec())
        .map_err(|r| at("finalize issue")(r.error))
    };
    // `s` and `a` in the spend state only bound the refund the Client accepts (`t <= s + a`);
    // the Moderator's refund is bound to `K'`, so a flip there that still admits `t` gives the
    // same credential.
    let amounts: [Ignored<Vec<u8>>; 1] = [Ignored {
        range: 72..88,
        why: "ClientSpendState `s`, `a`: only the bound t <= s + a reads them; the refund is bound to K'",
        expect: &unchanged,
    }];
    vec![
        tamper("act IssueRequest".into(), &request, &[], &snapshot, &issue),
        tamper(
            "act ClientIssuanceState (storage)".into(),
            &state_bytes,
            &[],
            &snapshot,
            &finalize_issue_from_storage,
        ),
        tamper(
            "act IssueResponse".into(),
            &response,
            &[],
            &snapshot,
            &finalize_issue,
        ),
        tamper(
            "act Spend (s, a > 0)".into(),
            &spend_bytes,
            &[],
            &snapshot,
            &verify,
        ),
        tamper(
            "act Spend (refresh)".into(),
            &refresh,
            &[],
            &snapshot,
            &verify,
        ),
        tamper(
            "act Refund".into(),
            &refund,
            &[],
            &snapshot,
            &finalize_refund,
        ),
        tamper(
            "act Credential (storage)".into(),
            &credential_bytes,
            &[],
            &snapshot,
            &spend_from_storage,
        ),
        tamper(
            "act ClientSpendState (storage)".into(),
            &spend_state,
            &amounts,
            &snapshot,
            &finalize_from_storage,
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Driver

/// Groups of message types, run on a small work queue, longest first.
type Group = fn() -> Vec<Tally>;

const GROUPS: &[(&str, Group)] = &[
    ("act", act_messages),
    ("trust token pst_v1_pmb", || {
        trust_token_messages(tt::Method::PstV1Pmb)
    }),
    ("arc", arc_messages),
    ("arc legacy P-256", || {
        arc_legacy_messages::<arc::ArcV1P256>("v1p256")
    }),
    ("arc legacy P-384", || {
        arc_legacy_messages::<arc::ArcV1P384>("v1p384")
    }),
    ("poprf P-384", oprf_messages::<P384Sha384, Poprf>),
    ("voprf P-384", oprf_messages::<P384Sha384, Voprf>),
    ("privacy pass", privacy_pass_messages),
    ("privacy pass blind rsa", blind_rsa_messages),
    ("trust token pst_v1_voprf", || {
        trust_token_messages(tt::Method::PstV1Voprf)
    }),
    ("poprf P-256", oprf_messages::<P256Sha256, Poprf>),
    ("voprf P-256", oprf_messages::<P256Sha256, Voprf>),
    ("trust token experiment_v2_pmb", || {
        trust_token_messages(tt::Method::ExperimentV2Pmb)
    }),
    ("trust token experiment_v1", || {
        trust_token_messages(tt::Method::ExperimentV1)
    }),
    ("trust token experiment_v2_voprf", || {
        trust_token_messages(tt::Method::ExperimentV2Voprf)
    }),
    #[cfg(feature = "srr")]
    ("trust token experiment_v1 srr", srr_messages),
];

/// Runs every group (or, with `TAMPER_ONLY=<text>` in the environment, the groups whose name
/// contains it; the 100,000-case floor then does not apply), prints a line per message type and
/// the summary, and fails on any accepted or panicking case.
#[test]
fn tamper_every_message() {
    let start = Instant::now();
    let only = std::env::var("TAMPER_ONLY").ok();
    let groups: Vec<&(&str, Group)> = GROUPS
        .iter()
        .filter(|(name, _)| only.as_ref().is_none_or(|o| name.contains(o.as_str())))
        .collect();
    let queue = Mutex::new(groups.iter().enumerate());
    let results = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let next = queue.lock().unwrap().next();
                let Some((i, (_, group))) = next else { break };
                let tallies = group();
                results.lock().unwrap().push((i, tallies));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    assert_eq!(results.len(), groups.len(), "a group failed");
    results.sort_by_key(|(i, _)| *i);
    let tallies: Vec<Tally> = results.into_iter().flat_map(|(_, t)| t).collect();
    let (mut cases, mut accepted, mut panics, mut ignored) = (0, 0, 0, 0);
    for t in &tallies {
        println!("{}", t.line());
        for b in &t.bad {
            println!("    {b}");
        }
        cases += t.cases;
        accepted += t.accepted;
        panics += t.panics;
        ignored += t.ignored;
    }
    let summary = format!(
        "tamper: {cases} cases, {accepted} accepted, {panics} panics ({ignored} in unauthenticated bytes with the predicted result, {} message types, {:.1}s)",
        tallies.len(),
        start.elapsed().as_secs_f64()
    );
    println!("{summary}");
    // For CI, which runs the suite once through the README's test command: the summary of the
    // full run in `target/tmp/tamper-summary.txt`.
    if only.is_none() {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tamper-summary.txt");
        std::fs::write(path, format!("{summary}\n")).expect("write the summary");
    }
    assert_eq!(accepted, 0, "tampered messages were accepted");
    assert_eq!(panics, 0, "receivers panicked");
    if only.is_none() {
        assert!(cases >= 100_000, "only {cases} cases");
    }
}

/// The harness can fail: a receiver that ignores its input is counted as accepting, a panic
/// as a panic, a declared unauthenticated range only counts as ignored when the result is the
/// predicted one, and a receiver whose state changes fails the run.
#[test]
fn harness_counts_acceptance_panics_and_state() {
    let msg = [1u8, 2, 3, 4];
    let none = String::new;
    let lax = tamper("lax".into(), &msg, &[], &none, &|_| Ok(()));
    assert_eq!((lax.accepted, lax.cases), (32 + 4 + 3, 32 + 4 + 3));
    let strict = tamper("strict".into(), &msg, &[], &none, &|b| {
        verdict("equal", b == msg)
    });
    assert_eq!((strict.rejected, strict.accepted), (strict.cases, 0));
    let panicky = tamper("panicky".into(), &msg, &[], &none, &|b| {
        assert_ne!(b.len(), 2, "deliberate panic");
        verdict("equal", b == msg)
    });
    assert_eq!((panicky.panics, panicky.rejected), (1, panicky.cases - 1));
    // Byte 3 is not read: its 8 flips are ignored; byte 2 is declared but read: accepted.
    let reads_three = |b: &[u8]| verdict("prefix", b.len() == 4 && b[..3] == msg[..3]);
    let partly = tamper(
        "partly".into(),
        &msg,
        &[Ignored {
            range: 2..4,
            why: "test",
            expect: &unchanged,
        }],
        &none,
        &reads_three,
    );
    assert_eq!((partly.ignored, partly.accepted), (8, 0));
    let echo = |_: &Vec<u8>, b: &[u8]| b.to_vec();
    let wrong = tamper(
        "wrong prediction".into(),
        &msg,
        &[Ignored {
            range: 3..4,
            why: "test",
            expect: &echo,
        }],
        &none,
        &|b| {
            verdict("prefix", b.len() == 4 && b[..3] == msg[..3])?;
            Ok(msg.to_vec())
        },
    );
    assert_eq!(wrong.accepted, 8);
    let counter = Cell::new(0);
    let stateful = catch_unwind(AssertUnwindSafe(|| {
        tamper(
            "stateful".into(),
            &msg,
            &[],
            &|| counter.get().to_string(),
            &|b| {
                counter.set(counter.get() + 1);
                verdict("equal", b == msg)
            },
        )
    }));
    assert!(stateful.is_err());
}
