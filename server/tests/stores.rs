//! The spent-token stores under the server: two instances sharing Redis racing on one token,
//! Redis killed mid-run, the embedded store across a restart.

mod common;

use std::sync::Arc;

use common::*;
use privacy_tokens_server::store::{Spend, SpentStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_spends_once() {
    let redis = Redis::start();
    let store = redis.store().await;
    let now = privacy_tokens_server::unix_now();
    let exp = now + 60;
    assert_eq!(store.spend(b"x", exp, now).await.unwrap(), Spend::Fresh);
    assert_eq!(
        store.spend(b"x", exp, now).await.unwrap(),
        Spend::AlreadySpent
    );
    assert_eq!(store.spend(b"y", exp, now).await.unwrap(), Spend::Fresh);
    // An expiry in the past is refused, never silently accepted.
    assert!(store.spend(b"z", 1, now).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_sharing_redis_race_on_one_token_exactly_one_wins() {
    let redis = Redis::start();
    let a = start(config(), [9; 32], redis.store().await).await;
    let b = start(config(), [9; 32], redis.store().await).await;
    let c = http();
    for round in 0..3 {
        // Issued by one instance; the other accepts it (same master secret, same keys and
        // challenges).
        let token = voprf_token(&c, if round % 2 == 0 { &a } else { &b }).await;
        let mut tasks = Vec::new();
        for i in 0..32 {
            let c = c.clone();
            let token = token.clone();
            let target = if i % 2 == 0 {
                url(&a, "/private")
            } else {
                url(&b, "/private")
            };
            tasks.push(tokio::spawn(async move {
                let r = c
                    .get(target)
                    .header(
                        "authorization",
                        format!(
                            "PrivateToken token={}",
                            privacy_tokens_server::auth::b64url(&token)
                        ),
                    )
                    .send()
                    .await
                    .unwrap();
                (r.status().as_u16(), r.text().await.unwrap())
            }));
        }
        let mut ok = 0;
        for t in tasks {
            match t.await.unwrap() {
                (200, _) => ok += 1,
                (401, body) => assert_eq!(body, "token already spent\n"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(ok, 1, "round {round}");
    }
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_outage_answers_503_and_nothing_is_accepted_twice_after() {
    let mut redis = Redis::start();
    let s = start(config(), [11; 32], redis.store().await).await;
    let c = http();
    let spent = voprf_token(&c, &s).await;
    assert_eq!(redeem(&c, &s, &spent).await.0, 200);
    let during = voprf_token(&c, &s).await;
    let later = voprf_token(&c, &s).await;

    redis.kill();
    // Store down: 503 for a fresh token and for a spent one; nothing granted.
    for t in [&during, &spent, &during] {
        let (status, body) = redeem(&c, &s, t).await;
        assert_eq!(
            (status, body.as_str()),
            (503, "spent-token store unavailable\n")
        );
    }
    // Issuance does not need the store.
    let issued_during_outage = voprf_token(&c, &s).await;

    redis.restart();
    // The ConnectionManager reconnects; the spent token stays spent (AOF, fsync always).
    let mut status = 0;
    for _ in 0..50 {
        status = redeem(&c, &s, &spent).await.0;
        if status != 503 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        status, 401,
        "the token spent before the outage must stay spent"
    );
    for t in [&during, &later, &issued_during_outage] {
        assert_eq!(redeem(&c, &s, t).await.0, 200);
        assert_eq!(redeem(&c, &s, t).await.1, "token already spent\n");
    }
    let m = metrics_text(&c, &s).await;
    assert!(m.contains("pt_store_errors_total 3"), "{m}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_store_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let c = http();
    let s = start_redb(dir.path()).await;
    let spent = voprf_token(&c, &s).await;
    let unspent = voprf_token(&c, &s).await;
    assert_eq!(redeem(&c, &s, &spent).await.0, 200);
    s.stop().await.unwrap();
    // The database is closed when its last handle goes (the stopped server's state).
    let s = start_redb(dir.path()).await;
    assert_eq!(redeem(&c, &s, &spent).await.1, "token already spent\n");
    assert_eq!(redeem(&c, &s, &unspent).await.0, 200);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redb_store_race_exactly_one_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn SpentStore> = Arc::new(
        privacy_tokens_server::store::RedbStore::open(&dir.path().join("r.redb")).unwrap(),
    );
    let exp = privacy_tokens_server::unix_now() + 60;
    let mut tasks = Vec::new();
    for _ in 0..32 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            s.spend(b"same", exp, exp - 60).await.unwrap()
        }));
    }
    let mut fresh = 0;
    for t in tasks {
        fresh += usize::from(t.await.unwrap() == Spend::Fresh);
    }
    assert_eq!(fresh, 1);
}

/// Defect 1 (issue 19), Redis: an instance whose clock runs behind Redis's still accepts a key
/// Redis already counts as expired; its spent records must not vanish with the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_replay_at_key_expiry_with_a_clock_behind_redis_is_refused() {
    let redis = Redis::start();
    let store = redis.store().await;
    // The key's last redemption instant x is 10 s past on Redis's clock; this instance's
    // clock (the injected `now`) reads x - 1.
    let x = privacy_tokens_server::unix_now() - 10;
    assert_eq!(store.spend(b"t", x, x - 1).await.unwrap(), Spend::Fresh);
    for _ in 0..3 {
        assert!(
            !matches!(store.spend(b"t", x, x - 1).await, Ok(Spend::Fresh)),
            "replay granted"
        );
    }
}

/// The same through the server: its clock 50 s before the key's expiry, Redis's past it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_http_replay_near_key_expiry_on_a_slow_instance_is_refused() {
    let redis = Redis::start();
    let mut cfg = config();
    cfg.keys.lifetime_secs = 1000;
    cfg.keys.issue_grace_secs = 0;
    cfg.challenge.lifetime_secs = 0;
    let s = start(cfg, [13; 32], redis.store().await).await;
    let c = http();
    let real = privacy_tokens_server::unix_now() as i64;
    // x: the last redemption instant of the key of epoch k (redeem_epochs = 1), 10..1010 s
    // before Redis's now.
    let x = (real - 10) / 1000 * 1000;
    let k = x / 1000 - 2;
    s.state.set_clock_offset(k * 1000 + 10 - real);
    let token = voprf_token(&c, &s).await;
    s.state.set_clock_offset(x - 50 - real);
    assert_eq!(redeem(&c, &s, &token).await.0, 200);
    let (status, body) = redeem(&c, &s, &token).await;
    assert_eq!((status, body.as_str()), (401, "token already spent\n"));
    s.stop().await.unwrap();
}

/// Defect 2 (issue 19): under an eviction policy Redis drops spent records under memory
/// pressure; the store refuses such a server at start and names the setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_with_an_eviction_policy_is_refused() {
    for policy in ["volatile-lru", "allkeys-lru", "volatile-ttl"] {
        let redis = Redis::start_with(&["--maxmemory-policy", policy]);
        match privacy_tokens_server::store::RedisStore::connect(
            &redis.url(),
            std::time::Duration::from_millis(500),
        )
        .await
        {
            Ok(_) => panic!("{policy}: a Redis that evicts was accepted"),
            Err(e) => assert!(e.to_string().contains("maxmemory-policy"), "{policy}: {e}"),
        }
    }
    // The default, noeviction, is accepted.
    let redis = Redis::start();
    redis.store().await;
}

/// Group commit: spends that arrive together share one durable transaction, each answered only
/// after it; every acknowledged spend is in the file after the store is closed and reopened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redb_group_commit_shares_transactions_and_loses_nothing() {
    use privacy_tokens_server::store::RedbStore;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.redb");
    let store = Arc::new(RedbStore::open(&path).unwrap());
    let exp = privacy_tokens_server::unix_now() + 60;
    let mut tasks = Vec::new();
    for i in 0..200u32 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            s.spend(&i.to_be_bytes(), exp, exp - 60).await.unwrap()
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), Spend::Fresh);
    }
    let commits = store.commits();
    assert!(
        commits < 100,
        "200 concurrent spends took {commits} transactions"
    );
    drop(store);
    let store = RedbStore::open(&path).unwrap();
    for i in 0..200u32 {
        assert_eq!(
            store.spend(&i.to_be_bytes(), exp, exp - 60).await.unwrap(),
            Spend::AlreadySpent
        );
    }
}

/// Defect 6 (issue 19): the sweep works in bounded transactions, so spends commit between
/// them instead of waiting behind one scan of the whole table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redb_sweep_runs_in_bounded_chunks() {
    use privacy_tokens_server::store::RedbStore;
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(&dir.path().join("s.redb")).unwrap();
    let mut tasks = Vec::new();
    let store = Arc::new(store);
    for i in 0..250u32 {
        let s = store.clone();
        // Odd ids expire early, even ones late.
        let exp = if i % 2 == 1 { 1000 } else { 1_000_000 };
        tasks.push(tokio::spawn(async move {
            s.spend(&i.to_be_bytes(), exp, 999).await.unwrap()
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), Spend::Fresh);
    }
    let (removed, txns) = store.sweep_in_chunks(1000 + 3600, 10).unwrap();
    assert_eq!(removed, 125);
    assert!(
        txns >= 25,
        "one sweep of 250 records in {txns} transactions"
    );
    for i in 0..250u32 {
        let exp = if i % 2 == 1 { 10_000 } else { 1_000_000 };
        let want = if i % 2 == 1 {
            Spend::Fresh
        } else {
            Spend::AlreadySpent
        };
        assert_eq!(
            store.spend(&i.to_be_bytes(), exp, 999).await.unwrap(),
            want,
            "{i}"
        );
    }
}
