//! The bounded pool the curve work runs on (issuance, verification, PST redemption): at most
//! `limits.crypto_threads` jobs at once on tokio's blocking threads, at most
//! `limits.crypto_queue` more waiting; beyond that a request is answered 503 with
//! `Retry-After` at once. The async workers only parse and route, so large batches cannot stall
//! the directory, challenges or health checks. A job keeps its slot until it ends, even when its
//! request timed out, so the bound holds under timeouts too.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use tokio::sync::Semaphore;

use crate::text;

/// The pool.
pub struct CryptoPool {
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
    queue: usize,
}

/// The pool refused or lost a job: the answer is 503 with `Retry-After: 1`.
#[derive(Debug)]
pub struct Busy;

impl Busy {
    /// The 503 answer.
    pub fn response(&self) -> Response {
        let mut r = text(StatusCode::SERVICE_UNAVAILABLE, "busy, retry shortly\n");
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        r
    }
}

/// Counts a waiting job until dropped (also when the request is cancelled while it waits).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl CryptoPool {
    /// A pool of `threads` (at least 1) concurrent jobs and `queue` waiting ones.
    pub fn new(threads: usize, queue: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(threads.max(1))),
            waiting: AtomicUsize::new(0),
            queue,
        }
    }

    /// Runs `f` on a blocking thread once a slot is free.
    ///
    /// # Errors
    /// [`Busy`] when `queue` jobs are waiting already, or the job panicked.
    pub async fn run<R: Send + 'static>(
        &self,
        f: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Busy> {
        let slot = match self.slots.clone().try_acquire_owned() {
            Ok(s) => s,
            Err(_) => {
                if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.queue {
                    self.waiting.fetch_sub(1, Ordering::AcqRel);
                    return Err(Busy);
                }
                let _w = Waiting(&self.waiting);
                self.slots.clone().acquire_owned().await.map_err(|_| Busy)?
            }
        };
        tokio::task::spawn_blocking(move || {
            let _slot = slot;
            f()
        })
        .await
        .map_err(|_| Busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn jobs_beyond_slots_and_queue_are_refused() {
        let pool = Arc::new(CryptoPool::new(1, 1));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = Arc::new(std::sync::Mutex::new(rx));
        let mut jobs = Vec::new();
        for _ in 0..2 {
            let (pool, rx) = (pool.clone(), rx.clone());
            jobs.push(tokio::spawn(async move {
                pool.run(move || {
                    let _ = rx.lock().unwrap().recv();
                })
                .await
            }));
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        // One runs, one waits: a third is refused.
        assert!(pool.run(|| ()).await.is_err());
        tx.send(()).unwrap();
        tx.send(()).unwrap();
        for j in jobs {
            assert!(j.await.unwrap().is_ok());
        }
        assert!(pool.run(|| 7).await.is_ok());
    }
}
