//! The registry of targets and their seeds: valid messages made from the fixtures, plus every
//! hex string of `test-vectors/*.json` whose length matches one of them (under the same
//! selector).

use std::collections::BTreeSet;
use std::path::Path;

use privacy_tokens::group::Curve;
use privacy_tokens::hazmat;
use privacy_tokens::{P256Sha256, P384Sha384};
use sha2::Digest;

use crate::fixtures::{blind, HasVoprfFix, INPUT};

/// A target's seeds: `(prefix, body)` pairs, the input being `prefix || body`.
type Seeds = Vec<(Vec<u8>, Vec<u8>)>;

/// Every target: name, entry point and seed maker.
pub const TARGETS: &[(&str, fn(&[u8]), fn() -> Seeds)] = &[
    ("voprf_decode", crate::voprf::decode_target, voprf_decode),
    (
        "voprf_finalize",
        crate::voprf::finalize_target,
        voprf_finalize,
    ),
    ("pp_decode", crate::privacy_pass::decode_target, pp_decode),
    ("pp_issuer", crate::privacy_pass::issuer_target, pp_issuer),
    ("pp_client", crate::privacy_pass::client_target, pp_client),
    (
        "pp_generic_decode",
        crate::privacy_pass::generic_decode_target,
        pp_generic_decode,
    ),
    ("tt_decode", crate::trust_token::decode_target, tt_decode),
    ("tt_issue", crate::trust_token::issue_target, tt_issue),
    ("tt_redeem", crate::trust_token::redeem_target, tt_redeem),
    ("tt_finish", crate::trust_token::finish_target, tt_finish),
    ("act_decode", crate::act::decode_target, act_decode),
    ("act_verify", crate::act::verify_target, act_verify),
    (
        "rollatini_decode",
        crate::rollatini::decode_target,
        rollatini_decode,
    ),
    (
        "rollatini_verify",
        crate::rollatini::verify_target,
        rollatini_verify,
    ),
    ("arc_decode", crate::arc::decode_target, arc_decode),
    ("arc_verify", crate::arc::verify_target, arc_verify),
    ("arc_issue", crate::arc::issue_target, arc_issue),
    ("serde_json", crate::serde_json_rt::target, serde_json),
    ("rsa_decode", crate::blind_rsa::decode_target, rsa_decode),
    ("rsa_issuer", crate::blind_rsa::issuer_target, rsa_issuer),
    (
        "diff_p256_field",
        crate::arith::field_target::<p256::NistP256, crate::arith::P256RefFe>,
        diff_field::<crate::arith::P256RefFe>,
    ),
    (
        "diff_p384_field",
        crate::arith::field_target::<p384::NistP384, crate::arith::P384RefFe>,
        diff_field::<crate::arith::P384RefFe>,
    ),
    (
        "diff_point_p256",
        crate::arith::point_target::<p256::NistP256>,
        diff_point::<32>,
    ),
    (
        "diff_point_p384",
        crate::arith::point_target::<p384::NistP384>,
        diff_point::<48>,
    ),
    (
        "diff_hash_to_curve",
        crate::arith::hash_to_curve_target,
        diff_hash_to_curve,
    ),
];

/// Every ACT message, state and key of the fixture, under its selector (`L = 4`).
fn act_decode() -> Seeds {
    let f = crate::act::fix();
    let l = (crate::act::L - 1) * 8;
    let mut out = vec![
        (vec![l], f.request.clone()),
        (vec![l + 1], f.response.clone()),
        (vec![l + 2], f.refund.clone()),
        (vec![l + 4], f.credential.clone()),
        (vec![l + 5], f.issuance_state.clone()),
        (vec![l + 6], f.spend_state.clone()),
        (vec![l + 7], f.key.public_key().to_bytes().to_vec()),
        (vec![l + 7], f.key.to_bytes().to_vec()),
    ];
    out.extend(f.spends.iter().map(|s| (vec![l + 3], s.clone())));
    out
}

/// The fixture's spends, request, response and refund under their selectors.
fn act_verify() -> Seeds {
    let f = crate::act::fix();
    let mut out: Seeds = f.spends.iter().map(|s| (vec![0], s.clone())).collect();
    out.push((vec![1], f.request.clone()));
    out.push((vec![2], f.response.clone()));
    out.push((vec![3], f.refund.clone()));
    out
}

/// Every Rollatini message of the fixture under its selector.
fn rollatini_decode() -> Seeds {
    let f = crate::rollatini::fix();
    vec![
        (vec![0], f.commit.clone()),
        (vec![1], f.challenge.clone()),
        (vec![2], f.response.clone()),
        (vec![3], f.endorsement.clone()),
        (vec![4], f.redemption.clone()),
        (vec![6], f.set.to_bytes()),
    ]
}

/// The fixture's redemption, Endorsement, challenge and response under their selectors.
fn rollatini_verify() -> Seeds {
    let f = crate::rollatini::fix();
    let challenge = f.challenge.clone();
    vec![
        (vec![0], f.redemption.clone()),
        (vec![1], f.endorsement.clone()),
        (vec![2], challenge),
        (vec![3], f.response.clone()),
    ]
}

/// Writes the seeds of `target` into `dir` (each file named by its SHA-256), after running the
/// target on each; returns how many were written.
pub fn write(target: &str, dir: &Path) -> usize {
    let (_, run, make) = TARGETS
        .iter()
        .find(|(n, _, _)| *n == target)
        .unwrap_or_else(|| panic!("unknown target {target}"));
    std::fs::create_dir_all(dir).expect("seed dir");
    let mut inputs = BTreeSet::new();
    let seeds = make();
    let blobs = vector_blobs();
    for (prefix, body) in &seeds {
        inputs.insert([prefix.as_slice(), body].concat());
        for b in blobs.iter().filter(|b| b.len() == body.len()) {
            inputs.insert([prefix.as_slice(), b].concat());
        }
    }
    for input in &inputs {
        run(input);
        let name = hex::encode(&sha2::Sha256::digest(input)[..20]);
        std::fs::write(dir.join(name), input).expect("write seed");
    }
    inputs.len()
}

/// Every hex string (even length, at least one byte) in the JSON files of `test-vectors/`.
pub fn vector_blobs() -> BTreeSet<Vec<u8>> {
    fn walk(v: &serde_json::Value, out: &mut BTreeSet<Vec<u8>>) {
        match v {
            serde_json::Value::String(s) => {
                if let Ok(b) = hex::decode(s) {
                    if !b.is_empty() {
                        out.insert(b);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("test-vectors").flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-vectors"),
        &mut paths,
    );
    let mut out = BTreeSet::new();
    for p in paths {
        let text = std::fs::read(&p).expect("read vector file");
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&text) {
            walk(&v, &mut out);
        }
    }
    out
}

fn with_sel(sel: u8, body: Vec<u8>) -> (Vec<u8>, Vec<u8>) {
    (vec![sel], body)
}

fn voprf_messages<S: HasVoprfFix<Group: Curve>>(bit: u8) -> Seeds {
    let f = S::fix();
    let pk = f.voprf.public_key().to_bytes().as_ref().to_vec();
    let sk = f.voprf.secret_key().to_bytes().as_ref().to_vec();
    let blinded = hazmat::voprf_blind_with::<S>(INPUT, &blind::<S>())
        .expect("blind")
        .message;
    let e = f
        .voprf
        .blind_evaluate(&mut crate::rng(9), &blinded)
        .expect("evaluate");
    let point = S::Group::decode_compressed(&pk).expect("pk");
    let bodies = [
        pk.clone(),
        sk.clone(),
        blinded.to_bytes().as_ref().to_vec(),
        e.message.to_bytes().as_ref().to_vec(),
        e.proof.to_bytes().as_ref().to_vec(),
        e.proof.to_bytes().as_ref().to_vec(),
        sk.clone(),
        S::Group::encode_uncompressed(&point).as_ref().to_vec(),
        sk,
    ];
    (0u8..)
        .zip(bodies)
        .map(|(k, b)| with_sel(bit | (k << 1), b))
        .collect()
}

fn voprf_decode() -> Seeds {
    let mut v = voprf_messages::<P256Sha256>(0);
    v.extend(voprf_messages::<P384Sha384>(1));
    v
}

fn voprf_finalize() -> Seeds {
    let mut v = crate::voprf::finalize_seeds::<P256Sha256>(0);
    v.extend(crate::voprf::finalize_seeds::<P384Sha384>(1));
    v.into_iter()
        .map(|s| (s[..1].to_vec(), s[1..].to_vec()))
        .collect()
}

fn pp_decode() -> Seeds {
    let m = crate::privacy_pass::messages();
    m.into_iter().map(|(k, b)| with_sel(k, b)).collect()
}

/// Re-labels fixture messages: `(kind, new prefix)` pairs.
fn relabel(m: &[(u8, Vec<u8>)], map: &[(u8, &[u8])]) -> Seeds {
    let mut out = Vec::new();
    for (kind, body) in m {
        for (k, prefix) in map {
            if k == kind {
                out.push((prefix.to_vec(), body.clone()));
            }
        }
    }
    out
}

/// The generic batch requests, responses and tokens among the vector files' blobs (pat-go's
/// generic batch file holds 0x0001 and 0x0002 batches), each under its selector.
fn pp_generic_decode() -> Seeds {
    use privacy_tokens::privacy_pass::generic_batch::{
        GenericBatchTokenRequest, GenericBatchTokenResponse, GenericToken,
    };
    let mut out = Vec::new();
    for b in vector_blobs() {
        if GenericBatchTokenRequest::from_bytes(&b).is_ok() {
            out.push(with_sel(0, b.clone()));
        }
        if GenericBatchTokenResponse::from_bytes(&b).is_ok() {
            out.push(with_sel(1, b.clone()));
        }
        if GenericToken::from_bytes(&b).is_ok() {
            out.push(with_sel(2, b));
        }
    }
    out
}

fn pp_issuer() -> Seeds {
    let m = crate::privacy_pass::messages();
    relabel(&m, &[(1, &[0]), (4, &[1]), (3, &[2]), (0, &[3])])
}

fn pp_client() -> Seeds {
    relabel(&crate::privacy_pass::messages(), &[(2, &[0]), (5, &[1])])
}

fn tt_all(map: &dyn Fn(u8) -> Vec<(u8, Vec<u8>)>) -> Seeds {
    let mut out = Vec::new();
    for i in 0..2u8 {
        let m = crate::trust_token::messages(i);
        let pairs = map(i);
        let refs: Vec<(u8, &[u8])> = pairs.iter().map(|(k, p)| (*k, p.as_slice())).collect();
        out.extend(relabel(&m, &refs));
    }
    out
}

fn tt_decode() -> Seeds {
    tt_all(&|i| (0..9).map(|k| (k, vec![k + 10 * i])).collect())
}

fn tt_issue() -> Seeds {
    tt_all(&|i| vec![(10, vec![i, 4]), (10, vec![i | 2, 3])])
}

fn tt_redeem() -> Seeds {
    tt_all(&|i| vec![(11, vec![i]), (11, vec![i | 2])])
}

fn tt_finish() -> Seeds {
    tt_all(&|i| vec![(6, vec![i]), (6, vec![i | 2])])
}

fn arc_decode() -> Seeds {
    crate::arc::messages()
        .into_iter()
        .filter(|(k, _)| *k < 200)
        .map(|(k, b)| with_sel(k, b))
        .collect()
}

fn arc_verify() -> Seeds {
    let m = crate::arc::messages();
    relabel(&m, &[(203, &[0]), (201, &[1]), (202, &[2]), (131, &[3])])
}

fn arc_issue() -> Seeds {
    let m = crate::arc::messages();
    relabel(
        &m,
        &[
            (2, &[0]),
            (10, &[1]),
            (18, &[2]),
            (3, &[3]),
            (11, &[4]),
            (19, &[5]),
            (129, &[6]),
            (130, &[9]),
        ],
    )
}

fn serde_json() -> Seeds {
    let cases = crate::serde_json_rt::cases();
    let mut bodies: BTreeSet<Vec<u8>> = BTreeSet::new();
    for (name, _, make) in TARGETS {
        if name.ends_with("_decode") {
            bodies.extend(make().into_iter().map(|(_, b)| b));
        }
    }
    let mut jsons: Vec<Vec<u8>> = bodies
        .iter()
        .map(|b| format!("\"{}\"", hex::encode(b)).into_bytes())
        .collect();
    for m in privacy_tokens::trust_token::Method::ALL {
        jsons.push(format!("\"{}\"", m.name()).into_bytes());
    }
    let mut out = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        for j in &jsons {
            if case(j) {
                out.push((vec![i as u8], j.clone()));
            }
        }
    }
    out
}

/// Deterministic filler bytes.
fn filler(seed: u64, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n);
    let mut ctr = 0u64;
    while out.len() < n {
        let h = sha2::Sha256::digest([seed.to_be_bytes(), ctr.to_be_bytes()].concat());
        out.extend_from_slice(&h);
        ctr += 1;
    }
    out.truncate(n);
    out
}

/// Pairs of field encodings: 0, 1, `p - 1`, `p`, all-ones and two fillers.
fn diff_field<R: elliptic_curve::ff::PrimeField>() -> Seeds {
    let p_minus_1 = (-R::ONE).to_repr().as_ref().to_vec();
    let len = p_minus_1.len();
    let mut p = p_minus_1.clone();
    // p - 1 is even: its last byte is below 0xff.
    p[len - 1] += 1;
    let vals = [
        R::ZERO.to_repr().as_ref().to_vec(),
        R::ONE.to_repr().as_ref().to_vec(),
        p_minus_1,
        p,
        vec![0xff; len],
        filler(1, len),
        filler(2, len),
    ];
    let mut out = Vec::new();
    for a in &vals {
        for b in &vals {
            out.push((Vec::new(), [a.as_slice(), b].concat()));
        }
    }
    out
}

fn diff_point<const NS: usize>() -> Seeds {
    [
        0u8, 1, 2, 3, 4, 5, 0x08, 0x10, 0x18, 0x28, 0x40, 0x41, 0x80, 0x83,
    ]
    .iter()
    .map(|&m| (vec![m], filler(u64::from(m), 5 * NS)))
    .collect()
}

fn diff_hash_to_curve() -> Seeds {
    let dsts: [&[u8]; 3] = [
        b"QUUX-V01-CS02-with-P256_XMD:SHA-256_SSWU_RO_",
        b"QUUX-V01-CS02-with-P384_XMD:SHA-384_SSWU_RO_",
        b"HashToGroup-OPRFV1-\x01-P384-SHA384",
    ];
    let msgs: [&[u8]; 3] = [b"", b"abc", &[0x61; 200]];
    let mut out = Vec::new();
    for sel in 0..4u8 {
        for d in dsts {
            for m in msgs {
                out.push((vec![sel, d.len() as u8], [d, m].concat()));
            }
        }
    }
    out
}

/// `rsa_decode`: one valid encoding per decoder (the fixture's messages and the test key's
/// encodings); the vector files' messages and keys of the same lengths join them.
fn rsa_decode() -> Seeds {
    use privacy_tokens::blind_rsa::test_key;
    let f = crate::blind_rsa::fix();
    let sk = test_key().expect("test key");
    let pk = sk.public_key();
    vec![
        with_sel(0, f.request.clone()),
        with_sel(1, f.extended_request.clone()),
        with_sel(2, f.response.clone()),
        with_sel(3, f.token.clone()),
        with_sel(4, f.extensions.as_bytes().to_vec()),
        with_sel(5, pk.to_spki()),
        with_sel(6, pk.to_pkcs1_der()),
        with_sel(7, f.token_key.to_spki().to_vec()),
        with_sel(8, sk.to_pkcs8_der().to_vec()),
        with_sel(9, sk.to_pem().as_bytes().to_vec()),
    ]
}

/// `rsa_issuer`: the fixture's request and extended request (and the vectors' of the same
/// lengths).
fn rsa_issuer() -> Seeds {
    let f = crate::blind_rsa::fix();
    vec![
        with_sel(0, f.request.clone()),
        with_sel(1, f.extended_request.clone()),
    ]
}
