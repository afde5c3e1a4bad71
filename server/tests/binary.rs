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
        let (child, serving) = spawn_serve(d, "", &[]);
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
