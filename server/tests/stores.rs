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
    let exp = privacy_tokens_server::unix_now() + 60;
    assert_eq!(store.spend(b"x", exp).await.unwrap(), Spend::Fresh);
    assert_eq!(store.spend(b"x", exp).await.unwrap(), Spend::AlreadySpent);
    assert_eq!(store.spend(b"y", exp).await.unwrap(), Spend::Fresh);
    // An expiry in the past is refused, never silently accepted.
    assert!(store.spend(b"z", 1).await.is_err());
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
        tasks.push(tokio::spawn(
            async move { s.spend(b"same", exp).await.unwrap() },
        ));
    }
    let mut fresh = 0;
    for t in tasks {
        fresh += usize::from(t.await.unwrap() == Spend::Fresh);
    }
    assert_eq!(fresh, 1);
}
