//! `privacy-tokens-server init --data-dir DIR`, then
//! `privacy-tokens-server serve --listen ADDR --data-dir DIR [--redis URL] [--config FILE]`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use privacy_tokens_server::config::Config;
use privacy_tokens_server::history::History;
use privacy_tokens_server::keys::MasterSecret;
use privacy_tokens_server::marker::{self, StoreMarker};
use privacy_tokens_server::store::{RedbStore, RedisOptions, RedisStore, SpentStore};
use privacy_tokens_server::AppState;

/// A Privacy Pass (0x0001, amortized batches, ARC 0xE5AC) and Private State Token issuer with
/// its joint origin.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Log as JSON lines.
    #[arg(long, global = true)]
    json_logs: bool,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Creates the master secret `DIR/master.key` (mode 0600, written atomically), once per
    /// deployment; copy it to every instance. Refuses to replace an existing one.
    Init {
        /// The data directory (created with mode 0700).
        #[arg(long)]
        data_dir: PathBuf,
    },
    /// Serves; refuses to start without `DIR/master.key`, or on a spent-token store without
    /// this deployment's marker (see `--new-spent-store` and `migrate-spent`).
    Serve(ServeArgs),
    /// Copies the embedded spent-token set (`DIR/spent.redb`) into an unmarked Redis, marks
    /// Redis as this deployment's store, and unmarks the embedded file. Run it with every
    /// instance stopped, then serve with `--redis`.
    MigrateSpent {
        /// The data directory (its `master.key` and `spent.redb`).
        #[arg(long)]
        data_dir: PathBuf,
        /// The Redis to copy into (as `serve --redis`).
        #[arg(long)]
        redis: String,
        /// The configuration (for the Redis password and CA settings).
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// The address to listen on, e.g. 127.0.0.1:8080.
    #[arg(long)]
    listen: SocketAddr,
    /// The data directory: the master secret (`master.key`, made by `init`) and the embedded
    /// store.
    #[arg(long)]
    data_dir: PathBuf,
    /// Keep spent tokens in Redis instead of the embedded store (`redis://host:port`,
    /// `rediss://host:port` for TLS, `redis+unix:///path/to.sock`). Give the password with
    /// `store.redis_password_file` or `PT_REDIS_PASSWORD`, not in the URL (visible in `ps`).
    #[arg(long)]
    redis: Option<String>,
    /// The TOML configuration file (required in practice: `[issuance] auth` has no default).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Serve `/metrics` (and `/healthz`, `/readyz`) on this address, apart from the public
    /// listener, e.g. 127.0.0.1:9090. Without it no metrics are served.
    #[arg(long)]
    metrics_listen: Option<SocketAddr>,
    /// Accept a spent-token store without this deployment's marker (new, emptied or
    /// replaced): it is marked now, and tokens of every key live before now are refused (they
    /// may have been spent in the old set) until those keys expire. Prefer `migrate-spent`.
    #[arg(long, conflicts_with = "adopt_spent_store")]
    new_spent_store: bool,
    /// Accept a spent-token store without a marker as the set this deployment has always used
    /// (once, when upgrading from a version without markers): it is marked with
    /// `valid_from = 0`. Wrong on a new, emptied or replaced store (replays would redeem).
    #[arg(long)]
    adopt_spent_store: bool,
}

/// Resolves at SIGTERM or Ctrl-C. The SIGTERM handler is installed when this is called (before
/// the `serving` log line), not when the future is first polled: a SIGTERM right after start
/// then stops the server gracefully instead of killing it.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {},
            _ = term.recv() => {},
        }
        tracing::info!("shutting down: finishing in-flight requests");
    })
}

async fn init(data_dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let master = MasterSecret::create(data_dir)?;
    // No token of a new master secret exists anywhere: its embedded store holds them all.
    let store = RedbStore::open(&data_dir.join(SPENT_FILE))?;
    let now = privacy_tokens_server::unix_now();
    let m = marker::put(&store, &StoreMarker::new(&master.fingerprint(), 0, now)).await?;
    tracing::info!(store_id = %m.store_id, "marked the embedded spent-token store");
    tracing::info!(
        path = %data_dir.join(privacy_tokens_server::keys::MASTER_SECRET_FILE).display(),
        key_fingerprint = %master.fingerprint(),
        "created a new master secret"
    );
    Ok(())
}

/// The embedded store's file in the data directory.
const SPENT_FILE: &str = "spent.redb";

fn load_config(path: Option<&std::path::Path>) -> Result<Config, Box<dyn std::error::Error>> {
    Ok(match path {
        Some(p) => Config::from_file(p)?,
        None => {
            let c = Config::default();
            c.validate()?;
            c
        }
    })
}

async fn connect_redis(
    url: &str,
    config: &Config,
) -> Result<RedisStore, Box<dyn std::error::Error>> {
    Ok(RedisStore::connect_with(
        url,
        &RedisOptions::from_config(&config.store)?,
        Duration::from_secs(2),
    )
    .await?
    .with_margin(config.store.spent_margin_secs)
    .with_wait(
        config.store.redis_wait_replicas,
        Duration::from_millis(config.store.redis_wait_timeout_ms),
    ))
}

async fn migrate_spent(
    data_dir: &std::path::Path,
    redis: &str,
    config: Option<&std::path::Path>,
) -> Result<(), Box<dyn std::error::Error>> {
    // Only the store settings are read: without a file, the defaults (no issuance gate needed).
    let config = match config {
        Some(p) => Config::from_file(p)?,
        None => Config::default(),
    };
    let master = MasterSecret::load(data_dir)?;
    let from = RedbStore::open(&data_dir.join(SPENT_FILE))?;
    let to = connect_redis(redis, &config).await?;
    let now = privacy_tokens_server::unix_now();
    let (copied, m) = marker::migrate(&from, &to, &master.fingerprint(), now).await?;
    tracing::info!(
        copied,
        store_id = %m.store_id,
        valid_from = m.valid_from,
        "copied the embedded spent-token set into Redis and marked it; the embedded file is \
         unmarked (serving on it again needs --new-spent-store)"
    );
    Ok(())
}

async fn run(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let config = load_config(args.config.as_deref())?;
    let master = MasterSecret::load(&args.data_dir)?;
    let mut history = History::open(&args.data_dir)?;
    let now = privacy_tokens_server::unix_now();
    if history.check(&config, now)? {
        tracing::warn!(
            "the key schedule changed since the last start: every key of the changed schedule \
             is new, and tokens of the old keys no longer redeem"
        );
    }
    let store: Arc<dyn SpentStore> = match &args.redis {
        Some(url) => {
            let redis = connect_redis(url, &config).await?;
            match redis.persistence_warning().await {
                Ok(None) => {}
                Ok(Some(w)) => tracing::error!(warning = %w, "Redis persistence"),
                Err(e) => tracing::error!(error = %e, "cannot read Redis persistence settings"),
            }
            Arc::new(redis)
        }
        None => {
            let redb = Arc::new(
                RedbStore::open(&args.data_dir.join(SPENT_FILE))?
                    .with_margin(config.store.spent_margin_secs)
                    .with_group_wait(Duration::from_micros(config.store.group_commit_wait_us))?,
            );
            let sweeper = redb.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(3600));
                loop {
                    tick.tick().await;
                    let s = sweeper.clone();
                    let now = privacy_tokens_server::unix_now();
                    match tokio::task::spawn_blocking(move || s.sweep(now)).await {
                        Ok(Ok(n)) => tracing::info!(removed = n, "swept expired spent records"),
                        Ok(Err(e)) => tracing::warn!(error = %e, "sweep failed"),
                        Err(e) => tracing::warn!(error = %e, "sweep task failed"),
                    }
                }
            });
            redb
        }
    };
    let marker = marker::check_at_start(
        store.as_ref(),
        &master.fingerprint(),
        match (args.new_spent_store, args.adopt_spent_store) {
            (true, _) => marker::Unmarked::New,
            (false, true) => marker::Unmarked::Adopt,
            (false, false) => marker::Unmarked::Refuse,
        },
        now,
    )
    .await?;
    history.record(&config, now)?;
    let state = AppState::new(config, master, store.clone()).map_err(|e| e.to_string())?;
    state.set_store_marker(&marker);
    let skew = state.check_store_clock().await?;
    state.set_history(history);
    state.spawn_rotation(Duration::from_secs(5));
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let shutdown = shutdown_signal()?;
    let metrics_addr = match args.metrics_listen {
        Some(a) => {
            let l = tokio::net::TcpListener::bind(a).await?;
            let addr = l.local_addr()?.to_string();
            let app = privacy_tokens_server::metrics_router(state.clone());
            tokio::spawn(async move {
                if let Err(e) = axum::serve(l, app).await {
                    tracing::error!(error = %e, "metrics listener failed");
                }
            });
            addr
        }
        None => "none".to_string(),
    };
    tracing::info!(
        addr = %listener.local_addr()?,
        metrics_addr,
        store = store.name(),
        store_id = %marker.store_id,
        clock_skew = skew,
        issuer_name = %state.config.issuer_name,
        key_fingerprint = %state.master_fingerprint(),
        issuance = if state.gate.is_open() { "open" } else { "api-keys" },
        "serving"
    );
    let limits = state.config.limits.clone();
    privacy_tokens_server::conn::serve_http(
        listener,
        privacy_tokens_server::router(state),
        &limits,
        shutdown,
    )
    .await?;
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    if args.json_logs {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .json()
            .init();
    } else {
        tracing_subscriber::fmt().with_env_filter(filter).init();
    }
    let result = match args.command {
        Command::Init { data_dir } => init(&data_dir).await,
        Command::MigrateSpent {
            data_dir,
            redis,
            config,
        } => migrate_spent(&data_dir, &redis, config.as_deref()).await,
        Command::Serve(a) => run(a).await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "fatal");
            std::process::ExitCode::FAILURE
        }
    }
}
