//! The binary's command line: `init` creates the master secret once, `serve` refuses to start
//! without it, and the key fingerprint shows in the log and in `/metrics` (issue 19, defect 3).

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const BIN: &str = env!("CARGO_BIN_EXE_privacy-tokens-server");

/// Defect 3: an instance with an empty data dir must not make up a master secret of its own
/// (behind a shared Redis it would serve other keys and challenges and split the clients).
#[test]
fn serve_without_a_master_key_refuses_and_creates_none() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "[issuance]\nauth = \"open\"\n").unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve started without a master secret");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success());
    assert!(
        !data.join("master.key").exists(),
        "serve created a master secret"
    );
}

#[test]
fn init_creates_the_key_once_and_never_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init_data_dir(&data);
    let key = std::fs::read(data.join("master.key")).unwrap();
    assert_eq!(key.len(), 32);
    let again = Command::new(BIN)
        .args(["init", "--data-dir"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert_eq!(std::fs::read(data.join("master.key")).unwrap(), key);
}

/// The fingerprint is logged at start and exported as a metric; instances sharing the key show
/// the same one, an instance with another key a different one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_fingerprint_is_logged_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, other) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("other"),
    );
    init_data_dir(&a);
    init_data_dir(&other);
    std::fs::create_dir(&b).unwrap();
    std::fs::copy(a.join("master.key"), b.join("master.key")).unwrap();
    let c = http();
    let mut seen = Vec::new();
    for d in [&a, &b, &other] {
        // `b` has the master secret only: its new embedded store must be acknowledged.
        let extra: &[&str] = if d == &b { &["--new-spent-store"] } else { &[] };
        let (child, serving) = spawn_serve(d, "", extra);
        let fp = field(&serving, "key_fingerprint");
        assert_eq!(fp.len(), 16, "{serving}");
        let metrics = c
            .get(format!(
                "http://{}/metrics",
                field(&serving, "metrics_addr")
            ))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            metrics.contains(&format!("pt_key_fingerprint{{fingerprint=\"{fp}\"}} 1")),
            "{metrics}"
        );
        terminate(child);
        seen.push(fp);
    }
    assert_eq!(seen[0], seen[1]);
    assert_ne!(seen[0], seen[2]);
}

/// The PST commitment `id` of a running binary.
async fn commitment_id(c: &reqwest::Client, serving: &serde_json::Value) -> u64 {
    let body = c
        .get(format!(
            "http://{}/.well-known/private-state-token/key-commitment",
            field(serving, "addr")
        ))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    v["PrivateStateTokenV1VOPRF"]["id"].as_u64().unwrap()
}

/// Issue 19, defect 4: raising `pst.key_lifetime_secs` would lower the PST key ids (Chrome
/// reads a lower commitment id as older). The start is refused, naming the offset that keeps
/// them growing; with it the binary serves a higher id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pst_schedule_change_that_lowers_the_key_ids_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init_data_dir(&data);
    let c = http();
    let (child, serving) = spawn_serve(&data, "[pst]\nkey_lifetime_secs = 5184000\n", &[]);
    let before = commitment_id(&c, &serving).await;
    terminate(child);
    let raised = "[pst]\nkey_lifetime_secs = 7776000\n";
    let log = match try_serve(&data, raised, &[], &[]) {
        Ok((child, serving)) => {
            let after = commitment_id(&c, &serving).await;
            terminate(child);
            panic!("served with the PST commitment id going from {before} to {after}");
        }
        Err(log) => log,
    };
    let offset: u32 = log
        .split("set pst.key_id_offset = ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no offset named: {log}"));
    let (child, serving) = spawn_serve(&data, &format!("{raised}key_id_offset = {offset}\n"), &[]);
    let after = commitment_id(&c, &serving).await;
    terminate(child);
    assert!(after > before, "{before} -> {after}");
}
