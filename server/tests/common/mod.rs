//! Shared test support: servers on loopback, a per-test Redis on a unix socket, this crate's
//! own Privacy Pass client over HTTP.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use privacy_tokens::voprf::privacy_pass::{Client, TokenResponse};
use privacy_tokens::voprf::PublicKey;
use privacy_tokens::P384Sha384;
use privacy_tokens_server::auth::B64URL;
use privacy_tokens_server::config::Config;
use privacy_tokens_server::keys::MasterSecret;
use privacy_tokens_server::store::{RedbStore, RedisStore, SpentStore};
use privacy_tokens_server::{serve, AppState, RunningServer};

pub use base64::Engine as _;

/// A test configuration: small batch cap, default schedule.
pub fn config() -> Config {
    Config::from_toml(
        "issuer_name = \"issuer.test\"\norigin_info = \"origin.test\"\nmax_batch = 20\n[issuance]\nauth = \"open\"\n",
    )
    .unwrap()
}

/// Starts a server on 127.0.0.1:0.
pub async fn start(config: Config, master: [u8; 32], store: Arc<dyn SpentStore>) -> RunningServer {
    let state = AppState::new(config, MasterSecret::from_bytes(&master), store).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve(state, listener).await.unwrap()
}

/// A server with the embedded store in `dir`.
pub async fn start_redb(dir: &Path) -> RunningServer {
    let store = Arc::new(RedbStore::open(&dir.join("spent.redb")).unwrap());
    start(config(), [42; 32], store).await
}

pub fn url(s: &RunningServer, path: &str) -> String {
    format!("http://{}{}", s.addr, path)
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The type 0x0001 request media type.
pub const SINGLE: &str = "application/private-token-request";
/// The amortized batch request media type.
pub const BATCH: &str = "application/private-token-amortized-batch-request";

/// Checks a 200 with the media type `media`; returns the body.
pub async fn expect_ok(r: reqwest::Response, media: &str) -> Vec<u8> {
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], media);
    r.bytes().await.unwrap().to_vec()
}

/// `POST /token-request` with a media type.
pub async fn post(
    c: &reqwest::Client,
    s: &RunningServer,
    media: &str,
    body: Vec<u8>,
) -> reqwest::Response {
    c.post(url(s, "/token-request"))
        .header("content-type", media)
        .body(body)
        .send()
        .await
        .unwrap()
}

/// Occupies a slot of the server's crypto pool with a job that runs until `release` is sent;
/// returns the sender and the job (true when it ran). Answers once the job runs.
pub async fn hold_the_pool(
    s: &RunningServer,
) -> (std::sync::mpsc::Sender<()>, tokio::task::JoinHandle<bool>) {
    let (release, held) = std::sync::mpsc::channel::<()>();
    let (started, running) = tokio::sync::oneshot::channel::<()>();
    let st = s.state.clone();
    let holder = tokio::spawn(async move {
        st.pool
            .run(move || {
                let _ = started.send(());
                let _ = held.recv();
            })
            .await
            .is_ok()
    });
    running.await.unwrap();
    (release, holder)
}

/// `GET /private` with an `Authorization` value.
pub async fn get_with_auth(
    c: &reqwest::Client,
    s: &RunningServer,
    value: &str,
) -> reqwest::Response {
    c.get(url(s, "/private"))
        .header("authorization", value)
        .send()
        .await
        .unwrap()
}

/// The parameters of the `WWW-Authenticate` line of `token_type` in a 401 (values unquoted, as
/// this server sends them): `(challenge, token_key, line)`.
pub fn challenge_of(resp: &reqwest::Response, token_type: u16) -> (Vec<u8>, Vec<u8>, String) {
    for v in resp.headers().get_all("www-authenticate") {
        let line = v.to_str().unwrap().to_string();
        let mut challenge = None;
        let mut key = None;
        for p in line["PrivateToken ".len()..].split(", ") {
            let (k, v) = p.split_once('=').unwrap();
            match k {
                "challenge" => challenge = Some(B64URL.decode(v).unwrap()),
                "token-key" => key = Some(B64URL.decode(v).unwrap()),
                _ => {}
            }
        }
        let (c, k) = (challenge.unwrap(), key.unwrap());
        if c[..2] == token_type.to_be_bytes() {
            return (c, k, line);
        }
    }
    panic!("no challenge of type {token_type:#x}");
}

/// Fetches a challenge from `/private`.
pub async fn get_challenge(
    c: &reqwest::Client,
    s: &RunningServer,
    token_type: u16,
) -> (Vec<u8>, Vec<u8>) {
    let r = c.get(url(s, "/private")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let (ch, key, _) = challenge_of(&r, token_type);
    (ch, key)
}

/// The type 0x0001 challenge and token key of a 401 from `/private`.
pub async fn voprf_challenge(
    c: &reqwest::Client,
    s: &RunningServer,
) -> (Vec<u8>, PublicKey<P384Sha384>) {
    let (challenge, key) = get_challenge(c, s, 1).await;
    (
        challenge,
        PublicKey::<P384Sha384>::from_bytes(&key).unwrap(),
    )
}

/// The `/metrics` text.
pub async fn metrics_text(c: &reqwest::Client, s: &RunningServer) -> String {
    c.get(format!("http://{}/metrics", s.metrics_addr))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Obtains one type 0x0001 token over HTTP with this crate's client; returns its bytes.
pub async fn voprf_token(c: &reqwest::Client, s: &RunningServer) -> Vec<u8> {
    voprf_token_and_headers(c, s).await.0
}

/// Obtains one type 0x0001 token; returns its bytes and the issuance answer's headers.
pub async fn voprf_token_and_headers(
    c: &reqwest::Client,
    s: &RunningServer,
) -> (Vec<u8>, reqwest::header::HeaderMap) {
    voprf_token_at(c, &format!("http://{}", s.addr)).await
}

/// Obtains one type 0x0001 token from the server at `base` (`http://host:port`); returns its
/// bytes and the issuance answer's headers.
pub async fn voprf_token_at(
    c: &reqwest::Client,
    base: &str,
) -> (Vec<u8>, reqwest::header::HeaderMap) {
    let r = c.get(format!("{base}/private")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let (challenge, key, _) = challenge_of(&r, 1);
    let pk = PublicKey::<P384Sha384>::from_bytes(&key).unwrap();
    let (req, state) = Client::request(&pk, &challenge, &mut rand::rng()).unwrap();
    let r = c
        .post(format!("{base}/token-request"))
        .header("content-type", SINGLE)
        .body(req.to_bytes().to_vec())
        .send()
        .await
        .unwrap();
    let headers = r.headers().clone();
    let body = expect_ok(r, "application/private-token-response").await;
    let token = state
        .finalize(&TokenResponse::from_bytes(&body).unwrap())
        .unwrap()
        .to_bytes()
        .to_vec();
    (token, headers)
}

/// Redeems token bytes at `base` (`http://host:port`); returns the status and body.
pub async fn redeem_at(c: &reqwest::Client, base: &str, token: &[u8]) -> (u16, String) {
    let r = c
        .get(format!("{base}/private"))
        .header(
            "authorization",
            format!("PrivateToken token={}", B64URL.encode(token)),
        )
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.text().await.unwrap())
}

/// Redeems token bytes at `/private`; returns the status and body.
pub async fn redeem(c: &reqwest::Client, s: &RunningServer, token: &[u8]) -> (u16, String) {
    redeem_at(c, &format!("http://{}", s.addr), token).await
}

/// A Redis server of this test, on a unix socket in a temp dir, with an append-only file
/// synced at every write (so a SIGKILL loses no acknowledged spend).
pub struct Redis {
    pub dir: tempfile::TempDir,
    child: Option<Child>,
    extra: Vec<String>,
}

impl Redis {
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("r.sock")
    }

    pub fn url(&self) -> String {
        format!("redis+unix://{}", self.socket().display())
    }

    /// Starts `redis-server` (fails the test if it is missing: `.ci/run` installs it).
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts `redis-server` with extra arguments.
    pub fn start_with(extra: &[&str]) -> Self {
        let mut r = Redis {
            dir: tempfile::tempdir().unwrap(),
            child: None,
            extra: extra.iter().map(|s| s.to_string()).collect(),
        };
        r.spawn();
        r
    }

    fn spawn(&mut self) {
        let _ = std::fs::remove_file(self.socket());
        let child = Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(self.socket())
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
            ])
            .arg(self.dir.path())
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server must be installed (apt-get install redis-server)");
        self.child = Some(child);
        for _ in 0..200 {
            if std::os::unix::net::UnixStream::connect(self.socket()).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server did not start");
    }

    /// SIGKILL (a crash: no shutdown save).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    pub async fn store(&self) -> Arc<dyn SpentStore> {
        Arc::new(
            RedisStore::connect(&self.url(), Duration::from_millis(500))
                .await
                .unwrap(),
        )
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `privacy-tokens-server init --data-dir DIR`; panics unless it succeeds.
pub fn init_data_dir(data: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_privacy-tokens-server"))
        .args(["init", "--data-dir"])
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "init failed: {out:?}");
}

/// `privacy-tokens-server migrate-spent --data-dir DIR --redis URL` with environment `env`:
/// copies the embedded set of a data directory made by [`init_data_dir`] into Redis and marks
/// Redis as its store (an unmarked Redis is refused by `serve`); panics unless it succeeds.
pub fn migrate_spent(data: &Path, url: &str, env: &[(&str, &str)]) {
    let out = Command::new(env!("CARGO_BIN_EXE_privacy-tokens-server"))
        .args(["migrate-spent", "--redis", url, "--data-dir"])
        .arg(data)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "migrate-spent failed: {out:?}");
}

/// Writes `config.toml` beside `data` (issuance open, then `toml`) and starts `serve --listen
/// 127.0.0.1:0 --json-logs --data-dir data --config ... extra`; returns the process and the
/// fields of its JSON `serving` log line (`addr`, `store`, `key_fingerprint`, ...).
pub fn spawn_serve(data: &Path, toml: &str, extra: &[&str]) -> (Child, serde_json::Value) {
    try_serve(data, toml, extra, &[])
        .unwrap_or_else(|log| panic!("the binary did not start: {log}"))
}

/// As [`spawn_serve`] with environment variables `env`, but a process that exits before
/// serving gives its log lines.
pub fn try_serve(
    data: &Path,
    toml: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Result<(Child, serde_json::Value), String> {
    let config = data.with_extension("toml");
    std::fs::write(&config, format!("[issuance]\nauth = \"open\"\n{toml}")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_privacy-tokens-server"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--json-logs",
            "--data-dir",
        ])
        .arg(data)
        .arg("--config")
        .arg(&config)
        .args(extra)
        .env("RUST_LOG", "info")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        // Reads to the end (a closed pipe would fail the server's later log writes).
        let mut log = String::new();
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) {
                if v["fields"]["message"] == "serving" {
                    let _ = tx.send(Ok(v["fields"].clone()));
                }
            }
            log.push_str(&line);
            log.push('\n');
        }
        let _ = tx.send(Err(log));
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(Ok(fields)) => Ok((child, fields)),
        Ok(Err(log)) => {
            let _ = child.wait();
            Err(log)
        }
        Err(_) => {
            let _ = child.kill();
            panic!("the binary neither served nor exited in 30 s");
        }
    }
}

/// A string field of a JSON log line.
pub fn field(fields: &serde_json::Value, name: &str) -> String {
    fields[name].as_str().unwrap_or_default().to_string()
}

/// SIGTERM, then waits; panics unless the process exits successfully.
pub fn terminate(mut child: Child) {
    let _ = Command::new("kill").arg(child.id().to_string()).status();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
