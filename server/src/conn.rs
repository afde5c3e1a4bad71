//! The public listener's connection loop (review finding S3), in place of `axum::serve`, which
//! sets no timer (so hyper drops its header-read timeout), caps no connections, and waits on
//! every connection at shutdown:
//!
//! - hyper's HTTP/1 header-read timeout with a Tokio timer
//!   ([`LimitsConfig::header_read_timeout_secs`]): a connection that has not sent a whole
//!   request header within it of opening, or of its previous response (keep-alive idle), is
//!   closed;
//! - at most [`LimitsConfig::max_connections`] connections at once: the loop accepts the next
//!   one only when a slot is free (the others wait in the kernel's backlog), so idle sockets
//!   cannot exhaust the process's file descriptors;
//! - on shutdown it stops accepting, asks each connection to close after its in-flight request
//!   (an idle one closes at once), and returns after at most
//!   [`LimitsConfig::shutdown_grace_secs`], dropping what is left.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;

use crate::config::LimitsConfig;

/// Serves `app` on `listener` under `limits` until `shutdown` resolves (see the module doc).
///
/// # Errors
/// None at present: accept errors (such as running out of file descriptors) are logged and
/// retried after 50 ms.
pub async fn serve_http(
    listener: TcpListener,
    app: Router,
    limits: &LimitsConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let header_timeout = Duration::from_secs(limits.header_read_timeout_secs);
    let (closing_tx, closing_rx) = watch::channel(false);
    let mut conns = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            Some(_) = conns.join_next() => continue,
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break, // ok: the semaphore is never closed
            },
        };
        let stream = tokio::select! {
            () = &mut shutdown => break,
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "accept error");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let service = TowerToHyperService::new(app.clone());
        let mut closing = closing_rx.clone();
        conns.spawn(async move {
            let _slot = permit;
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            let mut conn = std::pin::pin!(conn);
            let ended = tokio::select! {
                r = conn.as_mut() => Some(r),
                _ = closing.wait_for(|c| *c) => None,
            };
            let r = match ended {
                Some(r) => r,
                None => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = r {
                tracing::debug!(error = %e, "connection ended");
            }
        });
    }
    drop(listener);
    let _ = closing_tx.send(true);
    let open = conns.len();
    let grace = Duration::from_secs(limits.shutdown_grace_secs);
    let drained =
        tokio::time::timeout(grace, async { while conns.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::warn!(
            open,
            left = conns.len(),
            "shutdown grace over: closing the connections still open"
        );
        conns.shutdown().await;
    }
    Ok(())
}
