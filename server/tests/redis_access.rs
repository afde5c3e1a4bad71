//! Reaching a production Redis (issue 19, defect 6): the password from a file or the
//! environment instead of the URL, and `rediss://` (TLS) with a configured CA. The binary runs
//! against a per-test `redis-server` with `requirepass` and a TLS port.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const PASSWORD: &str = "s3cret-for-this-test";

/// A CA and a server certificate for `localhost` / 127.0.0.1 in `dir` (openssl CLI).
fn certificates(dir: &Path) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl must be installed");
        assert!(out.status.success(), "openssl {args:?}: {out:?}");
    };
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=pt-test-ca",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    ]);
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Redeems one token twice at the binary: granted, then already spent.
async fn spend_twice(c: &reqwest::Client, serving: &serde_json::Value) {
    assert_eq!(field(serving, "store"), "redis");
    let base = format!("http://{}", field(serving, "addr"));
    let (token, _) = voprf_token_at(c, &base).await;
    assert_eq!(redeem_at(c, &base, &token).await.0, 200);
    let (status, body) = redeem_at(c, &base, &token).await;
    assert_eq!((status, body.as_str()), (401, "token already spent\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_password_from_a_file_or_the_environment_and_rediss_with_a_ca() {
    let dir = tempfile::tempdir().unwrap();
    certificates(dir.path());
    let pem = |f: &str| dir.path().join(f).display().to_string();
    let tls_port = free_port().to_string();
    let redis = Redis::start_with(&[
        "--requirepass",
        PASSWORD,
        "--tls-port",
        &tls_port,
        "--tls-cert-file",
        &pem("server.pem"),
        "--tls-key-file",
        &pem("server.key"),
        "--tls-ca-cert-file",
        &pem("ca.pem"),
        "--tls-auth-clients",
        "no",
    ]);
    let data = dir.path().join("data");
    init_data_dir(&data);
    let c = http();
    let plain = redis.url();
    // No password anywhere: Redis refuses the connection, so does the binary.
    let log = try_serve(&data, "", &["--redis", &plain], &[])
        .map(|(child, _)| terminate(child))
        .expect_err("served without the Redis password");
    assert!(log.contains("fatal"), "{log}");
    // The password from the environment.
    migrate_spent(&data, &plain, &[("PT_REDIS_PASSWORD", PASSWORD)]);
    let (child, serving) = try_serve(
        &data,
        "",
        &["--redis", &plain],
        &[("PT_REDIS_PASSWORD", PASSWORD)],
    )
    .unwrap_or_else(|log| panic!("PT_REDIS_PASSWORD not used: {log}"));
    spend_twice(&c, &serving).await;
    terminate(child);
    // TLS, the password from a file (with a trailing newline), the CA from the config.
    let password_file = dir.path().join("redis-password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
    let toml = format!(
        "[store]\nredis_password_file = {:?}\nredis_ca_file = {:?}\n",
        password_file.display().to_string(),
        pem("ca.pem"),
    );
    let tls = format!("rediss://localhost:{tls_port}");
    let (child, serving) = try_serve(&data, &toml, &["--redis", &tls], &[])
        .unwrap_or_else(|log| panic!("rediss:// refused: {log}"));
    spend_twice(&c, &serving).await;
    terminate(child);
    // A TLS server whose certificate the configured roots do not cover is refused.
    let other = tempfile::tempdir().unwrap();
    certificates(other.path());
    let toml = format!(
        "[store]\nredis_password_file = {:?}\nredis_ca_file = {:?}\n",
        password_file.display().to_string(),
        other.path().join("ca.pem").display().to_string(),
    );
    let log = try_serve(&data, &toml, &["--redis", &tls], &[])
        .map(|(child, _)| terminate(child))
        .expect_err("served over TLS with an untrusted certificate");
    assert!(log.contains("fatal"), "{log}");
}
