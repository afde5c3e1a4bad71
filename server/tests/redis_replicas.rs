//! `[store] redis_wait_replicas`: on one Redis primary with a replica (both started here), a
//! spend answers 200 only once the replica acknowledged it (`WAIT 1 timeout`); with the replica
//! gone it answers 503 and grants nothing. The same spend without `WAIT` answers 200 with no
//! replica holding the record (what a failover then loses). An ACT record's stored refund (the
//! 409 answer) is released only once the replica holds the record too.

mod common;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use privacy_tokens_server::store::{Recorded, RedisStore, SpentStore};

fn cli(r: &Redis, args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .arg("-s")
        .arg(r.socket())
        .args(args)
        .output()
        .unwrap(); // ok: test
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits until the replica's link to its primary is up.
fn linked(replica: &Redis) {
    let start = Instant::now();
    while !cli(replica, &["INFO", "replication"]).contains("master_link_status:up") {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the replica did not sync"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The tests here time `WAIT` against one replica each: run one at a time (in parallel, with
/// three pairs of Redis servers on two cores, an acknowledgement can miss its timeout).
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap(); // ok: test
    l.local_addr().unwrap().port().to_string() // ok: test
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spend_is_granted_only_once_the_replica_has_it() {
    let _serial = SERIAL.lock().await;
    let port = free_port();
    let primary = Redis::start_with(&["--port", &port, "--bind", "127.0.0.1"]);
    let mut replica = Redis::start_with(&["--replicaof", "127.0.0.1", &port]);
    linked(&replica);
    let url = primary.url();
    let connect = || RedisStore::connect(&url, Duration::from_secs(2));
    let waiting = connect()
        .await
        .unwrap() // ok: test
        .with_wait(1, Duration::from_millis(300));
    let plain = connect().await.unwrap(); // ok: test
    let s = start(config(), [31; 32], Arc::new(waiting)).await;
    let s0 = start(config(), [31; 32], Arc::new(plain)).await;
    let c = http();
    // Acknowledged by the replica: 200, and the replica holds the record.
    let a = voprf_token(&c, &s).await;
    assert_eq!(redeem(&c, &s, &a).await.0, 200);
    assert_eq!(cli(&replica, &["DBSIZE"]).trim(), "1");
    assert_eq!(redeem(&c, &s, &a).await.0, 401);
    // The replica gone: 503, nothing granted (the record is on the primary: the token is
    // consumed, and its replay is refused).
    replica.kill();
    let b = voprf_token(&c, &s).await;
    let started = Instant::now();
    let (status, body) = redeem(&c, &s, &b).await;
    assert_eq!(
        (status, body.as_str()),
        (503, "spent-token store unavailable\n")
    );
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "WAIT did not wait"
    );
    assert_eq!(redeem(&c, &s, &b).await.0, 401);
    assert!(metrics_text(&c, &s)
        .await
        .contains("pt_store_errors_total 1"));
    // Without WAIT the same spend is granted though no replica has it.
    let d = voprf_token(&c, &s0).await;
    assert_eq!(redeem(&c, &s0, &d).await.0, 200);
    // The replica back and synced: granted again.
    replica.restart();
    linked(&replica);
    let e = voprf_token(&c, &s).await;
    assert_eq!(redeem(&c, &s, &e).await.0, 200);
    s.stop().await.unwrap(); // ok: test
    s0.stop().await.unwrap(); // ok: test
}

#[test]
fn the_wait_timeout_is_validated() {
    for bad in ["0", "1501"] {
        let toml =
            format!("[issuance]\nauth = \"open\"\n[store]\nredis_wait_replicas = 1\nredis_wait_timeout_ms = {bad}\n");
        assert!(privacy_tokens_server::config::Config::from_toml(&toml).is_err());
    }
}

/// The cost of `WAIT 1` per spend (sequential, loopback, one replica): printed, and bounded
/// loosely (`--nocapture` shows the figures quoted in the README).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_cost_per_spend() {
    let _serial = SERIAL.lock().await;
    use privacy_tokens_server::store::{Spend, SpentStore as _};
    let port = free_port();
    let primary = Redis::start_with(&["--port", &port, "--bind", "127.0.0.1"]);
    let replica = Redis::start_with(&["--replicaof", "127.0.0.1", &port]);
    linked(&replica);
    let url = primary.url();
    let exp = privacy_tokens_server::unix_now() + 3600;
    for (replicas, label) in [(0, "without WAIT"), (1, "WAIT 1")] {
        let store = RedisStore::connect(&url, Duration::from_secs(2))
            .await
            .unwrap() // ok: test
            .with_wait(replicas, Duration::from_millis(500));
        let n = 500u32;
        let start = Instant::now();
        for i in 0..n {
            let id = format!("{label}-{i}");
            let r = store.spend(id.as_bytes(), exp, exp - 3600).await.unwrap(); // ok: test
            assert_eq!(r, Spend::Fresh);
        }
        let per = start.elapsed() / n;
        eprintln!("{label}: {n} sequential spends, {per:?} each");
        assert!(per < Duration::from_millis(50), "{label}: {per:?}");
    }
}

/// `record` (ACT's nullifier with its refund) with `WAIT`: the stored value of a present record
/// is released only once a replica holds it. The first answer for `n2` is a 503 (`WAIT` fell
/// short, the record is on the primary); its retry must not hand out the stored value while no
/// replica has it (a failover would lose the record after the refund was released), and gets
/// it once the replica is back. The control: the same retry without `WAIT` gets the value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_refund_is_released_only_once_the_replica_has_it() {
    let _serial = SERIAL.lock().await;
    let port = free_port();
    let primary = Redis::start_with(&["--port", &port, "--bind", "127.0.0.1"]);
    let mut replica = Redis::start_with(&["--replicaof", "127.0.0.1", &port]);
    linked(&replica);
    let url = primary.url();
    let connect = || RedisStore::connect(&url, Duration::from_secs(2));
    let waiting = connect()
        .await
        .unwrap() // ok: test
        .with_wait(1, Duration::from_millis(300));
    let plain = connect().await.unwrap(); // ok: test
    let now = privacy_tokens_server::unix_now();
    let exp = now + 600;
    assert_eq!(
        waiting.record(b"n1", b"refund 1", exp, now).await.unwrap(), // ok: test
        Recorded::Fresh
    );
    assert_eq!(
        waiting.record(b"n1", b"other", exp, now).await.unwrap(), // ok: test
        Recorded::Present(b"refund 1".to_vec())
    );
    replica.kill();
    assert!(waiting.record(b"n2", b"refund 2", exp, now).await.is_err());
    // The retry: the record exists on the primary only, so no value yet.
    assert!(waiting.record(b"n2", b"other", exp, now).await.is_err());
    // Control: without WAIT the present value comes back at once.
    assert_eq!(
        plain.record(b"n2", b"other", exp, now).await.unwrap(), // ok: test
        Recorded::Present(b"refund 2".to_vec())
    );
    // The replica back and synced: the retry gets the stored value, never a new one (a few
    // tries: the restarted replica's first acknowledgement can take longer than the timeout).
    replica.restart();
    linked(&replica);
    let mut answer = waiting.record(b"n2", b"other", exp, now).await;
    for _ in 0..20 {
        if answer.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        answer = waiting.record(b"n2", b"other", exp, now).await;
    }
    assert_eq!(
        answer.unwrap(), // ok: test
        Recorded::Present(b"refund 2".to_vec())
    );
    assert_eq!(cli(&replica, &["DBSIZE"]).trim(), "2");
}
