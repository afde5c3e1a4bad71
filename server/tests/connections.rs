//! Review finding S3: idle sockets and unfinished request headers are closed after the
//! header-read timeout (10 s by default), so they cannot starve the server, and one unfinished
//! header does not hold a graceful shutdown (SIGTERM) beyond it.

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::*;

/// Whether the server closed `s` within `within` (EOF or reset on read).
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap(); // ok: test
    let mut buf = [0u8; 512];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return false,
            Err(_) => return true,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_half_sent_connections_are_closed_and_do_not_starve() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let s = start_redb(dir.path()).await;
    let addr = s.addr;
    // 200 sockets that send nothing, one that sends half a header, one kept alive after a 200.
    let mut idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(addr).unwrap()) // ok: test
        .collect();
    let mut partial = TcpStream::connect(addr).unwrap(); // ok: test
    partial
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap(); // ok: test
    let mut kept = TcpStream::connect(addr).unwrap(); // ok: test
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap(); // ok: test
    let mut first = [0u8; 12];
    kept.read_exact(&mut first).unwrap(); // ok: test
    assert_eq!(&first, b"HTTP/1.1 200");
    // A real request is served while they are held.
    let c = http();
    let r = c.get(url(&s, "/healthz")).send().await.unwrap(); // ok: test
    assert_eq!(r.status(), 200);
    // Each is closed by the server after the timeout (before the fix: all open after 15 s).
    let closed = tokio::task::spawn_blocking(move || {
        let t = Duration::from_secs(15);
        let start = Instant::now();
        let mut n = 0;
        for sock in idle.iter_mut().chain([&mut partial, &mut kept]) {
            let left = t
                .saturating_sub(start.elapsed())
                .max(Duration::from_millis(10));
            n += usize::from(closed_within(sock, left));
        }
        n
    })
    .await
    .unwrap(); // ok: test
    assert_eq!(closed, 202, "connections still open 15 s later");
    s.stop().await.unwrap(); // ok: test
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfinished_header_does_not_block_sigterm() {
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let data = dir.path().join("data");
    init_data_dir(&data);
    let (mut child, serving) = spawn_serve(&data, "", &[]);
    let addr = field(&serving, "addr");
    let mut partial = TcpStream::connect(&addr).unwrap(); // ok: test
    partial
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap(); // ok: test
    std::thread::sleep(Duration::from_millis(200));
    let _ = std::process::Command::new("kill")
        .arg(child.id().to_string())
        .status();
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            // ok: test
            break Some(st);
        }
        if start.elapsed() > Duration::from_secs(20) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("still running 20 s after SIGTERM (one unfinished header holds it)");
        // ok: test
    };
    assert!(status.success(), "{status:?}");
    drop(partial);
}

/// The connection cap: with `max_connections = 20` and a 2 s header-read timeout, 50 idle
/// sockets hold every slot for at most the timeout; a real request is served once they are
/// closed, and the process never holds more than the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_cap_holds_and_a_real_request_is_served() {
    let mut cfg = config();
    cfg.limits.max_connections = 20;
    cfg.limits.header_read_timeout_secs = 2;
    cfg.validate().unwrap(); // ok: test
    let dir = tempfile::tempdir().unwrap(); // ok: test
    let store = std::sync::Arc::new(
        privacy_tokens_server::store::RedbStore::open(&dir.path().join("s.redb")).unwrap(), // ok: test
    );
    let s = start(cfg, [23; 32], store).await;
    let addr = s.addr;
    let idle: Vec<TcpStream> = (0..50)
        .map(|_| TcpStream::connect(addr).unwrap()) // ok: test
        .collect();
    let start = Instant::now();
    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap(); // ok: test
    let r = c.get(url(&s, "/healthz")).send().await.unwrap(); // ok: test
    assert_eq!(r.status(), 200);
    // Served only after the 20 idle sockets holding the slots, then the next 20, timed out.
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(1500),
        "served at once: {waited:?}"
    );
    assert!(waited < Duration::from_secs(9), "{waited:?}");
    drop(idle);
    s.stop().await.unwrap(); // ok: test
}

#[test]
fn connection_limits_are_validated() {
    for (field, bad) in [
        ("header_read_timeout_secs", "0"),
        ("header_read_timeout_secs", "301"),
        ("shutdown_grace_secs", "0"),
        ("max_connections", "0"),
    ] {
        let toml = format!("[issuance]\nauth = \"open\"\n[limits]\n{field} = {bad}\n");
        let r = privacy_tokens_server::config::Config::from_toml(&toml);
        assert!(r.is_err(), "{field} = {bad} accepted");
    }
}
