//! Review finding S2: an instance whose clock is far behind Redis's must not accept replays.
//! Redis answers `OK` to `SET k 1 NX EXAT <past>` and keeps nothing, so before the fix every
//! token of a key the slow instance still takes redeemed again and again.

mod common;

use std::time::Duration;

use common::*;

/// Three days: far beyond the default margin (3600 s).
const BEHIND: i64 = 3 * 86400;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_far_behind_redis_grants_no_replay() {
    let redis = Redis::start();
    let s = start(config(), [21; 32], redis.store().await).await;
    s.state.set_clock_offset(-BEHIND);
    // The 5 s background task compares the clocks.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let c = http();
    let token = voprf_token(&c, &s).await;
    let first = redeem(&c, &s, &token).await.0;
    let replay = redeem(&c, &s, &token).await.0;
    assert_eq!(
        (first, replay),
        (503, 503),
        "a token of a slow instance redeemed (200 twice before the fix)"
    );
    let m = metrics_text(&c, &s).await;
    assert!(m.contains("pt_clock_skew_refusing 1"), "{m}");
    let skew = m
        .lines()
        .find_map(|l| l.strip_prefix("pt_clock_skew_seconds "))
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or_default();
    assert!((skew - BEHIND).abs() <= 2, "skew {skew}");
    // The clock fixed: the next check lets redemptions through, once each.
    s.state.set_clock_offset(0);
    tokio::time::sleep(Duration::from_secs(6)).await;
    let token = voprf_token(&c, &s).await;
    assert_eq!(redeem(&c, &s, &token).await.0, 200);
    assert_eq!(redeem(&c, &s, &token).await.0, 401);
    assert!(metrics_text(&c, &s)
        .await
        .contains("pt_clock_skew_refusing 0"));
    s.stop().await.unwrap();
}

/// The check `serve` runs before serving: beyond the limit it is an error (the binary exits
/// 1); within it, the skew; the embedded store has no clock of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_start_check_refuses_a_clock_beyond_the_limit() {
    let redis = Redis::start();
    let state = privacy_tokens_server::AppState::new(
        config(),
        privacy_tokens_server::keys::MasterSecret::from_bytes(&[22; 32]),
        redis.store().await,
    )
    .unwrap(); // ok: test
    assert!(state.check_store_clock().await.unwrap().abs() <= 1); // ok: test
    let limit = state.clock_skew_limit() as i64;
    assert_eq!(limit, 3600 - 45);
    state.set_clock_offset(-(limit - 5));
    assert!(state.check_store_clock().await.is_ok());
    assert!(!state.clock_refusing());
    for offset in [-(limit + 5), limit + 5] {
        state.set_clock_offset(offset);
        let e = state.check_store_clock().await.unwrap_err(); // ok: test
        assert!(e.contains("clock"), "{e}");
        assert!(state.clock_refusing());
    }
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let redb = privacy_tokens_server::store::RedbStore::open(&dir.path().join("s.redb")).unwrap(); // ok: test
    let state = privacy_tokens_server::AppState::new(
        config(),
        privacy_tokens_server::keys::MasterSecret::from_bytes(&[22; 32]),
        std::sync::Arc::new(redb),
    )
    .unwrap(); // ok: test
    state.set_clock_offset(-BEHIND);
    assert_eq!(state.check_store_clock().await, Ok(0));
}
