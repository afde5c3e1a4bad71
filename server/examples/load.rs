//! A bounded load client for the issuer server (a separate process, loopback): issuance of
//! single type 0x0001 tokens or amortized batches, or redemption of tokens it obtains first.
//! It stops after `--seconds` or `--requests`, whichever comes first, and prints requests/s,
//! p50/p99 latency and, with `--server-pid`, the server's CPU time per token (from
//! `/proc/PID/stat`).
//!
//! ```text
//! cargo run --release --example load -- --url http://127.0.0.1:8080 --mode issue --batch 10 \
//!     --concurrency 8 --seconds 10 --requests 20000 --server-pid PID [--api-key KEY]
//! cargo run --release --example load -- --url ... --mode redeem --requests 20000 ...
//! ```
//!
//! Requests are built before the timed phase (issuance reuses a pool of 256 prepared requests:
//! the issuer does not track blinded elements), so the figures are the server's, less what the
//! client's own CPU takes from a shared machine.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use privacy_tokens::voprf::privacy_pass::{BatchTokenResponse, Client};
use privacy_tokens::voprf::PublicKey;
use privacy_tokens::P384Sha384;
use privacy_tokens_server::auth::B64URL;

struct Args {
    url: String,
    mode: String,
    batch: usize,
    concurrency: usize,
    seconds: f64,
    requests: usize,
    server_pid: Option<u32>,
    api_key: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: "http://127.0.0.1:8080".into(),
        mode: "issue".into(),
        batch: 1,
        concurrency: 8,
        seconds: 10.0,
        requests: 10_000,
        server_pid: None,
        api_key: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = format!("bad value for {flag}");
        match flag.as_str() {
            "--url" => a.url = v,
            "--mode" => a.mode = v,
            "--batch" => a.batch = v.parse().map_err(|_| bad.clone())?,
            "--concurrency" => a.concurrency = v.parse().map_err(|_| bad.clone())?,
            "--seconds" => a.seconds = v.parse().map_err(|_| bad.clone())?,
            "--requests" => a.requests = v.parse().map_err(|_| bad.clone())?,
            "--server-pid" => a.server_pid = Some(v.parse().map_err(|_| bad.clone())?),
            "--api-key" => a.api_key = Some(v),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.seconds > 120.0 || a.requests > 200_000 || a.concurrency == 0 || a.concurrency > 256 {
        return Err(
            "bounded runs only: --seconds <= 120, --requests <= 200000, 1 <= --concurrency <= 256"
                .into(),
        );
    }
    Ok(a)
}

/// The server's user+system CPU seconds so far.
fn cpu_secs(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// A prepared request: method and path, headers, body.
struct Prepared {
    post: bool,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

async fn challenge(
    http: &reqwest::Client,
    base: &str,
) -> Result<(Vec<u8>, PublicKey<P384Sha384>), String> {
    let r = http
        .get(format!("{base}/private"))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    for v in r.headers().get_all("www-authenticate") {
        let line = v.to_str().map_err(|e| e.to_string())?;
        let param = |name: &str| {
            line.trim_start_matches("PrivateToken ")
                .split(", ")
                .find_map(|p| p.strip_prefix(name))
                .and_then(|v| B64URL.decode(v.trim_matches('"')).ok())
        };
        if let (Some(c), Some(k)) = (param("challenge="), param("token-key=")) {
            if c.starts_with(&[0, 1]) {
                let pk = PublicKey::from_bytes(&k).map_err(|e| format!("{e:?}"))?;
                return Ok((c, pk));
            }
        }
    }
    Err("no type 0x0001 challenge".into())
}

fn auth(a: &Args, mut h: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    if let Some(k) = &a.api_key {
        h.push(("authorization", format!("Bearer {k}")));
    }
    h
}

/// Obtains `n` tokens in batches of up to 100; returns their `Authorization` values.
async fn tokens(
    a: &Args,
    http: &reqwest::Client,
    challenge: &[u8],
    pk: &PublicKey<P384Sha384>,
    n: usize,
) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let k = (n - out.len()).min(100);
        let (req, state) = Client::request_batch(pk, challenge, k, &mut rand::rng())
            .map_err(|e| format!("{e:?}"))?;
        let mut r = http
            .post(format!("{}/token-request", a.url))
            .header(
                "content-type",
                "application/private-token-amortized-batch-request",
            )
            .body(req.to_bytes());
        for (h, v) in auth(a, Vec::new()) {
            r = r.header(h, v);
        }
        let r = r.send().await.map_err(|e| e.to_string())?;
        if r.status() != 200 {
            return Err(format!(
                "token batch: {} (is max_batch >= 100?)",
                r.status()
            ));
        }
        let body = r.bytes().await.map_err(|e| e.to_string())?;
        let resp = BatchTokenResponse::from_bytes(&body).map_err(|e| format!("{e:?}"))?;
        for t in state.finalize_batch(&resp).map_err(|e| format!("{e:?}"))? {
            out.push(format!(
                "PrivateToken token={}",
                B64URL.encode(t.to_bytes())
            ));
        }
    }
    Ok(out)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() -> Result<(), String> {
    let a = args()?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(a.concurrency)
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let (challenge, pk) = challenge(&http, &a.url).await?;
    let prepared: Vec<Prepared> = match a.mode.as_str() {
        "issue" => (0..256)
            .map(|_| {
                let (ct, body) = if a.batch == 1 {
                    let (r, _) = Client::request(&pk, &challenge, &mut rand::rng())
                        .map_err(|e| format!("{e:?}"))?;
                    ("application/private-token-request", r.to_bytes().to_vec())
                } else {
                    let (r, _) = Client::request_batch(&pk, &challenge, a.batch, &mut rand::rng())
                        .map_err(|e| format!("{e:?}"))?;
                    (
                        "application/private-token-amortized-batch-request",
                        r.to_bytes(),
                    )
                };
                Ok(Prepared {
                    post: true,
                    headers: auth(&a, vec![("content-type", ct.to_string())]),
                    body,
                })
            })
            .collect::<Result<_, String>>()?,
        "redeem" => {
            let t0 = Instant::now();
            let t = tokens(&a, &http, &challenge, &pk, a.requests).await?;
            eprintln!(
                "load: obtained {} tokens in {:.1} s",
                t.len(),
                t0.elapsed().as_secs_f64()
            );
            t.into_iter()
                .map(|v| Prepared {
                    post: false,
                    headers: vec![("authorization", v)],
                    body: Vec::new(),
                })
                .collect()
        }
        m => return Err(format!("unknown mode {m}")),
    };
    let prepared = Arc::new(prepared);
    let next = Arc::new(AtomicUsize::new(0));
    let cpu0 = a.server_pid.and_then(cpu_secs);
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(a.seconds);
    let mut tasks = Vec::new();
    for _ in 0..a.concurrency {
        let (http, prepared, next) = (http.clone(), prepared.clone(), next.clone());
        let (issue_url, redeem_url) = (
            format!("{}/token-request", a.url),
            format!("{}/private", a.url),
        );
        let (limit, redeem) = (a.requests, a.mode == "redeem");
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut failures = std::collections::BTreeMap::<u16, usize>::new();
            while Instant::now() < deadline {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= limit || (redeem && i >= prepared.len()) {
                    break;
                }
                let p = &prepared[i % prepared.len()];
                let mut r = if p.post {
                    http.post(&issue_url).body(p.body.clone())
                } else {
                    http.get(&redeem_url)
                };
                for (h, v) in &p.headers {
                    r = r.header(*h, v);
                }
                let t = Instant::now();
                let status = match r.send().await {
                    Ok(resp) => {
                        let s = resp.status().as_u16();
                        let _ = resp.bytes().await;
                        s
                    }
                    Err(_) => 0,
                };
                if status == 200 {
                    lat.push(t.elapsed());
                } else {
                    *failures.entry(status).or_default() += 1;
                }
            }
            (lat, failures)
        }));
    }
    let mut lat = Vec::new();
    let mut failures = std::collections::BTreeMap::<u16, usize>::new();
    for t in tasks {
        let (l, f) = t.await.map_err(|e| e.to_string())?;
        lat.extend(l);
        for (k, v) in f {
            *failures.entry(k).or_default() += v;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, a.server_pid.and_then(cpu_secs)) {
        (Some(a0), Some(a1)) => Some(a1 - a0),
        _ => None,
    };
    if lat.is_empty() {
        return Err(format!("no request succeeded: {failures:?}"));
    }
    lat.sort_unstable();
    let p = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)].as_secs_f64() * 1e3;
    let per_request = if a.mode == "redeem" { 1 } else { a.batch };
    let tokens = lat.len() * per_request;
    println!(
        "load: mode {} batch {} concurrency {}: {} ok in {:.2} s = {:.0} req/s ({:.0} tokens/s), p50 {:.2} ms, p99 {:.2} ms, failures {:?}{}",
        a.mode,
        per_request,
        a.concurrency,
        lat.len(),
        wall,
        lat.len() as f64 / wall,
        tokens as f64 / wall,
        p(0.50),
        p(0.99),
        failures,
        cpu.map_or(String::new(), |c| format!(
            ", server CPU {c:.2} s = {:.0} µs per token",
            c * 1e6 / tokens as f64
        )),
    );
    Ok(())
}
