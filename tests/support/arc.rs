//! Harness for the ARC vector layout (`ietf-wg-privacypass/draft-arc` `poc/vectors/allVectors.json`):
//! `{ "<suite>": { ServerKey, CredentialRequest, CredentialResponse, Credential, Presentation1..N } }`.
//!
//! * v2 files (crypto-01: presentations carry `nonce_commit`) are replayed with the sigma-protocols
//!   TestDRNG (seed `drng_seed`, default the published seed), every drawn scalar compared.
//! * v1 files (yun-cfrg-arc-01, crypto-00, the P-384 file) take the random values from the file
//!   and the proof nonces from `Blinding_i` (default 1, 2, 3, ...).
//!
//! Optional per-suite `presentation_limit` (default 2): k > 1 adds `D_0..D_{k-1}`.
//! One case per section (key, request, response, credential, each presentation).

#![allow(dead_code)]

use privacy_tokens::arc::hazmat::{self, ScalarSource, TestDrng};
use privacy_tokens::arc::{
    compute_bases, ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, ClearNonceSuite, Credential,
    CredentialRequest, CredentialResponse, HiddenNonceSuite, LegacyPresentation, Presentation,
    ServerPrivateKey,
};
use privacy_tokens::group::{self, Curve, Scalar};
use serde_json::{json, Map, Value};

use super::counts::check;
pub use super::counts::Counts;

/// Whether a document is in the ARC layout.
pub fn recognises(json: &Value) -> bool {
    json.as_object().is_some_and(|o| {
        !o.is_empty()
            && o.iter().all(|(k, v)| {
                k.starts_with("ARCV1-")
                    && v.get("ServerKey").is_some()
                    && v.get("Credential").is_some()
            })
    })
}

fn field(v: &Value, section: &str, name: &str) -> Result<Vec<u8>, String> {
    let s = v
        .get(section)
        .and_then(|s| s.get(name))
        .and_then(|x| x.as_str())
        .ok_or_else(|| format!("missing {section}.{name}"))?;
    hex::decode(s).map_err(|e| format!("{section}.{name}: bad hex: {e}"))
}

fn nonce_of(v: &Value) -> Result<u32, String> {
    let s = v
        .get("nonce")
        .and_then(|x| x.as_str())
        .ok_or("missing nonce")?;
    u32::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|e| format!("nonce: {e}"))
}

fn presentation_names(suite: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for i in 1.. {
        let n = format!("Presentation{i}");
        if suite.get(&n).is_none() {
            break;
        }
        names.push(n);
    }
    names
}

/// A scalar source that records every `random_scalar` draw.
struct Recording<'a, S: ArcSuite, R: ScalarSource<S::Curve>> {
    inner: &'a mut R,
    drawn: Vec<Vec<u8>>,
    _s: core::marker::PhantomData<S>,
}

impl<'a, S: ArcSuite, R: ScalarSource<S::Curve>> Recording<'a, S, R> {
    fn new(inner: &'a mut R) -> Self {
        Self {
            inner,
            drawn: Vec::new(),
            _s: core::marker::PhantomData,
        }
    }
    fn take(&mut self) -> Vec<Vec<u8>> {
        core::mem::take(&mut self.drawn)
    }
}

impl<S: ArcSuite, R: ScalarSource<S::Curve>> ScalarSource<S::Curve> for Recording<'_, S, R> {
    fn random_scalar(&mut self) -> Scalar<S::Curve> {
        let s = self.inner.random_scalar();
        self.drawn
            .push(<S::Curve as Curve>::scalar_bytes(&s).as_ref().to_vec());
        s
    }
    fn proof_nonce(&mut self) -> Scalar<S::Curve> {
        self.inner.proof_nonce()
    }
}

/// A source replaying given values: `random` in order, then proof nonces in order.
pub struct ListSource<C: Curve> {
    random: Vec<Scalar<C>>,
    nonces: Vec<Scalar<C>>,
}

impl<C: Curve> ListSource<C> {
    pub fn new(random: &[Vec<u8>], nonces: &[Vec<u8>]) -> Result<Self, String> {
        let d = |b: &Vec<u8>| group::decode_scalar::<C>(b).map_err(|e| format!("scalar: {e}"));
        Ok(Self {
            random: random.iter().rev().map(d).collect::<Result<_, _>>()?,
            nonces: nonces.iter().rev().map(d).collect::<Result<_, _>>()?,
        })
    }
}

impl<C: Curve> ScalarSource<C> for ListSource<C> {
    fn random_scalar(&mut self) -> Scalar<C> {
        self.random
            .pop()
            .expect("vector supplies enough random scalars")
    }
    fn proof_nonce(&mut self) -> Scalar<C> {
        self.nonces
            .pop()
            .expect("vector supplies enough proof nonces")
    }
}

fn counting_nonces(ns: usize, n: usize) -> Vec<Vec<u8>> {
    (1..=n)
        .map(|i| {
            let mut b = vec![0u8; ns];
            b[ns - 8..].copy_from_slice(&(i as u64).to_be_bytes());
            b
        })
        .collect()
}

fn blindings(v: &Value, section: &str, ns: usize, n: usize) -> Result<Vec<Vec<u8>>, String> {
    if v.get(section).and_then(|s| s.get("Blinding_0")).is_some() {
        (0..n)
            .map(|i| field(v, section, &format!("Blinding_{i}")))
            .collect()
    } else {
        Ok(counting_nonces(ns, n))
    }
}

fn limit_of(suite: &Value) -> Result<u32, String> {
    match suite.get("presentation_limit") {
        None => Ok(2),
        Some(l) => l
            .as_u64()
            .and_then(|l| u32::try_from(l).ok())
            .ok_or_else(|| "presentation_limit: not a u32".to_string()),
    }
}

/// Replays one document.
pub fn run(json: &Value) -> Result<Counts, String> {
    let obj = json.as_object().ok_or("not an object")?;
    let mut counts = Counts::default();
    for (name, suite) in obj {
        let v2 = suite
            .get("Presentation1")
            .and_then(|p| p.get("nonce_commit"))
            .is_some();
        let c = match (name.as_str(), v2) {
            ("ARCV1-P256", true) => run_v2::<ArcV2P256>(suite)?,
            ("ARCV1-P256", false) => run_v1::<ArcV1P256>(suite)?,
            ("ARCV1-P384", false) => run_v1::<ArcV1P384>(suite)?,
            _ => {
                counts.skipped += 1;
                continue;
            }
        };
        counts.add(c);
    }
    Ok(counts)
}

fn ns<S: ArcSuite>() -> usize {
    <S::Curve as Curve>::SCALAR_LEN
}
fn ne<S: ArcSuite>() -> usize {
    <S::Curve as Curve>::COMPRESSED_LEN
}

fn check_key<S: ArcSuite>(
    m: &mut Vec<String>,
    suite: &Value,
    key: &ServerPrivateKey<S>,
) -> Result<(), String> {
    let pk = key.public_key().to_bytes();
    let n = ne::<S>();
    for (i, f) in ["X0", "X1", "X2"].iter().enumerate() {
        check(
            m,
            &format!("ServerKey.{f}"),
            &pk[i * n..(i + 1) * n],
            &field(suite, "ServerKey", f)?,
        );
    }
    let sk = key.to_bytes();
    let s = ns::<S>();
    for (i, f) in ["x0", "x1", "x2", "xb"].iter().enumerate() {
        check(
            m,
            &format!("ServerKey.{f}"),
            &sk[i * s..(i + 1) * s],
            &field(suite, "ServerKey", f)?,
        );
    }
    // Round trips.
    let back = ServerPrivateKey::<S>::from_bytes(&sk).map_err(|e| format!("key decode: {e}"))?;
    check(
        m,
        "ServerKey round trip",
        &back.public_key().to_bytes(),
        &pk,
    );
    Ok(())
}

fn check_request<S: ArcSuite>(
    m: &mut Vec<String>,
    suite: &Value,
    req: &CredentialRequest<S>,
) -> Result<(), String> {
    let ctx = field(suite, "CredentialRequest", "request_context")?;
    let m2 = hazmat::request_context_scalar::<S>(&ctx).map_err(|e| e.to_string())?;
    check(
        m,
        "CredentialRequest.m2",
        &m2,
        &field(suite, "CredentialRequest", "m2")?,
    );
    let b = req.to_bytes();
    let n = ne::<S>();
    check(
        m,
        "CredentialRequest.m1_enc",
        &b[..n],
        &field(suite, "CredentialRequest", "m1_enc")?,
    );
    check(
        m,
        "CredentialRequest.m2_enc",
        &b[n..2 * n],
        &field(suite, "CredentialRequest", "m2_enc")?,
    );
    check(
        m,
        "CredentialRequest.proof",
        &b[2 * n..],
        &field(suite, "CredentialRequest", "proof")?,
    );
    let back =
        CredentialRequest::<S>::from_bytes(&b).map_err(|e| format!("request decode: {e}"))?;
    if back != *req || back.verify().is_err() {
        m.push("CredentialRequest: decode/verify".into());
    }
    Ok(())
}

fn check_response<S: ArcSuite>(
    m: &mut Vec<String>,
    suite: &Value,
    resp: &CredentialResponse<S>,
) -> Result<(), String> {
    let b = resp.to_bytes();
    let n = ne::<S>();
    for (i, f) in ["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux"]
        .iter()
        .enumerate()
    {
        check(
            m,
            &format!("CredentialResponse.{f}"),
            &b[i * n..(i + 1) * n],
            &field(suite, "CredentialResponse", f)?,
        );
    }
    check(
        m,
        "CredentialResponse.proof",
        &b[6 * n..],
        &field(suite, "CredentialResponse", "proof")?,
    );
    let back =
        CredentialResponse::<S>::from_bytes(&b).map_err(|e| format!("response decode: {e}"))?;
    if back != *resp {
        m.push("CredentialResponse: decode".into());
    }
    Ok(())
}

fn check_credential<S: ArcSuite>(
    m: &mut Vec<String>,
    suite: &Value,
    cred: &Credential<S>,
) -> Result<(), String> {
    check(
        m,
        "Credential.m1",
        &hazmat::credential_m1(cred),
        &field(suite, "Credential", "m1")?,
    );
    let [u, up, x1] = cred.elements();
    check(m, "Credential.U", &u, &field(suite, "Credential", "U")?);
    check(
        m,
        "Credential.U_prime",
        &up,
        &field(suite, "Credential", "U_prime")?,
    );
    check(m, "Credential.X1", &x1, &field(suite, "Credential", "X1")?);
    let back = Credential::<S>::from_bytes(&cred.to_bytes())
        .map_err(|e| format!("credential decode: {e}"))?;
    if back.to_bytes() != cred.to_bytes() {
        m.push("Credential: round trip".into());
    }
    Ok(())
}

fn run_v2<S: HiddenNonceSuite>(suite: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    let seed = match suite.get("drng_seed").and_then(|s| s.as_str()) {
        Some(h) => hex::decode(h).map_err(|e| format!("drng_seed: {e}"))?,
        None => hazmat::PUBLISHED_SEED.to_vec(),
    };
    let limit = limit_of(suite)?;
    let (_, k) = compute_bases(limit).map_err(|e| format!("presentation_limit: {e}"))?;
    let mut drng = TestDrng::new(&seed);
    let mut src = Recording::<S, _>::new(&mut drng);

    // Key: x0, x1, x2, xb drawn.
    let key = hazmat::server_key_with::<S>(&mut src);
    let _ = src.take();
    let mut m = Vec::new();
    check_key(&mut m, suite, &key)?;
    counts.record("ServerKey", m);

    // Request: m1, r1, r2.
    let ctx = field(suite, "CredentialRequest", "request_context")?;
    let req = hazmat::request_with::<S>(&ctx, &mut src).map_err(|e| format!("request: {e}"))?;
    let drawn = src.take();
    let mut m = Vec::new();
    for (d, f) in drawn.iter().zip(["m1", "r1", "r2"]) {
        check(
            &mut m,
            &format!("CredentialRequest.{f}"),
            d,
            &field(suite, "CredentialRequest", f)?,
        );
    }
    check_request(&mut m, suite, &req.message)?;
    counts.record("CredentialRequest", m);

    // Response: b.
    let resp =
        hazmat::issue_with(&key, &req.message, &mut src).map_err(|e| format!("issue: {e}"))?;
    let drawn = src.take();
    let mut m = Vec::new();
    check(
        &mut m,
        "CredentialResponse.b",
        &drawn[0],
        &field(suite, "CredentialResponse", "b")?,
    );
    check_response(&mut m, suite, &resp)?;
    counts.record("CredentialResponse", m);

    let mut cred = req
        .state
        .finalize(key.public_key(), &resp)
        .map_err(|e| format!("finalize: {e}"))?;
    let mut m = Vec::new();
    check_credential(&mut m, suite, &cred)?;
    counts.record("Credential", m);

    let names = presentation_names(suite);
    let mut seen_tags = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let p = &suite[name];
        let pctx = field(suite, name, "presentation_context")?;
        // The credential keeps the context's counter: asking again continues it.
        let mut st = cred
            .presentation_state(&pctx, limit)
            .map_err(|e| e.to_string())?;
        let mut m = Vec::new();
        let want_nonce = nonce_of(p)?;
        if want_nonce != i as u32 {
            m.push(format!(
                "{name}: nonce {want_nonce} is not the {i}-th sequential nonce"
            ));
        }
        let pres = hazmat::present_with(&mut st, &mut src).map_err(|e| format!("{name}: {e}"))?;
        let drawn = src.take();
        for (d, f) in drawn.iter().zip(["a", "r", "z", "nonce_blinding"]) {
            check(&mut m, &format!("{name}.{f}"), d, &field(suite, name, f)?);
        }
        if drawn.len() != 4 + (k - 1) {
            m.push(format!("{name}: drew {} scalars", drawn.len()));
        }
        let b = pres.to_bytes();
        let n = ne::<S>();
        for (j, f) in ["U", "U_prime_commit", "m1_commit", "tag", "nonce_commit"]
            .iter()
            .enumerate()
        {
            check(
                &mut m,
                &format!("{name}.{f}"),
                &b[j * n..(j + 1) * n],
                &field(suite, name, f)?,
            );
        }
        for j in 0..k {
            let off = (5 + j) * n;
            check(
                &mut m,
                &format!("{name}.D_{j}"),
                &b[off..off + n],
                &field(suite, name, &format!("D_{j}"))?,
            );
        }
        check(
            &mut m,
            &format!("{name}.proof"),
            &b[5 * n..],
            &field(suite, name, "proof")?,
        );
        if b.len() != Presentation::<S>::encoded_len_for(k) {
            m.push(format!("{name}: length {}", b.len()));
        }
        let back = Presentation::<S>::from_bytes(&b).map_err(|e| format!("{name} decode: {e}"))?;
        match key.verify_presentation(&ctx, &pctx, &back, limit) {
            Ok(tag) => {
                check(
                    &mut m,
                    &format!("{name}.tag (verify)"),
                    tag.as_bytes(),
                    &field(suite, name, "tag")?,
                );
                if seen_tags.contains(&tag) {
                    m.push(format!("{name}: tag repeats"));
                }
                seen_tags.push(tag);
            }
            Err(e) => m.push(format!("{name}: verify: {e}")),
        }
        counts.record(name, m);
    }
    Ok(counts)
}

fn run_v1<S: ClearNonceSuite>(suite: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    let s = ns::<S>();
    let limit = limit_of(suite)?;
    let f = |sec: &str, n: &str| field(suite, sec, n);
    let key = hazmat::server_key_from_scalars::<S>(
        &f("ServerKey", "x0")?,
        &f("ServerKey", "x1")?,
        &f("ServerKey", "x2")?,
        &f("ServerKey", "xb")?,
    )
    .map_err(|e| format!("key: {e}"))?;
    let mut m = Vec::new();
    check_key(&mut m, suite, &key)?;
    counts.record("ServerKey", m);

    let ctx = f("CredentialRequest", "request_context")?;
    let mut src = ListSource::<S::Curve>::new(
        &[
            f("CredentialRequest", "m1")?,
            f("CredentialRequest", "r1")?,
            f("CredentialRequest", "r2")?,
        ],
        &blindings(suite, "CredentialRequest", s, 4)?,
    )?;
    let req = hazmat::request_with::<S>(&ctx, &mut src).map_err(|e| format!("request: {e}"))?;
    let mut m = Vec::new();
    check_request(&mut m, suite, &req.message)?;
    counts.record("CredentialRequest", m);

    let mut src = ListSource::<S::Curve>::new(
        &[f("CredentialResponse", "b")?],
        &blindings(suite, "CredentialResponse", s, 7)?,
    )?;
    let resp =
        hazmat::issue_with(&key, &req.message, &mut src).map_err(|e| format!("issue: {e}"))?;
    let mut m = Vec::new();
    check_response(&mut m, suite, &resp)?;
    counts.record("CredentialResponse", m);

    let cred = req
        .state
        .finalize(key.public_key(), &resp)
        .map_err(|e| format!("finalize: {e}"))?;
    let mut m = Vec::new();
    check_credential(&mut m, suite, &cred)?;
    counts.record("Credential", m);

    let mut seen = Vec::new();
    for name in presentation_names(suite) {
        let p = &suite[&name];
        let pctx = f(&name, "presentation_context")?;
        let nonce = nonce_of(p)?;
        let mut src = ListSource::<S::Curve>::new(
            &[f(&name, "a")?, f(&name, "r")?, f(&name, "z")?],
            &blindings(suite, &name, s, 4)?,
        )?;
        let pres = hazmat::legacy_present_nonce_with(&cred, &pctx, nonce, &mut src)
            .map_err(|e| format!("{name}: {e}"))?;
        let mut m = Vec::new();
        let b = pres.to_bytes();
        let n = ne::<S>();
        for (j, fl) in ["U", "U_prime_commit", "m1_commit", "tag"]
            .iter()
            .enumerate()
        {
            check(
                &mut m,
                &format!("{name}.{fl}"),
                &b[j * n..(j + 1) * n],
                &f(&name, fl)?,
            );
        }
        check(
            &mut m,
            &format!("{name}.proof"),
            &b[4 * n..],
            &f(&name, "proof")?,
        );
        if b.len() != LegacyPresentation::<S>::LEN {
            m.push(format!("{name}: length {}", b.len()));
        }
        let back =
            LegacyPresentation::<S>::from_bytes(&b).map_err(|e| format!("{name} decode: {e}"))?;
        match key.verify_legacy_presentation(&ctx, &pctx, &back, nonce, limit) {
            Ok(tag) => {
                check(
                    &mut m,
                    &format!("{name}.tag (verify)"),
                    tag.as_bytes(),
                    &f(&name, "tag")?,
                );
                if seen.contains(&tag) {
                    m.push(format!("{name}: tag repeats"));
                }
                seen.push(tag);
            }
            Err(e) => m.push(format!("{name}: verify: {e}")),
        }
        counts.record(&name, m);
    }
    Ok(counts)
}

/// Generates a v2 vector document in the published layout with this crate (TestDRNG with
/// `seed`, `limit`, `presentations` presentations in one context).
pub fn generate_v2(seed: &[u8], limit: u32, presentations: usize) -> Result<Value, String> {
    type S = ArcV2P256;
    let (_, k) = compute_bases(limit).map_err(|e| e.to_string())?;
    let mut drng = TestDrng::new(seed);
    let mut src = Recording::<S, _>::new(&mut drng);
    let h = |b: &[u8]| Value::String(hex::encode(b));
    let key = hazmat::server_key_with::<S>(&mut src);
    let kd = src.take();
    let pk = key.public_key().to_bytes();
    let n = ne::<S>();
    let mut suite = Map::new();
    suite.insert("presentation_limit".into(), json!(limit));
    suite.insert("drng_seed".into(), h(seed));
    suite.insert(
        "ServerKey".into(),
        json!({"x0": h(&kd[0]), "x1": h(&kd[1]), "x2": h(&kd[2]), "xb": h(&kd[3]),
               "X0": h(&pk[..n]), "X1": h(&pk[n..2*n]), "X2": h(&pk[2*n..])}),
    );
    let ctx = b"test request context";
    let req = hazmat::request_with::<S>(ctx, &mut src).map_err(|e| e.to_string())?;
    let rd = src.take();
    let rb = req.message.to_bytes();
    let m2 = hazmat::request_context_scalar::<S>(ctx).map_err(|e| e.to_string())?;
    suite.insert(
        "CredentialRequest".into(),
        json!({"request_context": h(ctx), "m1": h(&rd[0]), "m2": h(&m2), "r1": h(&rd[1]), "r2": h(&rd[2]),
               "m1_enc": h(&rb[..n]), "m2_enc": h(&rb[n..2*n]), "proof": h(&rb[2*n..])}),
    );
    let resp = hazmat::issue_with(&key, &req.message, &mut src).map_err(|e| e.to_string())?;
    let bd = src.take();
    let sb = resp.to_bytes();
    suite.insert(
        "CredentialResponse".into(),
        json!({"b": h(&bd[0]), "U": h(&sb[..n]), "enc_U_prime": h(&sb[n..2*n]), "X0_aux": h(&sb[2*n..3*n]),
               "X1_aux": h(&sb[3*n..4*n]), "X2_aux": h(&sb[4*n..5*n]), "H_aux": h(&sb[5*n..6*n]), "proof": h(&sb[6*n..])}),
    );
    let mut cred = req
        .state
        .finalize(key.public_key(), &resp)
        .map_err(|e| e.to_string())?;
    let [u, up, x1] = cred.elements();
    suite.insert(
        "Credential".into(),
        json!({"m1": h(&hazmat::credential_m1(&cred)), "U": h(&u), "U_prime": h(&up), "X1": h(&x1)}),
    );
    let pctx = b"test presentation context";
    let mut st = cred
        .presentation_state(pctx, limit)
        .map_err(|e| e.to_string())?;
    for i in 0..presentations {
        let p = hazmat::present_with(&mut st, &mut src).map_err(|e| e.to_string())?;
        let d = src.take();
        let b = p.to_bytes();
        let mut o = Map::new();
        o.insert("presentation_context".into(), h(pctx));
        for (j, f) in ["a", "r", "z", "nonce_blinding"].iter().enumerate() {
            o.insert((*f).into(), h(&d[j]));
        }
        for (j, f) in ["U", "U_prime_commit", "m1_commit", "tag", "nonce_commit"]
            .iter()
            .enumerate()
        {
            o.insert((*f).into(), h(&b[j * n..(j + 1) * n]));
        }
        for j in 0..k {
            o.insert(format!("D_{j}"), h(&b[(5 + j) * n..(6 + j) * n]));
        }
        o.insert("nonce".into(), Value::String(format!("{i:#x}")));
        o.insert("proof".into(), h(&b[5 * n..]));
        suite.insert(format!("Presentation{}", i + 1), Value::Object(o));
    }
    let mut doc = Map::new();
    doc.insert("ARCV1-P256".into(), Value::Object(suite));
    Ok(Value::Object(doc))
}
