//! Review finding S1: a spent-token store that is new, emptied or replaced is not accepted
//! silently. The review's scenario with the binary: a token spent on redb, then the move to
//! Redis (and a lost `spent.redb`), must not redeem again.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// Runs the binary with `args`; returns whether it succeeded and its output.
fn cli(args: &[&str], data: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_privacy-tokens-server"))
        .args(args)
        .arg("--data-dir")
        .arg(data)
        .output()
        .unwrap(); // ok: test
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Serves on `data` with `extra`, redeems `token` once; returns the status, or `None` when the
/// binary refused to start (then its log must say why).
async fn replay_status(data: &Path, extra: &[&str], token: &[u8]) -> Option<u16> {
    match try_serve(data, "", extra, &[]) {
        Ok((child, serving)) => {
            let base = format!("http://{}", field(&serving, "addr"));
            let status = redeem_at(&http(), &base, token).await.0;
            terminate(child);
            Some(status)
        }
        Err(log) => {
            assert!(
                log.contains("has no marker"),
                "refused without the reason: {log}"
            );
            None
        }
    }
}

/// A temporary directory and its data directory, made by `init`.
fn initialized() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let data = dir.path().join("data");
    init_data_dir(&data);
    (dir, data)
}

/// Starts on redb, gets a token and spends it; returns the token.
async fn spend_on_redb(data: &Path) -> Vec<u8> {
    let (child, serving) = spawn_serve(data, "", &[]);
    let base = format!("http://{}", field(&serving, "addr"));
    let c = http();
    let (token, _) = voprf_token_at(&c, &base).await;
    assert_eq!(redeem_at(&c, &base, &token).await.0, 200);
    assert_eq!(redeem_at(&c, &base, &token).await.0, 401);
    terminate(child);
    token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_switch_from_redb_to_redis_does_not_reopen_spent_tokens() {
    let redis = Redis::start();
    let (_dir, data) = initialized();
    let token = spend_on_redb(&data).await;
    // The move the README describes, on an empty Redis: refused at start (before the fix the
    // replay got 200).
    let url = redis.url();
    let status = replay_status(&data, &["--redis", &url], &token).await;
    assert_eq!(
        status, None,
        "an unmarked Redis was served (replay: {status:?})"
    );
    // The migration copies the set: the replay is refused, a new token redeems once.
    migrate_spent(&data, &url, &[]);
    let (child, serving) = spawn_serve(&data, "", &["--redis", &url]);
    let base = format!("http://{}", field(&serving, "addr"));
    let c = http();
    assert_eq!(redeem_at(&c, &base, &token).await.0, 401);
    let (fresh, _) = voprf_token_at(&c, &base).await;
    assert_eq!(redeem_at(&c, &base, &fresh).await.0, 200);
    assert_eq!(redeem_at(&c, &base, &fresh).await.0, 401);
    terminate(child);
    // The embedded file was unmarked by the migration: going back to it is refused.
    assert_eq!(replay_status(&data, &[], &fresh).await, None);
    // A second migration into the marked Redis is refused.
    let (ok, _) = cli(&["migrate-spent", "--redis", &url], &data);
    assert!(!ok, "a migration into a marked Redis was accepted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_spent_redb_does_not_reopen_spent_tokens() {
    let (_dir, data) = initialized();
    let token = spend_on_redb(&data).await;
    // A non-persistent volume: the file is gone, master.key is injected again.
    std::fs::remove_file(data.join("spent.redb")).unwrap(); // ok: test
    let status = replay_status(&data, &[], &token).await;
    assert_eq!(
        status, None,
        "an empty spent.redb was served (replay: {status:?})"
    );
    // The operator acknowledges the new set: tokens of the keys live before it stay refused.
    let status = replay_status(&data, &["--new-spent-store"], &token).await;
    assert_ne!(
        status,
        Some(200),
        "a token spent in the lost set redeemed again"
    );
    assert!(status.is_some(), "--new-spent-store did not start");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_of_another_master_secret_is_refused() {
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    init_data_dir(&a);
    init_data_dir(&b);
    let url = redis.url();
    migrate_spent(&a, &url, &[]);
    let (child, _) = spawn_serve(&a, "", &["--redis", &url]);
    terminate(child);
    match try_serve(&b, "", &["--redis", &url], &[]) {
        Ok((child, _)) => {
            terminate(child);
            panic!("a store of another master secret was served"); // ok: test
        }
        Err(log) => assert!(log.contains("belongs to the master secret"), "{log}"),
    }
}

/// The upgrade from a version without markers: a store that was served before (here, its
/// marker removed) is refused, and `--adopt-spent-store` keeps its records and every key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_existing_store_is_adopted_once_on_upgrade() {
    let redis = Redis::start();
    let (_dir, data) = initialized();
    let url = redis.url();
    migrate_spent(&data, &url, &[]);
    let (child, serving) = spawn_serve(&data, "", &["--redis", &url]);
    let base = format!("http://{}", field(&serving, "addr"));
    let c = http();
    let (token, _) = voprf_token_at(&c, &base).await;
    assert_eq!(redeem_at(&c, &base, &token).await.0, 200);
    terminate(child);
    // As a Redis of the version before markers.
    let out = Command::new("redis-cli")
        .arg("-s")
        .arg(redis.socket())
        .args(["DEL", "pts:meta:store"])
        .output()
        .unwrap(); // ok: test
    assert!(out.status.success());
    assert_eq!(replay_status(&data, &["--redis", &url], &token).await, None);
    let adopt = ["--redis", url.as_str(), "--adopt-spent-store"];
    let (child, serving) = spawn_serve(&data, "", &adopt);
    let base = format!("http://{}", field(&serving, "addr"));
    assert_eq!(redeem_at(&c, &base, &token).await.0, 401);
    let (fresh, _) = voprf_token_at(&c, &base).await;
    assert_eq!(redeem_at(&c, &base, &fresh).await.0, 200);
    terminate(child);
    // Marked now: a plain start serves.
    let (child, _) = spawn_serve(&data, "", &["--redis", &url]);
    terminate(child);
}
