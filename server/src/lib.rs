//! A deployable Privacy Pass and Private State Token issuer, with the joint origin (RFC 9576
//! §4.3) that redeems its privately verifiable tokens.
//!
//! The binary `privacy-tokens-server` wires these modules together; tests start the same
//! router in-process with [`serve`]. See `README.md` for the endpoints and the deployment.

#![forbid(unsafe_code)]

pub mod act;
pub mod auth;
pub mod config;
pub mod conn;
pub mod gate;
mod hex;
pub mod history;
pub mod issuer;
pub mod keys;
pub mod marker;
pub mod metrics;
pub mod origin;
pub mod pool;
pub mod pst;
pub mod rng;
pub mod store;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::TimeoutLayer;

use crate::config::Config;
use crate::keys::{KeyError, KeyRing, MasterSecret};
use crate::metrics::{Metrics, RouteLabel};
use crate::store::SpentStore;

/// The issuer request URI served in the directory (relative to it, RFC 9578 §4).
pub const ISSUER_REQUEST_PATH: &str = "/token-request";
/// The issuer directory path (RFC 9578 §4).
pub const DIRECTORY_PATH: &str = "/.well-known/private-token-issuer-directory";
/// The directory's legacy alias (served by deployed issuers beside the RFC path).
pub const LEGACY_DIRECTORY_PATH: &str = "/.well-known/token-issuer-directory";
/// The protected resource of the joint origin.
pub const PRIVATE_PATH: &str = "/private";

/// UNIX time in seconds (0 if the clock is before 1970).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Everything a request handler reads: configuration, keys, the spent store, metrics.
pub struct AppState {
    /// The configuration.
    pub config: Arc<Config>,
    master: Arc<MasterSecret>,
    ring: RwLock<Arc<KeyRing>>,
    /// The ring of the next rotation, derived ahead by the background task.
    next_ring: RwLock<Option<Arc<KeyRing>>>,
    /// Held while a ring is derived on the request path (one derivation, not one per request).
    derive_lock: tokio::sync::Mutex<()>,
    /// The bounded pool the curve work runs on.
    pub pool: pool::CryptoPool,
    /// The spent-token store.
    pub store: Arc<dyn SpentStore>,
    /// The metrics.
    pub metrics: Metrics,
    /// Seconds added to the system clock (tests of the key schedule move time with it).
    clock_offset: AtomicI64,
    /// The spent-token store's `valid_from` ([`marker::StoreMarker`]): tokens of keys live
    /// before it are refused (0 until [`AppState::set_store_marker`]).
    store_valid_from: AtomicU64,
    /// Whether the store's clock was last seen too far from this instance's
    /// ([`AppState::check_store_clock`]): redemptions are refused (503) while it is.
    clock_refusing: AtomicBool,
    /// The issuance gate.
    pub gate: gate::Gate,
    /// The key schedule history, kept up to date by [`AppState::spawn_rotation`] (the binary
    /// sets it; tests may leave it unset).
    history: std::sync::OnceLock<Arc<std::sync::Mutex<history::History>>>,
}

impl AppState {
    /// A state with the keys live now.
    ///
    /// # Errors
    /// A [`KeyError`] if a key cannot be derived, a [`gate::GateError`] if the issuance gate
    /// cannot be built.
    pub fn new(
        config: Config,
        master: MasterSecret,
        store: Arc<dyn SpentStore>,
    ) -> Result<Arc<Self>, Box<dyn std::error::Error + Send + Sync>> {
        config.act.check()?;
        let ring = KeyRing::derive(&master, &config, unix_now())?;
        let gate = gate::Gate::from_config(&config.issuance)?;
        let metrics = Metrics::default();
        metrics.set_fingerprint(&master.fingerprint());
        let pool = pool::CryptoPool::new(config.limits.threads(), config.limits.crypto_queue);
        Ok(Arc::new(Self {
            config: Arc::new(config),
            master: Arc::new(master),
            ring: RwLock::new(Arc::new(ring)),
            next_ring: RwLock::new(None),
            derive_lock: tokio::sync::Mutex::new(()),
            pool,
            store,
            metrics,
            clock_offset: AtomicI64::new(0),
            store_valid_from: AtomicU64::new(0),
            clock_refusing: AtomicBool::new(false),
            gate,
            history: std::sync::OnceLock::new(),
        }))
    }

    /// Keeps `history` up to date from now on (checked and recorded by the caller at start).
    pub fn set_history(&self, history: history::History) {
        let _ = self.history.set(Arc::new(std::sync::Mutex::new(history)));
    }

    /// Records the schedule served now in the history, if one is set (on a blocking thread
    /// that holds the history and the configuration only).
    async fn record_history(&self) {
        let Some(h) = self.history.get().cloned() else {
            return;
        };
        let (config, now) = (self.config.clone(), self.now());
        let written = tokio::task::spawn_blocking(move || {
            h.lock()
                .unwrap_or_else(|e| e.into_inner())
                .record(&config, now)
        })
        .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "recording the key schedule history"),
            Err(e) => tracing::error!(error = %e, "recording the key schedule history"),
        }
    }

    /// The server's time, UNIX seconds.
    pub fn now(&self) -> u64 {
        let off = self.clock_offset.load(Ordering::Relaxed);
        unix_now().saturating_add_signed(off)
    }

    /// Moves the server's clock by `secs` from the system clock (for tests of rotation).
    pub fn set_clock_offset(&self, secs: i64) {
        self.clock_offset.store(secs, Ordering::Relaxed);
    }

    /// Serves with the store's marker (checked by [`marker::check_at_start`]): refuses tokens
    /// of keys live before its `valid_from`, and exports its id.
    pub fn set_store_marker(&self, m: &marker::StoreMarker) {
        self.store_valid_from.store(m.valid_from, Ordering::Relaxed);
        self.metrics.set_store_id(&m.store_id);
    }

    /// The store's `valid_from` (see [`AppState::set_store_marker`]).
    pub fn store_valid_from(&self) -> u64 {
        self.store_valid_from.load(Ordering::Relaxed)
    }

    /// The largest clock skew between this instance and the store that redemption tolerates:
    /// `store.spent_margin_secs` less 45 s (the 30 s request timeout, the 5 s check period and
    /// slack), at least half the margin. A spent record lives `margin` past its key's expiry on
    /// the store's clock, so an instance behind by less still finds every record of a key it
    /// accepts.
    pub fn clock_skew_limit(&self) -> u64 {
        let m = self.config.store.spent_margin_secs;
        m.saturating_sub(45).max(m / 2)
    }

    /// Compares the store's clock (Redis `TIME`) with this instance's ([`AppState::now`]),
    /// sets `pt_clock_skew_seconds`, and refuses redemptions (503) while the skew exceeds
    /// [`AppState::clock_skew_limit`], logging each change. A store that cannot answer changes
    /// nothing (its spends fail on their own). Returns the skew (store minus instance).
    ///
    /// # Errors
    /// A message naming the skew when it exceeds the limit (`serve` refuses to start then).
    pub async fn check_store_clock(&self) -> Result<i64, String> {
        let store_now = match self.store.clock().await {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(0),
            Err(e) => {
                tracing::warn!(error = %e, "reading the spent-token store's clock");
                return Ok(0);
            }
        };
        let now = self.now();
        let skew = i64::try_from(store_now)
            .unwrap_or(i64::MAX)
            .saturating_sub(i64::try_from(now).unwrap_or(i64::MAX));
        self.metrics.clock_skew.set(skew);
        let limit = self.clock_skew_limit();
        let refuse = skew.unsigned_abs() > limit;
        self.metrics.clock_refusing.set(i64::from(refuse));
        let was = self.clock_refusing.swap(refuse, Ordering::Relaxed);
        if refuse {
            let msg = format!(
                "the spent-token store's clock is {skew} s from this instance's (limit {limit} \
                 s, store.spent_margin_secs less 45 s): spent records could expire before \
                 their keys do; fix the clock (NTP)"
            );
            if !was {
                tracing::error!(
                    skew,
                    limit,
                    "clock skew beyond the limit: refusing redemptions"
                );
            }
            return Err(msg);
        }
        if was {
            tracing::warn!(
                skew,
                limit,
                "clock skew back within the limit: redeeming again"
            );
        }
        Ok(skew)
    }

    /// Whether redemptions are refused for clock skew ([`AppState::check_store_clock`]).
    pub fn clock_refusing(&self) -> bool {
        self.clock_refusing.load(Ordering::Relaxed)
    }

    /// The master secret's public fingerprint.
    pub fn master_fingerprint(&self) -> String {
        self.master.fingerprint()
    }

    /// The master secret (for subkeys).
    pub(crate) fn master(&self) -> &MasterSecret {
        &self.master
    }

    /// The keys live now. A request never derives keys while holding a lock others read
    /// through: the ring of the next rotation is derived ahead by [`AppState::spawn_rotation`]
    /// and swapped in; if it is missing (a clock jump), one request derives it on a blocking
    /// thread while the others wait for that one.
    ///
    /// # Errors
    /// [`KeyError`] if a key cannot be derived.
    pub async fn ring(&self) -> Result<Arc<KeyRing>, KeyError> {
        let now = self.now();
        if let Some(r) = self.ring_for(now) {
            return Ok(r);
        }
        let _one = self.derive_lock.lock().await;
        if let Some(r) = self.ring_for(now) {
            return Ok(r);
        }
        let ring = self.derive_off_thread(now).await?;
        *self.ring.write().unwrap_or_else(|e| e.into_inner()) = ring.clone();
        tracing::info!(
            epoch = ring.epoch,
            pst_epoch = ring.pst_epoch,
            "keys rotated"
        );
        Ok(ring)
    }

    /// The current ring if it is the one for `now`, or the ring derived ahead once it is.
    fn ring_for(&self, now: u64) -> Option<Arc<KeyRing>> {
        {
            let r = self.ring.read().unwrap_or_else(|e| e.into_inner());
            if r.is_current(&self.config, now) {
                return Some(r.clone());
            }
        }
        let next = self
            .next_ring
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .filter(|n| n.is_current(&self.config, now))?;
        *self.ring.write().unwrap_or_else(|e| e.into_inner()) = next.clone();
        tracing::info!(
            epoch = next.epoch,
            pst_epoch = next.pst_epoch,
            "keys rotated"
        );
        Some(next)
    }

    /// Derives the ring of `at` on a blocking thread (the closure holds the secret, the
    /// configuration and the latest ring, not the store).
    async fn derive_off_thread(&self, at: u64) -> Result<Arc<KeyRing>, KeyError> {
        let (master, config) = (self.master.clone(), self.config.clone());
        // The RSA keys still live are carried over from the latest ring (slow to derive).
        let previous = {
            let next = self
                .next_ring
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            next.unwrap_or_else(|| self.ring.read().unwrap_or_else(|e| e.into_inner()).clone())
        };
        tokio::task::spawn_blocking(move || {
            KeyRing::derive_after(&master, &config, at, Some(&previous)).map(Arc::new)
        })
        .await
        .map_err(|_| KeyError::Derivation("key derivation task"))?
    }

    /// Derives the ring of the next rotation ahead when it is at most `within` seconds away.
    async fn derive_ahead(&self, within: u64) -> Result<(), KeyError> {
        let now = self.now();
        let at = now + keys::secs_to_next_change(&self.config, now);
        if at - now > within {
            return Ok(());
        }
        let ready = self
            .next_ring
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|n| n.is_current(&self.config, at));
        if !ready {
            let ring = self.derive_off_thread(at).await?;
            *self.next_ring.write().unwrap_or_else(|e| e.into_inner()) = Some(ring);
        }
        Ok(())
    }
}

impl AppState {
    /// Keeps the ring current in the background every `period`, and derives the next
    /// rotation's ring ahead (within `2 × period + 30 s` of it), so that requests find it ready.
    pub fn spawn_rotation(self: &Arc<Self>, period: Duration) -> JoinHandle<()> {
        let st = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            loop {
                tick.tick().await;
                let ahead = 2 * period.as_secs() + 30;
                if let Err(e) = st.ring().await {
                    tracing::error!(error = %e, "background key derivation failed");
                }
                if let Err(e) = st.derive_ahead(ahead).await {
                    tracing::error!(error = %e, "background key derivation failed");
                }
                let _ = st.check_store_clock().await;
                st.record_history().await;
            }
        })
    }
}

/// A plain-text response.
pub(crate) fn text(status: StatusCode, msg: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain")], msg).into_response()
}

/// The answer when keys cannot be derived (a server fault, not the client's).
pub(crate) fn key_failure(e: &KeyError) -> Response {
    tracing::error!(error = %e, "key derivation failed");
    text(StatusCode::INTERNAL_SERVER_ERROR, "key derivation failed\n")
}

async fn track(State(st): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .to_owned();
    let method = req.method().clone();
    let start = Instant::now();
    let resp = next.run(req).await;
    let secs = start.elapsed().as_secs_f64();
    st.metrics
        .latency
        .get_or_create(&RouteLabel {
            route: route.clone(),
        })
        .observe(secs);
    tracing::info!(
        %method,
        route,
        status = resp.status().as_u16(),
        micros = (secs * 1e6) as u64,
        "request"
    );
    resp
}

/// A response sent before the request body was read in full (413 over the body cap, 408 on
/// the timeout) ends the connection and says so: the unread rest of the body would otherwise be
/// taken as the next request's start, and a client reusing the connection would race the close.
async fn close_after_unread_body(mut resp: Response) -> Response {
    if matches!(
        resp.status(),
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::REQUEST_TIMEOUT
    ) {
        resp.headers_mut().insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
    }
    resp
}

async fn metrics_handler(State(st): State<Arc<AppState>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        st.metrics.encode(),
    )
        .into_response()
}

/// `GET /healthz`: the process serves.
async fn healthz() -> Response {
    text(StatusCode::OK, "ok\n")
}

/// `GET /readyz`: keys are derived and the spent store answers (503 otherwise).
async fn readyz(State(st): State<Arc<AppState>>) -> Response {
    if let Err(e) = st.ring().await {
        return key_failure(&e);
    }
    match tokio::time::timeout(Duration::from_secs(2), st.store.ready()).await {
        Ok(Ok(())) => text(StatusCode::OK, "ready\n"),
        Ok(Err(e)) => {
            tracing::warn!(store = st.store.name(), error = %e, "readiness: store error");
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "spent-token store unavailable\n",
            )
        }
        Err(_) => text(
            StatusCode::SERVICE_UNAVAILABLE,
            "spent-token store timed out\n",
        ),
    }
}

/// Issuance and redemption answers are never stored by caches (they carry tokens, or answer
/// one client's token).
async fn no_store(mut resp: Response) -> Response {
    resp.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    resp
}

/// The public router: issuer, origin, PST, `/healthz` and `/readyz`. Metrics are on
/// [`metrics_router`], for a separate listener.
pub fn router(st: Arc<AppState>) -> Router {
    let mut sensitive = Router::new()
        .route(ISSUER_REQUEST_PATH, post(issuer::token_request))
        .route(PRIVATE_PATH, get(origin::private))
        .route(pst::ISSUE_PATH, get(pst::issue).post(pst::issue))
        .route(pst::REDEEM_PATH, get(pst::redeem).post(pst::redeem));
    let mut public = Router::new();
    if st.config.act.enabled {
        sensitive = sensitive
            .route(act::ISSUE_PATH, post(act::issue))
            .route(act::SPEND_PATH, post(act::spend));
        public = public.route(act::CONFIGURATION_PATH, get(act::configuration));
    }
    let sensitive = sensitive.layer(axum::middleware::map_response(no_store));
    public
        .route(DIRECTORY_PATH, get(issuer::directory))
        .route(LEGACY_DIRECTORY_PATH, get(issuer::directory))
        .route(pst::COMMITMENT_PATH, get(pst::key_commitment))
        .merge(sensitive)
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route_layer(axum::middleware::from_fn_with_state(st.clone(), track))
        .layer(DefaultBodyLimit::max(st.config.max_body_bytes()))
        // A request still running after 30 s gets 408; a panic (none is known) would answer
        // 500 for that request instead of dropping the connection.
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            Duration::from_secs(30),
        ))
        .layer(CatchPanicLayer::new())
        .layer(axum::middleware::map_response(close_after_unread_body))
        .with_state(st)
}

/// The metrics router (`/metrics`, `/healthz`, `/readyz`), for the `--metrics-listen`
/// listener: live counters and latencies are not for the public.
pub fn metrics_router(st: Arc<AppState>) -> Router {
    Router::new()
        .route("/metrics", get(metrics_handler))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .with_state(st)
}

/// A server running on a task.
pub struct RunningServer {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// The address of its metrics listener (loopback).
    pub metrics_addr: SocketAddr,
    /// Its state.
    pub state: Arc<AppState>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
    metrics: JoinHandle<std::io::Result<()>>,
    rotation: JoinHandle<()>,
}

impl RunningServer {
    /// Stops accepting, lets in-flight requests finish, and waits for the server to end.
    ///
    /// # Errors
    /// The server's I/O error, if it failed.
    pub async fn stop(mut self) -> std::io::Result<()> {
        // Wait for the rotation task to be gone, so that no reference to the state (and its
        // store) outlives the server.
        self.rotation.abort();
        let _ = (&mut self.rotation).await;
        self.metrics.abort();
        let _ = (&mut self.metrics).await;
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match (&mut self.task).await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// Serves `st` on `listener`, and its metrics on a loopback port of their own, until
/// [`RunningServer::stop`] (graceful shutdown).
///
/// # Errors
/// The listeners' errors.
pub async fn serve(st: Arc<AppState>, listener: TcpListener) -> std::io::Result<RunningServer> {
    let addr = listener.local_addr()?;
    let metrics_listener = TcpListener::bind("127.0.0.1:0").await?;
    let metrics_addr = metrics_listener.local_addr()?;
    let metrics_app = metrics_router(st.clone());
    let metrics = tokio::spawn(async move { axum::serve(metrics_listener, metrics_app).await });
    let (tx, rx) = oneshot::channel::<()>();
    let app = router(st.clone());
    let rotation = st.spawn_rotation(Duration::from_secs(5));
    let limits = st.config.limits.clone();
    let task = tokio::spawn(async move {
        conn::serve_http(listener, app, &limits, async move {
            let _ = rx.await;
        })
        .await
    });
    Ok(RunningServer {
        addr,
        metrics_addr,
        state: st,
        shutdown: Some(tx),
        task,
        metrics,
        rotation,
    })
}
