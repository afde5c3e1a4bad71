//! ACT over HTTP with the library's client: configuration, issuance, spends with refunds
//! finalised by the client, double spends and lost refunds answered with the first refund, two
//! instances on one Redis racing one spend, the policy, media types and malformed bodies, key
//! rotation, a store outage, and the configuration checked at start.

mod common;

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::*;
use privacy_tokens::act::{
    ClientIssuanceState, ClientSpendState, Credential, CredentialContext, IssueResponse, PublicKey,
    Refund,
};
use privacy_tokens_server::config::Config;
use privacy_tokens_server::store::{RedbStore, SpentStore};
use privacy_tokens_server::RunningServer;
use serde_json::Value;

const ISSUE: &str = "application/act-issue-request";
const SPEND: &str = "application/act-spend";
const REFUND: &str = "application/act-refund";

/// An ACT configuration: `act` lines in `[act]` (enabled), `rest` after it.
fn act_config(act: &str, rest: &str) -> Config {
    Config::from_toml(&format!(
        "issuer_name = \"issuer.test\"\ntoken_types = [1]\npst_methods = []\n\
         [issuance]\nauth = \"open\"\n[act]\nenabled = true\n{act}\n{rest}"
    ))
    .unwrap() // ok: test
}

async fn redb(dir: &std::path::Path) -> Arc<dyn SpentStore> {
    Arc::new(RedbStore::open(&dir.join("spent.redb")).unwrap()) // ok: test
}

/// One key of the configuration, as a client reads it.
#[derive(Clone)]
struct Key {
    id: Vec<u8>,
    pk: PublicKey,
    ctx: CredentialContext,
    not_after: u64,
}

/// The configuration as a client reads it: the spend context and the keys, current first.
struct Conf {
    json: Value,
    spend_context: Vec<u8>,
    keys: Vec<Key>,
}

fn unb64(v: &Value) -> Vec<u8> {
    use base64::Engine as _;
    URL_SAFE_NO_PAD.decode(v.as_str().unwrap()).unwrap() // ok: test
}

async fn conf(c: &reqwest::Client, s: &RunningServer) -> Conf {
    conf_at(c, &format!("http://{}", s.addr)).await
}

/// The configuration of the server at `base` (`http://host:port`).
async fn conf_at(c: &reqwest::Client, base: &str) -> Conf {
    let r = c
        .get(format!("{base}/.well-known/act-configuration"))
        .send()
        .await
        .unwrap(); // ok: test
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    let json: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap(); // ok: test
    let width = json["width"].as_u64().unwrap() as u8; // ok: test
    let keys = json["keys"]
        .as_array()
        .unwrap() // ok: test
        .iter()
        .map(|k| {
            let ctx_cred = unb64(&k["credential_context"]);
            Key {
                id: unb64(&k["key_id"]),
                pk: PublicKey::from_bytes(&unb64(&k["public_key"])).unwrap(), // ok: test
                ctx: CredentialContext::with_width(&ctx_cred, width).unwrap(), // ok: test
                not_after: k["not_after"].as_u64().unwrap(),                  // ok: test
            }
        })
        .collect();
    Conf {
        spend_context: unb64(&json["spend_context"]),
        json,
        keys,
    }
}

async fn post_act(
    c: &reqwest::Client,
    s: &RunningServer,
    path: &str,
    media: &str,
    body: Vec<u8>,
) -> reqwest::Response {
    post_url(c, url(s, path), media, body).await
}

async fn post_url(
    c: &reqwest::Client,
    url: String,
    media: &str,
    body: Vec<u8>,
) -> reqwest::Response {
    c.post(url)
        .header("content-type", media)
        .body(body)
        .send()
        .await
        .unwrap() // ok: test
}

fn with_key(key: &Key, message: &[u8]) -> Vec<u8> {
    [&key.id[..], message].concat()
}

/// Issues one credential under `key`.
async fn issue(c: &reqwest::Client, s: &RunningServer, key: &Key) -> Credential {
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap(); // ok: test
    let r = post_act(
        c,
        s,
        "/act/issue",
        ISSUE,
        with_key(key, &req.message.to_bytes()),
    )
    .await;
    let body = expect_ok(r, "application/act-issue-response").await;
    let resp = IssueResponse::from_bytes(&body).unwrap(); // ok: test
    req.state.finalize(&key.ctx, &key.pk, &resp).unwrap() // ok: test
}

/// A spend of `s` with top-up `a`: the request body and the client's state.
fn prove(conf: &Conf, key: &Key, cred: Credential, s: u64, a: u64) -> (Vec<u8>, ClientSpendState) {
    let r = cred
        .prove_spend(&key.ctx, s, a, &conf.spend_context, &mut rand::rng())
        .unwrap(); // ok: test
    (with_key(key, &r.message.to_bytes()), r.state)
}

/// The status, `ACT-Spend` header, content type and body of a spend.
async fn send_spend(
    c: &reqwest::Client,
    s: &RunningServer,
    body: Vec<u8>,
) -> (u16, String, String, Vec<u8>) {
    let r = post_act(c, s, "/act/spend", SPEND, body).await;
    let h = |n: &str| {
        r.headers()
            .get(n)
            .map(|v| v.to_str().unwrap().to_string()) // ok: test
            .unwrap_or_default()
    };
    let (status, outcome, media) = (r.status().as_u16(), h("act-spend"), h("content-type"));
    (status, outcome, media, r.bytes().await.unwrap().to_vec()) // ok: test
}

/// Finalises a refund.
fn finalize(key: &Key, state: ClientSpendState, refund: &[u8]) -> Credential {
    let refund = Refund::from_bytes(refund).unwrap(); // ok: test
    state.finalize(&key.ctx, &key.pk, &refund).unwrap() // ok: test
}

/// A copy of a credential (to spend it twice).
fn copy(cred: &Credential) -> Credential {
    Credential::from_bytes(&cred.to_bytes()[..]).unwrap() // ok: test
}

/// Spends `cred` for `s`, expects a fresh refund, finalises it: the new credential.
async fn spend_ok(
    c: &reqwest::Client,
    s: &RunningServer,
    conf: &Conf,
    key: &Key,
    cred: Credential,
    amount: u64,
) -> Credential {
    let (body, state) = prove(conf, key, cred, amount, 0);
    let (status, outcome, media, refund) = send_spend(c, s, body).await;
    assert_eq!(
        (status, outcome.as_str(), media.as_str()),
        (200, "fresh", REFUND)
    );
    finalize(key, state, &refund)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_spend_refund_and_spend_the_refund() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let s = start(act_config("", ""), [7; 32], redb(dir.path()).await).await;
    let c = http();
    let conf = conf(&c, &s).await;
    assert_eq!(conf.json["ciphersuite"], "ACTv1-P256-SHA256");
    assert_eq!(
        (
            &conf.json["width"],
            &conf.json["cost"],
            &conf.json["max_top_up"]
        ),
        (&Value::from(16), &Value::from(1), &Value::from(0))
    );
    assert_eq!(conf.spend_context.len(), 32);
    let key = conf.keys[0].clone();
    assert_eq!(key.id.len(), 32);
    let cred = issue(&c, &s, &key).await;
    assert_eq!(cred.balance(), 100);
    // s = 10, cost 1: t = 9, balance 100 - 10 + 9 = 99.
    let cred = spend_ok(&c, &s, &conf, &key, cred, 10).await;
    assert_eq!(cred.balance(), 99);
    let cred = spend_ok(&c, &s, &conf, &key, cred, 99).await;
    assert_eq!(cred.balance(), 98);
    // Answers carrying credentials are not cached; the configuration is, until the rotation.
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap(); // ok: test
    let r = post_act(
        &c,
        &s,
        "/act/issue",
        ISSUE,
        with_key(&key, &req.message.to_bytes()),
    )
    .await;
    assert_eq!(r.headers()["cache-control"], "no-store");
    let r = c
        .get(url(&s, "/.well-known/act-configuration"))
        .send()
        .await
        .unwrap(); // ok: test
    let cache = r.headers()["cache-control"].to_str().unwrap().to_string(); // ok: test
    assert!(cache.starts_with("public, max-age="), "{cache}");
    // A refresh-shaped spend (s = 0) is below the cost.
    let (body, _) = prove(&conf, &key, cred, 0, 0);
    assert_eq!(send_spend(&c, &s, body).await.0, 403);
    let m = metrics_text(&c, &s).await;
    for line in [
        "pt_issued_tokens_total{token_type=\"act\"} 2",
        "pt_redemptions_total{token_type=\"act\",result=\"ok\"} 2",
        "pt_redemptions_total{token_type=\"act\",result=\"policy\"} 1",
    ] {
        assert!(m.contains(line), "{line} not in {m}");
    }
    s.stop().await.unwrap(); // ok: test
}

/// The same spend twice (a lost refund) and a second spend of the same credential: 409 with
/// the first refund's bytes, and the balance is credited once.
async fn replays_get_the_first_refund(s: &RunningServer) {
    let c = http();
    let conf = conf(&c, s).await;
    let key = conf.keys[0].clone();
    let cred = issue(&c, s, &key).await;
    let twin = copy(&cred);
    let (body, state) = prove(&conf, &key, cred, 30, 0);
    let first = send_spend(&c, s, body.clone()).await;
    assert_eq!((first.0, first.1.as_str()), (200, "fresh"));
    let retry = send_spend(&c, s, body).await;
    assert_eq!(
        (retry.0, retry.1.as_str(), retry.2.as_str()),
        (409, "replayed", REFUND)
    );
    assert_eq!(retry.3, first.3, "the retry gets the first refund");
    // The second spend of the same credential: the same stored refund, which does not finalise
    // against that spend's state.
    let (body2, state2) = prove(&conf, &key, twin, 50, 0);
    let second = send_spend(&c, s, body2).await;
    assert_eq!((second.0, second.1.as_str()), (409, "replayed"));
    assert_eq!(second.3, first.3);
    let stored = Refund::from_bytes(&second.3).unwrap(); // ok: test
    assert!(state2.finalize(&key.ctx, &key.pk, &stored).is_err());
    // The retried refund finalises once: 100 - 30 + 29 = 99, and that credential spends.
    let cred = finalize(&key, state, &retry.3);
    assert_eq!(cred.balance(), 99);
    let cred = spend_ok(&c, s, &conf, &key, cred, 99).await;
    assert_eq!(cred.balance(), 98, "credited once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_spend_and_lost_refund_redb() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let s = start(act_config("", ""), [7; 32], redb(dir.path()).await).await;
    replays_get_the_first_refund(&s).await;
    let m = metrics_text(&http(), &s).await;
    assert!(m.contains("pt_redemptions_total{token_type=\"act\",result=\"replayed\"} 2"));
    s.stop().await.unwrap(); // ok: test
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_spend_and_lost_refund_redis() {
    let redis = Redis::start();
    let s = start(act_config("", ""), [7; 32], redis.store().await).await;
    replays_get_the_first_refund(&s).await;
    s.stop().await.unwrap(); // ok: test
}

/// Two instances of one master secret on one Redis, the same spend sent to both at once (two
/// requests each), many rounds: exactly one 200 per nullifier, and every 409 carries its
/// refund.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_one_redis_race_one_spend() {
    let redis = Redis::start();
    let a = start(act_config("", ""), [9; 32], redis.store().await).await;
    let b = start(act_config("", ""), [9; 32], redis.store().await).await;
    let c = http();
    let conf = conf(&c, &a).await;
    let key = conf.keys[0].clone();
    assert_eq!(conf.json, self::conf(&c, &b).await.json);
    let rounds = 48;
    let mut fresh_total = 0;
    for round in 0..rounds {
        let cred = issue(&c, if round % 2 == 0 { &a } else { &b }, &key).await;
        let (body, state) = prove(&conf, &key, cred, 1 + round, 0);
        let sends = [&a, &b, &a, &b].map(|s| send_spend(&c, s, body.clone()));
        let answers = futures_join(sends).await;
        let fresh: Vec<_> = answers.iter().filter(|r| r.0 == 200).collect();
        assert_eq!(fresh.len(), 1, "round {round}: {:?}", answers.map(|r| r.0));
        for r in &answers {
            assert!(r.0 == 200 || (r.0 == 409 && r.1 == "replayed"), "{:?}", r.0);
            assert_eq!(r.3, fresh[0].3, "round {round}: one refund per nullifier");
        }
        let cred = finalize(&key, state, &fresh[0].3);
        assert_eq!(cred.balance(), 100 - 1);
        fresh_total += fresh.len();
    }
    assert_eq!(fresh_total, rounds as usize);
    a.stop().await.unwrap(); // ok: test
    b.stop().await.unwrap(); // ok: test
}

/// Runs four futures at once (tokio tasks would need `'static`).
async fn futures_join<F: std::future::Future>(f: [F; 4]) -> [F::Output; 4] {
    let [w, x, y, z] = f;
    let (w, x, y, z) = tokio::join!(w, x, y, z);
    [w, x, y, z]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_refusals_record_nothing() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let cfg = act_config("cost = 5\nmax_top_up = 2\nissue_credits = 20", "");
    let s = start(cfg, [7; 32], redb(dir.path()).await).await;
    let c = http();
    let conf = conf(&c, &s).await;
    assert_eq!(
        (&conf.json["cost"], &conf.json["max_top_up"]),
        (&Value::from(5), &Value::from(2))
    );
    let key = conf.keys[0].clone();
    let cred = issue(&c, &s, &key).await;
    assert_eq!(cred.balance(), 20);
    // Below the cost, and a top-up above the limit: 403, and nothing recorded (the same
    // credential spends afterwards).
    for (amount, top_up) in [(4, 0), (5, 3), (0, 2)] {
        let (body, _) = prove(&conf, &key, copy(&cred), amount, top_up);
        let (status, outcome, _, _) = send_spend(&c, &s, body).await;
        assert_eq!(
            (status, outcome.as_str()),
            (403, ""),
            "s = {amount}, a = {top_up}"
        );
    }
    // The control: s = 6, a = 2 is taken, t = 6 - 5 + 2 = 3: 20 - 6 + 3 = 17 (a net charge of
    // cost - a = 3).
    let (body, state) = prove(&conf, &key, cred, 6, 2);
    let (status, outcome, _, refund) = send_spend(&c, &s, body).await;
    assert_eq!((status, outcome.as_str()), (200, "fresh"));
    assert_eq!(Refund::from_bytes(&refund).unwrap().amount(), 3); // ok: test
    assert_eq!(finalize(&key, state, &refund).balance(), 17);
    s.stop().await.unwrap(); // ok: test
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn media_types_and_malformed_bodies() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let s = start(act_config("", ""), [7; 32], redb(dir.path()).await).await;
    let c = http();
    let conf = conf(&c, &s).await;
    let key = conf.keys[0].clone();
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap(); // ok: test
    let good_issue = with_key(&key, &req.message.to_bytes());
    let status = |r: reqwest::Response| r.status().as_u16();
    // Issuance: 415 for other media types, 422 for a short body, another length, an unknown
    // key id, a bad point, a bad proof.
    for media in [SPEND, "text/plain", "application/private-token-request"] {
        let r = post_act(&c, &s, "/act/issue", media, good_issue.clone()).await;
        assert_eq!(status(r), 415, "{media}");
    }
    let mut unknown = good_issue.clone();
    unknown[0] ^= 1;
    let mut bad_point = good_issue.clone();
    bad_point[32] = 0x05;
    let mut bad_proof = good_issue.clone();
    let last = bad_proof.len() - 1;
    bad_proof[last] ^= 1;
    for (name, body) in [
        ("short", good_issue[..31].to_vec()),
        ("no message", good_issue[..32].to_vec()),
        ("long", [&good_issue[..], &[0]].concat()),
        ("unknown key", unknown),
        ("bad point", bad_point),
        ("bad proof", bad_proof),
    ] {
        let r = post_act(&c, &s, "/act/issue", ISSUE, body).await;
        assert_eq!(status(r), 422, "{name}");
    }
    // The control: the untouched request with its media type (parameters ignored).
    let r = post_act(
        &c,
        &s,
        "/act/issue",
        "Application/ACT-Issue-Request; x=1",
        good_issue,
    )
    .await;
    let resp =
        IssueResponse::from_bytes(&expect_ok(r, "application/act-issue-response").await).unwrap(); // ok: test
    let cred = req.state.finalize(&key.ctx, &key.pk, &resp).unwrap(); // ok: test
                                                                      // Spends: the same refusals; none records the nullifier (the control spends after).
    let (good, state) = prove(&conf, &key, cred, 3, 0);
    let r = post_act(&c, &s, "/act/spend", ISSUE, good.clone()).await;
    assert_eq!(status(r), 415);
    let mut unknown = good.clone();
    unknown[5] ^= 1;
    let mut bad_proof = good.clone();
    let last = bad_proof.len() - 1;
    bad_proof[last] ^= 1;
    let mut other_amount = good.clone();
    other_amount[32 + 32 + 7] ^= 1; // s: 3 -> 2, a shape of the same length
    let mut wrong_width = good.clone();
    wrong_width.truncate(good.len() - 129);
    for (name, body) in [
        ("short", good[..20].to_vec()),
        ("long", [&good[..], &[0]].concat()),
        ("unknown key", unknown),
        ("bad proof", bad_proof),
        ("other amount", other_amount),
        ("one commitment less", wrong_width),
    ] {
        let (st, outcome, _, _) = send_spend(&c, &s, body).await;
        assert_eq!((st, outcome.as_str()), (422, ""), "{name}");
    }
    let (st, _, _, refund) = send_spend(&c, &s, good).await;
    assert_eq!(st, 200);
    assert_eq!(finalize(&key, state, &refund).balance(), 99);
    // A body over the limit is refused before it is read.
    let huge = vec![0u8; 64 * 1024];
    assert_eq!(
        status(post_act(&c, &s, "/act/spend", SPEND, huge).await),
        413
    );
    s.stop().await.unwrap(); // ok: test
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_keeps_the_previous_key_for_spends() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let cfg = act_config("", "[keys]\nlifetime_secs = 1000\nissue_grace_secs = 10\n");
    let s = start(cfg, [7; 32], redb(dir.path()).await).await;
    let c = http();
    let before = conf(&c, &s).await;
    let old = before.keys[0].clone();
    let cred = issue(&c, &s, &old).await;
    let spare = issue(&c, &s, &old).await;
    // The next epoch: the new key first, the old one second, still taking spends.
    s.state.set_clock_offset(1000);
    let after = conf(&c, &s).await;
    assert_eq!(after.keys.len(), 2);
    assert_eq!(after.keys[1].id, old.id);
    assert_ne!(after.keys[0].id, old.id);
    assert_eq!(after.keys[1].not_after, old.not_after);
    assert!(after.keys[0].not_after > old.not_after);
    let new = after.keys[0].clone();
    // Only the current key issues.
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap(); // ok: test
    let r = post_act(
        &c,
        &s,
        "/act/issue",
        ISSUE,
        with_key(&old, &req.message.to_bytes()),
    )
    .await;
    assert_eq!(r.status(), 422);
    assert_eq!(issue(&c, &s, &new).await.balance(), 100);
    // The credential of the previous epoch spends, and its refund spends again.
    let cred = spend_ok(&c, &s, &after, &old, cred, 10).await;
    let cred = spend_ok(&c, &s, &after, &old, cred, 10).await;
    assert_eq!(cred.balance(), 98);
    // Once the old key expires, its credentials are refused (unknown key).
    s.state.set_clock_offset(2000);
    let (body, _) = prove(&after, &old, spare, 10, 0);
    assert_eq!(send_spend(&c, &s, body).await.0, 422);
    let last = conf(&c, &s).await;
    assert_eq!(last.keys.len(), 2);
    assert_eq!(last.keys[1].id, new.id);
    assert!(last.keys.iter().all(|k| k.id != old.id));
    s.stop().await.unwrap(); // ok: test
}

/// A Redis outage: 503, nothing recorded, no refund; after it, the same spend is fresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_outage_records_nothing() {
    let mut redis = Redis::start();
    let s = start(act_config("", ""), [7; 32], redis.store().await).await;
    let c = http();
    let conf = conf(&c, &s).await;
    let key = conf.keys[0].clone();
    let cred = issue(&c, &s, &key).await;
    let (body, state) = prove(&conf, &key, cred, 4, 0);
    redis.kill();
    let (status, outcome, _, refund) = send_spend(&c, &s, body.clone()).await;
    assert_eq!((status, outcome.as_str()), (503, ""));
    assert!(Refund::from_bytes(&refund).is_err(), "no refund released");
    redis.restart();
    let mut answer = (0, String::new(), String::new(), Vec::new());
    for _ in 0..50 {
        answer = send_spend(&c, &s, body.clone()).await;
        if answer.0 != 503 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!((answer.0, answer.1.as_str()), (200, "fresh"));
    assert_eq!(finalize(&key, state, &answer.3).balance(), 99);
    s.stop().await.unwrap(); // ok: test
}

/// `issue_credits` of `2^L` or more is refused at start; the control starts.
#[test]
fn the_binary_refuses_issue_credits_beyond_the_width() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let data = dir.path().join("data");
    init_data_dir(&data);
    let bad = "[act]\nenabled = true\nwidth = 8\nissue_credits = 256\n";
    let log = try_serve(&data, bad, &[], &[]).err().unwrap(); // ok: test
    assert!(log.contains("act.issue_credits"), "{log}");
    let good = bad.replace("256", "255");
    let (child, fields) = spawn_serve(&data, &good, &[]);
    assert!(!field(&fields, "addr").is_empty());
    terminate(child);
}

/// `[issuance] auth = "api-keys"`: ACT issuance needs a listed key, one token of its quota
/// per issuance; spends need none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issuance_goes_through_the_gate() {
    use sha2::{Digest as _, Sha256};
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let keys = dir.path().join("api-keys");
    let hash: String = Sha256::digest(b"act-key")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::fs::write(&keys, format!("alice {hash} 1\n")).unwrap(); // ok: test
    let cfg = Config::from_toml(&format!(
        "issuer_name = \"issuer.test\"\ntoken_types = [1]\npst_methods = []\n\
         [issuance]\nauth = \"api-keys\"\napi_keys_file = \"{}\"\n[act]\nenabled = true\n",
        keys.display()
    ))
    .unwrap(); // ok: test
    let s = start(cfg, [7; 32], redb(dir.path()).await).await;
    let c = http();
    let conf = conf(&c, &s).await;
    let key = conf.keys[0].clone();
    let body = || {
        let req = ClientIssuanceState::request(&mut rand::rng()).unwrap(); // ok: test
        (with_key(&key, &req.message.to_bytes()), req.state)
    };
    let send = |auth: Option<&str>, b: Vec<u8>| {
        let mut r = c
            .post(url(&s, "/act/issue"))
            .header("content-type", ISSUE)
            .body(b);
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        r.send()
    };
    let r = send(None, body().0).await.unwrap(); // ok: test
    assert_eq!(r.status(), 401);
    let r = send(Some("Bearer wrong"), body().0).await.unwrap(); // ok: test
    assert_eq!(r.status(), 401);
    let (b, state) = body();
    let r = send(Some("Bearer act-key"), b).await.unwrap(); // ok: test
    let resp =
        IssueResponse::from_bytes(&expect_ok(r, "application/act-issue-response").await).unwrap(); // ok: test
    let cred = state.finalize(&key.ctx, &key.pk, &resp).unwrap(); // ok: test
    let r = send(Some("Bearer act-key"), body().0).await.unwrap(); // ok: test
    assert_eq!(r.status(), 429, "quota of 1 spent");
    // Spends are not gated.
    assert_eq!(spend_ok(&c, &s, &conf, &key, cred, 1).await.balance(), 99);
    s.stop().await.unwrap(); // ok: test
}

/// `SpentStore::record` on both stores: the first value is kept and answered, a plain spend
/// of the id is refused, an expired key is refused; redb's sweep drops values with records.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stores_record_the_first_value() {
    use privacy_tokens_server::store::{Recorded, Spend};
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let redis = Redis::start();
    let redb = RedbStore::open(&dir.path().join("r.redb")).unwrap(); // ok: test
    let now = privacy_tokens_server::unix_now();
    let exp = now + 60;
    let stores: [(&str, Arc<dyn SpentStore>); 2] =
        [("redb", Arc::new(redb)), ("redis", redis.store().await)];
    for (name, store) in stores {
        let rec = |id: &'static [u8], v: &'static [u8]| store.record(id, v, exp, now);
        assert_eq!(
            rec(b"n1", b"first").await.unwrap(),
            Recorded::Fresh,
            "{name}"
        ); // ok: test
        assert_eq!(
            rec(b"n1", b"second").await.unwrap(), // ok: test
            Recorded::Present(b"first".to_vec()),
            "{name}"
        );
        assert_eq!(rec(b"n2", b"").await.unwrap(), Recorded::Fresh, "{name}"); // ok: test
        assert_eq!(
            rec(b"n2", b"x").await.unwrap(), // ok: test
            Recorded::Present(Vec::new()),
            "{name}"
        );
        assert_eq!(
            store.spend(b"n1", exp, now).await.unwrap(), // ok: test
            Spend::AlreadySpent,
            "{name}"
        );
        assert!(store.record(b"n3", b"v", now, now).await.is_err(), "{name}");
        assert_eq!(rec(b"n3", b"v").await.unwrap(), Recorded::Fresh, "{name}"); // ok: test
    }
    let redb = RedbStore::open(&dir.path().join("s.redb")).unwrap(); // ok: test
    assert_eq!(
        redb.record(b"a", b"v", 100, 50).await.unwrap(),
        Recorded::Fresh
    ); // ok: test
    assert_eq!(
        redb.record(b"b", b"w", exp, now).await.unwrap(),
        Recorded::Fresh
    ); // ok: test
    let all = redb.records_after(None, 10).unwrap(); // ok: test
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].2.as_deref(), Some(&b"v"[..]));
    assert_eq!(redb.sweep(now).unwrap(), 1); // ok: test
    let left = redb.records_after(None, 10).unwrap(); // ok: test
    assert_eq!(left, vec![(b"b".to_vec(), exp + 3600, Some(b"w".to_vec()))]);
    // The swept id is fresh again, with its new value.
    assert_eq!(
        redb.record(b"a", b"z", exp, now).await.unwrap(),
        Recorded::Fresh
    ); // ok: test
}

/// `migrate-spent` copies the refunds: after the move to Redis a replayed spend still gets its
/// first refund (409), and a new spend is fresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migration_to_redis_keeps_the_refunds() {
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let data = dir.path().join("data");
    init_data_dir(&data);
    let toml = "[act]\nenabled = true\n";
    let c = http();
    let (child, serving) = spawn_serve(&data, toml, &[]);
    let base = format!("http://{}", field(&serving, "addr"));
    let conf = conf_at(&c, &base).await;
    let key = conf.keys[0].clone();
    let issue_at = |base: String| {
        let (c, key) = (c.clone(), key.clone());
        async move {
            let req = ClientIssuanceState::request(&mut rand::rng()).unwrap(); // ok: test
            let body = with_key(&key, &req.message.to_bytes());
            let r = post_url(&c, format!("{base}/act/issue"), ISSUE, body).await;
            let body = expect_ok(r, "application/act-issue-response").await;
            let resp = IssueResponse::from_bytes(&body).unwrap(); // ok: test
            req.state.finalize(&key.ctx, &key.pk, &resp).unwrap() // ok: test
        }
    };
    let cred = issue_at(base.clone()).await;
    let (spent, _) = prove(&conf, &key, cred, 5, 0);
    let r = post_url(&c, format!("{base}/act/spend"), SPEND, spent.clone()).await;
    let first = expect_ok(r, REFUND).await;
    terminate(child);
    migrate_spent(&data, &redis.url(), &[]);
    let (child, serving) = spawn_serve(&data, toml, &["--redis", &redis.url()]);
    let base = format!("http://{}", field(&serving, "addr"));
    let r = post_url(&c, format!("{base}/act/spend"), SPEND, spent).await;
    assert_eq!(r.status(), 409);
    assert_eq!(r.headers()["act-spend"], "replayed");
    assert_eq!(r.bytes().await.unwrap().to_vec(), first); // ok: test
                                                          // The control: a new credential on Redis spends fresh.
    let cred = issue_at(base.clone()).await;
    let (body, _) = prove(&conf, &key, cred, 5, 0);
    let r = post_url(&c, format!("{base}/act/spend"), SPEND, body).await;
    assert_eq!(r.status(), 200);
    terminate(child);
}

/// Without `[act] enabled`, the ACT paths are not served (the directory is, the control).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn act_is_off_by_default() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let s = start_redb(dir.path()).await;
    let c = http();
    let get = |p: &str| c.get(url(&s, p)).send();
    let r = get("/.well-known/private-token-issuer-directory")
        .await
        .unwrap(); // ok: test
    assert_eq!(r.status(), 200);
    let r = get("/.well-known/act-configuration").await.unwrap(); // ok: test
    assert_eq!(r.status(), 404);
    for (path, media) in [("/act/issue", ISSUE), ("/act/spend", SPEND)] {
        assert_eq!(
            post_act(&c, &s, path, media, vec![0; 200]).await.status(),
            404
        );
    }
    s.stop().await.unwrap(); // ok: test
}

/// Random bodies on both endpoints (a real key id half the time; the exact length of a spend
/// shape with small amounts a third of the time): always 4xx, and a full flow afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_bodies_get_4xx_and_the_server_keeps_serving() {
    use rand::{Rng as _, RngExt as _, SeedableRng as _};
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let s = start(
        act_config("cost = 4\nmax_top_up = 3", ""),
        [7; 32],
        redb(dir.path()).await,
    )
    .await;
    let c = http();
    let conf = conf(&c, &s).await;
    let key = conf.keys[0].clone();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xac7);
    for i in 0..240 {
        let (path, media) = [("/act/issue", ISSUE), ("/act/spend", SPEND)][i % 2];
        let (amount, top_up) = (rng.random_range(0..4u64), rng.random_range(0..4u64));
        let len = match rng.random_range(0..3) {
            0 => privacy_tokens::act::Spend::encoded_len_for(16, amount, top_up),
            1 => 129,
            _ => rng.random_range(0..3000),
        };
        let mut body = vec![0u8; len];
        rng.fill_bytes(&mut body);
        if len >= 48 {
            body[32..40].copy_from_slice(&amount.to_be_bytes());
            body[40..48].copy_from_slice(&top_up.to_be_bytes());
        }
        if rng.random_bool(0.5) {
            body = with_key(&key, &body);
        }
        let status = post_act(&c, &s, path, media, body).await.status().as_u16();
        assert!((400..500).contains(&status), "{path}: {status}");
    }
    let cred = issue(&c, &s, &key).await;
    assert_eq!(spend_ok(&c, &s, &conf, &key, cred, 4).await.balance(), 96);
    s.stop().await.unwrap(); // ok: test
}
