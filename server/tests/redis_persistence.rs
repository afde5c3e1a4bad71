//! Review finding S1's persistence check: `serve` logs an error at start unless Redis runs
//! with `appendonly yes` and `appendfsync always` (a crash would forget spent tokens).

mod common;

use std::time::Duration;

use common::*;
use privacy_tokens_server::store::RedisStore;

async fn warning(extra: &[&str]) -> Option<String> {
    let redis = Redis::start_with(extra);
    let store = RedisStore::connect(&redis.url(), Duration::from_secs(2))
        .await
        .unwrap(); // ok: test
    store.persistence_warning().await.unwrap() // ok: test
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_without_a_synced_aof_is_named() {
    // The tests' Redis: appendonly yes, appendfsync always.
    assert_eq!(warning(&[]).await, None);
    let w = warning(&["--appendonly", "no"]).await.unwrap_or_default();
    assert!(w.contains("appendonly no"), "{w}");
    let w = warning(&["--appendfsync", "everysec"])
        .await
        .unwrap_or_default();
    assert!(w.contains("everysec"), "{w}");
}
