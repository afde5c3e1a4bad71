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
    /// Serves; refuses to start without `DIR/master.key`.
    Serve(ServeArgs),
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

fn init(data_dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let master = MasterSecret::create(data_dir)?;
    tracing::info!(
        path = %data_dir.join(privacy_tokens_server::keys::MASTER_SECRET_FILE).display(),
        key_fingerprint = %master.fingerprint(),
        "created a new master secret"
    );
    Ok(())
}

async fn run(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let config = match &args.config {
        Some(p) => Config::from_file(p)?,
        None => {
            let c = Config::default();
            c.validate()?;
            c
        }
    };
    let master = MasterSecret::load(&args.data_dir)?;
    let mut history = History::open(&args.data_dir)?;
    let now = privacy_tokens_server::unix_now();
    if history.check(&config, now)? {
        tracing::warn!(
            "the key schedule changed since the last start: every key of the changed schedule \
             is new, and tokens of the old keys no longer redeem"
        );
    }
    history.record(&config, now)?;
    let store: Arc<dyn SpentStore> = match &args.redis {
        Some(url) => Arc::new(
            RedisStore::connect_with(
                url,
                &RedisOptions::from_config(&config.store)?,
                Duration::from_secs(2),
            )
            .await?
            .with_margin(config.store.spent_margin_secs),
        ),
        None => {
            let redb = Arc::new(
                RedbStore::open(&args.data_dir.join("spent.redb"))?
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
    let state = AppState::new(config, master, store.clone()).map_err(|e| e.to_string())?;
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
        issuer_name = %state.config.issuer_name,
        key_fingerprint = %state.master_fingerprint(),
        issuance = if state.gate.is_open() { "open" } else { "api-keys" },
        "serving"
    );
    axum::serve(listener, privacy_tokens_server::router(state))
        .with_graceful_shutdown(shutdown)
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
        Command::Init { data_dir } => init(&data_dir),
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
