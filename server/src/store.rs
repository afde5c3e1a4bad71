//! The spent-token store: one atomic operation, insert-if-absent with expiry.
//!
//! The redemption path verifies a token and then calls [`SpentStore::spend`] once with its
//! spend id: there is no separate "is it spent?" check, so two concurrent redemptions of one
//! token cannot both see it absent. A store error is returned to the caller, which answers 503
//! and grants nothing.
//!
//! Spend ids (binary): `0x0001 ‖ nonce[32]` for type 0x0001, `0xE5AC ‖ SHA-256(presentation
//! context)[32] ‖ tag[33]` for ARC, `"pst" ‖ method id ‖ nonce[64]` for Private State Tokens,
//! `"act" ‖ key id[32] ‖ nullifier[32]` for ACT spends, which [`SpentStore::record`] keeps with
//! a value (the refund granted), answered to every later spend of that id.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use redb::{Database, Durability, ReadableTable as _, TableDefinition};

use crate::config::StoreConfig;

/// The outcome of [`SpentStore::spend`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spend {
    /// The id was absent and is now recorded: grant.
    Fresh,
    /// The id was already recorded: refuse.
    AlreadySpent,
}

/// The outcome of [`SpentStore::record`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The id was absent and is now recorded with the value: grant.
    Fresh,
    /// The id was already recorded: nothing was written; this is the value recorded with it
    /// (empty for a record that has none).
    Present(Vec<u8>),
}

/// A boxed future of [`SpentStore::record`].
pub type RecordFuture<'a> = Pin<Box<dyn Future<Output = Result<Recorded, StoreError>> + Send + 'a>>;

/// A store failure: the caller must refuse the token (fail closed).
#[derive(Debug, thiserror::Error)]
#[error("spent-token store error: {0}")]
pub struct StoreError(pub String);

/// A boxed future of a store operation.
pub type StoreFuture<'a> = Pin<Box<dyn Future<Output = Result<Spend, StoreError>> + Send + 'a>>;

/// A spent-token set.
pub trait SpentStore: Send + Sync + 'static {
    /// Atomically records `id` unless it is recorded already. `expires_at` is the last instant
    /// (UNIX seconds) the token's key redeems; `now` is the caller's clock, the one its key
    /// check read. A recorded id is spent for as long as its record exists, and the record is
    /// kept until `expires_at` plus the store's margin ([`DEFAULT_MARGIN_SECS`]), so neither a
    /// tick of the clock between the key check and the store nor a store whose clock runs
    /// ahead of this instance's reopens it. A spend at or after `expires_at` is refused with an
    /// error (the key no longer redeems).
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot answer, or `now >= expires_at`; the id may or may
    /// not be recorded then, and the caller must not grant.
    fn spend<'a>(&'a self, id: &'a [u8], expires_at: u64, now: u64) -> StoreFuture<'a>;

    /// [`SpentStore::spend`] that keeps `value` with the id, in the same atomic step: a fresh
    /// id is recorded with `value`; a recorded one changes nothing and gives back the value
    /// recorded with it (an ACT spend's refund: a repeated request gets the same refund).
    ///
    /// # Errors
    /// As [`SpentStore::spend`].
    fn record<'a>(
        &'a self,
        id: &'a [u8],
        value: &'a [u8],
        expires_at: u64,
        now: u64,
    ) -> RecordFuture<'a>;

    /// Answers once the store is reachable (`/readyz`).
    ///
    /// # Errors
    /// [`StoreError`] when it is not.
    fn ready(&self) -> ReadyFuture<'_>;

    /// The backend's name for logs and metrics.
    fn name(&self) -> &'static str;

    /// The store's identity marker ([`crate::marker`]), as written by
    /// [`SpentStore::put_marker`]; `None` when the store has none (new, emptied or replaced).
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot answer.
    fn marker(&self) -> MarkerFuture<'_>;

    /// Writes the marker unless the store has one already (kept without expiry); `true` when
    /// this call wrote it.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot answer.
    fn put_marker<'a>(&'a self, marker: &'a [u8]) -> PutFuture<'a>;

    /// The store's clock, UNIX seconds, when it judges expiry by a clock of its own (Redis
    /// `TIME`); `None` when it uses this process's (redb).
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot answer.
    fn clock(&self) -> ClockFuture<'_>;
}

/// A boxed future of a clock read.
pub type ClockFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<u64>, StoreError>> + Send + 'a>>;

/// A boxed future of a marker read.
pub type MarkerFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<Vec<u8>>, StoreError>> + Send + 'a>>;

/// A boxed future of a marker write: whether it was written.
pub type PutFuture<'a> = Pin<Box<dyn Future<Output = Result<bool, StoreError>> + Send + 'a>>;

/// A boxed future of a readiness check.
pub type ReadyFuture<'a> = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send + 'a>>;

const SPENT: TableDefinition<&[u8], u64> = TableDefinition::new("spent");
/// The values of the records of [`SPENT`] that have one ([`SpentStore::record`]); swept with
/// them.
const VALUES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("spent_values");
/// The embedded store's metadata: [`MARKER_KEY`] holds the marker.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const MARKER_KEY: &str = "store";

/// The default of `store.spent_margin_secs`, owned by the configuration; also the margin of a
/// store built without [`RedbStore::with_margin`] or [`RedisStore::with_margin`].
pub use crate::config::DEFAULT_MARGIN_SECS;

fn key_expired() -> StoreError {
    StoreError("the token's key no longer redeems".into())
}

/// The embedded store: a `redb` database file with group commit. Spends go to one writer
/// thread, which gathers the spends that arrive together (the first one waits at most
/// [`RedbStore::with_group_wait`], 1 ms by default, for others; at most [`MAX_GROUP`] per
/// group) into one write transaction, committed durably (`Durability::Immediate`) before any of
/// them is answered. redb serializes write transactions, so each read-then-insert is atomic,
/// and a duplicate inside one group finds the record its predecessor inserted.
pub struct RedbStore {
    db: Arc<Database>,
    margin: u64,
    writer: Option<Writer>,
    commits: Arc<AtomicU64>,
}

/// The writer thread and its queue.
struct Writer {
    queue: std::sync::mpsc::SyncSender<Pending>,
    thread: std::thread::JoinHandle<()>,
}

/// A spend waiting for its group's commit.
struct Pending {
    id: Vec<u8>,
    /// The value to keep with the id ([`SpentStore::record`]); `None` for a plain spend.
    value: Option<Vec<u8>>,
    keep_until: u64,
    reply: tokio::sync::oneshot::Sender<Result<Recorded, StoreError>>,
}

/// The most spends in one group commit.
pub const MAX_GROUP: usize = 512;
/// Spends queued for the writer beyond which new ones are refused (503) rather than queued.
const QUEUE_LIMIT: usize = 8192;

fn store_err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

impl RedbStore {
    /// Opens (or creates) the database at `path` and starts its writer thread.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be opened or initialized.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let db = Database::create(path).map_err(store_err)?;
        let txn = db.begin_write().map_err(store_err)?;
        txn.open_table(SPENT).map_err(store_err)?;
        txn.open_table(VALUES).map_err(store_err)?;
        txn.open_table(META).map_err(store_err)?;
        txn.commit().map_err(store_err)?;
        let mut s = Self {
            db: Arc::new(db),
            margin: DEFAULT_MARGIN_SECS,
            writer: None,
            commits: Arc::new(AtomicU64::new(0)),
        };
        s.start_writer(Duration::from_millis(1))?;
        Ok(s)
    }

    /// Keeps records `secs` past their key's last redemption instant.
    #[must_use]
    pub fn with_margin(mut self, secs: u64) -> Self {
        self.margin = secs;
        self
    }

    /// The longest the first spend of a group waits for others to join it (0: commit what is
    /// queued at once).
    ///
    /// # Errors
    /// [`StoreError`] if the writer thread cannot be restarted.
    pub fn with_group_wait(mut self, wait: Duration) -> Result<Self, StoreError> {
        self.stop_writer();
        self.start_writer(wait)?;
        Ok(self)
    }

    /// How many write transactions the spends committed so far.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    fn start_writer(&mut self, wait: Duration) -> Result<(), StoreError> {
        let (queue, rx) = std::sync::mpsc::sync_channel::<Pending>(QUEUE_LIMIT);
        let (db, commits) = (self.db.clone(), self.commits.clone());
        let thread = std::thread::Builder::new()
            .name("redb-writer".into())
            .spawn(move || {
                let mut group = Vec::with_capacity(MAX_GROUP);
                while let Ok(first) = rx.recv() {
                    group.push(first);
                    let deadline = std::time::Instant::now() + wait;
                    while group.len() < MAX_GROUP {
                        let left = deadline.saturating_duration_since(std::time::Instant::now());
                        match rx.recv_timeout(left) {
                            Ok(p) => group.push(p),
                            Err(_) => break,
                        }
                    }
                    let outcomes = Self::commit_group(&db, &group);
                    commits.fetch_add(1, Ordering::Relaxed);
                    for (i, p) in group.drain(..).enumerate() {
                        let r = match &outcomes {
                            Ok(o) => o
                                .get(i)
                                .cloned()
                                .ok_or_else(|| StoreError("missing outcome".into())),
                            Err(e) => Err(StoreError(e.0.clone())),
                        };
                        let _ = p.reply.send(r);
                    }
                }
            })
            .map_err(store_err)?;
        self.writer = Some(Writer { queue, thread });
        Ok(())
    }

    fn stop_writer(&mut self) {
        if let Some(w) = self.writer.take() {
            drop(w.queue);
            let _ = w.thread.join();
        }
    }

    /// One write transaction for a group: presence alone decides (the sweep removes a record
    /// only after its key's last redemption instant plus the margin); a record with a value
    /// has it written in the same transaction, and a present one answers with its value.
    fn commit_group(db: &Database, group: &[Pending]) -> Result<Vec<Recorded>, StoreError> {
        let mut txn = db.begin_write().map_err(store_err)?;
        txn.set_durability(Durability::Immediate);
        let mut outcomes = Vec::with_capacity(group.len());
        {
            let mut table = txn.open_table(SPENT).map_err(store_err)?;
            let mut values = txn.open_table(VALUES).map_err(store_err)?;
            for p in group {
                if table.get(p.id.as_slice()).map_err(store_err)?.is_some() {
                    let stored = match &p.value {
                        Some(_) => values
                            .get(p.id.as_slice())
                            .map_err(store_err)?
                            .map(|v| v.value().to_vec())
                            .unwrap_or_default(),
                        None => Vec::new(),
                    };
                    outcomes.push(Recorded::Present(stored));
                } else {
                    table
                        .insert(p.id.as_slice(), p.keep_until)
                        .map_err(store_err)?;
                    if let Some(v) = &p.value {
                        values
                            .insert(p.id.as_slice(), v.as_slice())
                            .map_err(store_err)?;
                    }
                    outcomes.push(Recorded::Fresh);
                }
            }
        }
        if outcomes.contains(&Recorded::Fresh) {
            txn.commit().map_err(store_err)?;
        } else {
            txn.abort().map_err(store_err)?;
        }
        Ok(outcomes)
    }

    /// Deletes the records kept until `now` or earlier, in transactions of at most
    /// [`SWEEP_CHUNK`] records scanned each (spends commit between them); returns how many.
    ///
    /// # Errors
    /// [`StoreError`] on a database error.
    pub fn sweep(&self, now: u64) -> Result<u64, StoreError> {
        self.sweep_in_chunks(now, SWEEP_CHUNK)
            .map(|(removed, _)| removed)
    }

    /// [`RedbStore::sweep`] with `chunk` records scanned per transaction; returns the records
    /// removed and the transactions used.
    ///
    /// # Errors
    /// [`StoreError`] on a database error.
    pub fn sweep_in_chunks(&self, now: u64, chunk: usize) -> Result<(u64, u64), StoreError> {
        let chunk = chunk.max(1);
        let (mut removed, mut txns) = (0u64, 0u64);
        let mut after: Option<Vec<u8>> = None;
        loop {
            let txn = self.db.begin_write().map_err(store_err)?;
            let (expired, last) = {
                let mut table = txn.open_table(SPENT).map_err(store_err)?;
                let mut expired = Vec::new();
                let mut last = None;
                {
                    let range = match &after {
                        Some(a) => table.range::<&[u8]>((
                            std::ops::Bound::Excluded(a.as_slice()),
                            std::ops::Bound::Unbounded,
                        )),
                        None => table.range::<&[u8]>(..),
                    }
                    .map_err(store_err)?;
                    for entry in range.take(chunk) {
                        let (k, v) = entry.map_err(store_err)?;
                        let k = k.value().to_vec();
                        if v.value() <= now {
                            expired.push(k.clone());
                        }
                        last = Some(k);
                    }
                }
                let mut values = txn.open_table(VALUES).map_err(store_err)?;
                for k in &expired {
                    table.remove(k.as_slice()).map_err(store_err)?;
                    values.remove(k.as_slice()).map_err(store_err)?;
                }
                (expired.len() as u64, last)
            };
            txn.commit().map_err(store_err)?;
            txns += 1;
            removed += expired;
            match last {
                Some(l) => after = Some(l),
                None => return Ok((removed, txns)),
            }
        }
    }
}

/// A record of the embedded store: id, kept-until instant, value ([`SpentStore::record`]).
pub type SpentRecord = (Vec<u8>, u64, Option<Vec<u8>>);

impl RedbStore {
    /// Up to `n` records (id, kept-until instant, value if any) after `after` in id order, for
    /// copying the set elsewhere ([`crate::marker::migrate`]).
    ///
    /// # Errors
    /// [`StoreError`] on a database error.
    pub fn records_after(
        &self,
        after: Option<&[u8]>,
        n: usize,
    ) -> Result<Vec<SpentRecord>, StoreError> {
        let txn = self.db.begin_read().map_err(store_err)?;
        let table = txn.open_table(SPENT).map_err(store_err)?;
        let values = txn.open_table(VALUES).map_err(store_err)?;
        let range = match after {
            Some(a) => {
                table.range::<&[u8]>((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded))
            }
            None => table.range::<&[u8]>(..),
        }
        .map_err(store_err)?;
        let mut out = Vec::new();
        for entry in range.take(n) {
            let (k, v) = entry.map_err(store_err)?;
            let value = values
                .get(k.value())
                .map_err(store_err)?
                .map(|v| v.value().to_vec());
            out.push((k.value().to_vec(), v.value(), value));
        }
        Ok(out)
    }

    /// Removes the marker (after its set was copied elsewhere: serving on this file again then
    /// needs the operator's acknowledgement).
    ///
    /// # Errors
    /// [`StoreError`] on a database error.
    pub fn remove_marker(&self) -> Result<(), StoreError> {
        let txn = self.db.begin_write().map_err(store_err)?;
        txn.open_table(META)
            .map_err(store_err)?
            .remove(MARKER_KEY)
            .map_err(store_err)?;
        txn.commit().map_err(store_err)
    }

    fn read_marker(db: &Database) -> Result<Option<Vec<u8>>, StoreError> {
        let txn = db.begin_read().map_err(store_err)?;
        let table = txn.open_table(META).map_err(store_err)?;
        let v = table.get(MARKER_KEY).map_err(store_err)?;
        Ok(v.map(|v| v.value().to_vec()))
    }

    fn write_marker(db: &Database, marker: &[u8]) -> Result<bool, StoreError> {
        let mut txn = db.begin_write().map_err(store_err)?;
        txn.set_durability(Durability::Immediate);
        let written = {
            let mut table = txn.open_table(META).map_err(store_err)?;
            if table.get(MARKER_KEY).map_err(store_err)?.is_some() {
                false
            } else {
                table.insert(MARKER_KEY, marker).map_err(store_err)?;
                true
            }
        };
        txn.commit().map_err(store_err)?;
        Ok(written)
    }
}

/// Records scanned per sweep transaction.
pub const SWEEP_CHUNK: usize = 10_000;

impl Drop for RedbStore {
    fn drop(&mut self) {
        self.stop_writer();
    }
}

impl RedbStore {
    /// Queues a record for the writer's next group commit and waits for its outcome.
    async fn enqueue(
        &self,
        id: &[u8],
        value: Option<&[u8]>,
        expires_at: u64,
        now: u64,
    ) -> Result<Recorded, StoreError> {
        if now >= expires_at {
            return Err(key_expired());
        }
        let writer = self
            .writer
            .as_ref()
            .ok_or_else(|| StoreError("the writer is stopped".into()))?;
        let (reply, answer) = tokio::sync::oneshot::channel();
        writer
            .queue
            .try_send(Pending {
                id: id.to_vec(),
                value: value.map(<[u8]>::to_vec),
                keep_until: expires_at.saturating_add(self.margin),
                reply,
            })
            .map_err(|_| StoreError("the spend queue is full".into()))?;
        answer
            .await
            .map_err(|_| StoreError("the writer stopped".into()))?
    }
}

impl SpentStore for RedbStore {
    fn spend<'a>(&'a self, id: &'a [u8], expires_at: u64, now: u64) -> StoreFuture<'a> {
        Box::pin(async move {
            Ok(match self.enqueue(id, None, expires_at, now).await? {
                Recorded::Fresh => Spend::Fresh,
                Recorded::Present(_) => Spend::AlreadySpent,
            })
        })
    }

    fn record<'a>(
        &'a self,
        id: &'a [u8],
        value: &'a [u8],
        expires_at: u64,
        now: u64,
    ) -> RecordFuture<'a> {
        Box::pin(self.enqueue(id, Some(value), expires_at, now))
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(async move {
            let db = self.db.clone();
            tokio::task::spawn_blocking(move || db.begin_read().map(drop).map_err(store_err))
                .await
                .map_err(store_err)??;
            match &self.writer {
                Some(w) if !w.thread.is_finished() => Ok(()),
                _ => Err(StoreError("the writer is stopped".into())),
            }
        })
    }

    fn name(&self) -> &'static str {
        "redb"
    }

    fn marker(&self) -> MarkerFuture<'_> {
        let db = self.db.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || Self::read_marker(&db))
                .await
                .map_err(store_err)?
        })
    }

    fn clock(&self) -> ClockFuture<'_> {
        Box::pin(async { Ok(None) })
    }

    fn put_marker<'a>(&'a self, marker: &'a [u8]) -> PutFuture<'a> {
        let (db, marker) = (self.db.clone(), marker.to_vec());
        Box::pin(async move {
            tokio::task::spawn_blocking(move || Self::write_marker(&db, &marker))
                .await
                .map_err(store_err)?
        })
    }
}

/// Redis 6.2 or newer (for `EXAT`): `SET <prefix ‖ id> 1 NX EXAT <expires_at + margin>`, one
/// command per spend, so any number of instances behind one issuer name share one set. A single
/// Redis server (with replicas) only: Redis Cluster is not supported. The server must run with
/// `maxmemory-policy noeviction` (checked at connect); durability is Redis's: run it with
/// `appendonly yes` and `appendfsync always` if a crash must not forget spent tokens.
pub struct RedisStore {
    conn: redis::aio::ConnectionManager,
    prefix: Vec<u8>,
    margin: u64,
    wait_replicas: u32,
    wait_timeout_ms: u64,
}

impl RedisStore {
    /// Connects to `url` (`redis://`, `redis+unix:///path`, `rediss://` for TLS); commands
    /// time out after `timeout`.
    ///
    /// # Errors
    /// [`StoreError`] for a bad URL or when the first connection fails.
    pub async fn connect(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        Self::connect_with(url, &RedisOptions::default(), timeout).await
    }

    /// As [`RedisStore::connect`], with a password and TLS roots apart from the URL.
    ///
    /// # Errors
    /// [`StoreError`] for a bad URL or when the first connection fails.
    pub async fn connect_with(
        url: &str,
        options: &RedisOptions,
        timeout: Duration,
    ) -> Result<Self, StoreError> {
        use redis::IntoConnectionInfo as _;
        // The one TLS backend of `rediss://` (a no-op if the process installed one).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut info = url.into_connection_info().map_err(store_err)?;
        if let Some(p) = &options.password {
            let settings = info.redis_settings().clone().set_password(p.as_str());
            info = info.set_redis_settings(settings);
        }
        let client = match &options.ca_pem {
            Some(ca) => redis::Client::build_with_tls(
                info,
                redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(ca.clone()),
                },
            ),
            None => redis::Client::open(info),
        }
        .map_err(store_err)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let mut conn = redis::aio::ConnectionManager::new_with_config(client, config)
            .await
            .map_err(store_err)?;
        check_eviction_policy(&mut conn).await?;
        Ok(Self {
            conn,
            prefix: b"pts:spent:".to_vec(),
            margin: DEFAULT_MARGIN_SECS,
            wait_replicas: 0,
            wait_timeout_ms: 0,
        })
    }

    /// Keeps records `secs` past their key's last redemption instant.
    #[must_use]
    pub fn with_margin(mut self, secs: u64) -> Self {
        self.margin = secs;
        self
    }

    /// Why Redis may forget acknowledged spends on a crash, if it may: `appendonly` is not
    /// `yes` or `appendfsync` is not `always` (read with `CONFIG GET`, else `INFO
    /// persistence`, which shows `aof_enabled` only). `serve` logs it as an error at start;
    /// managed services that offer no `appendfsync always` rely on replication instead (see
    /// [`RedisStore::with_wait`]).
    ///
    /// # Errors
    /// [`StoreError`] when neither can be read.
    pub async fn persistence_warning(&self) -> Result<Option<String>, StoreError> {
        let mut conn = self.conn.clone();
        let config: Result<Vec<String>, _> = redis::cmd("CONFIG")
            .arg("GET")
            .arg("append*")
            .query_async(&mut conn)
            .await;
        let (aof, fsync) = match config {
            Ok(v) if !v.is_empty() => {
                let get = |name: &str| {
                    v.chunks(2)
                        .find(|p| p.first().map(String::as_str) == Some(name))
                        .and_then(|p| p.get(1).cloned())
                        .unwrap_or_default()
                };
                (get("appendonly") == "yes", Some(get("appendfsync")))
            }
            _ => {
                let info: String = redis::cmd("INFO")
                    .arg("persistence")
                    .query_async(&mut conn)
                    .await
                    .map_err(store_err)?;
                let aof = info.lines().any(|l| l.trim() == "aof_enabled:1");
                (aof, None)
            }
        };
        Ok(match (aof, fsync.as_deref()) {
            (false, _) => Some(
                "Redis runs without its append-only file (appendonly no): a crash or restart \
                 forgets spent tokens, and serve then refuses the unmarked store"
                    .into(),
            ),
            (true, Some(f)) if f != "always" => Some(format!(
                "Redis appendfsync is {f:?}: a crash can forget the last acknowledged spends; \
                 set appendfsync always, or use store.redis_wait_replicas"
            )),
            _ => None,
        })
    }

    /// The key of the marker (`pts:meta:store`, no expiry).
    fn marker_key(&self) -> &'static str {
        "pts:meta:store"
    }

    /// Copies one record of another store: `SET NX EXAT keep_until` (an existing record is
    /// kept); `keep_until` is the record's own expiry, margin included; `value` is the value
    /// recorded with it, if any.
    ///
    /// # Errors
    /// [`StoreError`] when Redis cannot answer.
    pub async fn copy_record(
        &self,
        id: &[u8],
        keep_until: u64,
        value: Option<&[u8]>,
    ) -> Result<(), StoreError> {
        self.set_nx_exat(id, value.unwrap_or(b"1"), keep_until)
            .await
            .map(drop)
    }

    /// The Redis key of a record: `prefix ‖ id`.
    fn key(&self, id: &[u8]) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.prefix.len() + id.len());
        key.extend_from_slice(&self.prefix);
        key.extend_from_slice(id);
        key
    }

    /// `SET <prefix ‖ id> value NX EXAT at`: whether the record was absent (and is now written).
    async fn set_nx_exat(&self, id: &[u8], value: &[u8], at: u64) -> Result<bool, StoreError> {
        let mut conn = self.conn.clone();
        let reply: Option<String> = redis::cmd("SET")
            .arg(self.key(id))
            .arg(value)
            .arg("NX")
            .arg("EXAT")
            .arg(at)
            .query_async(&mut conn)
            .await
            .map_err(store_err)?;
        match reply.as_deref() {
            Some("OK") => Ok(true),
            None => Ok(false),
            Some(other) => Err(StoreError(format!("unexpected reply {other:?}"))),
        }
    }

    /// After each fresh spend, `WAIT replicas timeout`: the spend is granted only once that
    /// many replicas acknowledged it, else it is an error (503, nothing granted; the record
    /// stays on the primary, so the token is consumed). 0 (the default) waits for none.
    #[must_use]
    pub fn with_wait(mut self, replicas: u32, timeout: Duration) -> Self {
        self.wait_replicas = replicas;
        self.wait_timeout_ms = u64::try_from(timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        self
    }

    /// `WAIT` for [`RedisStore::with_wait`]'s replicas.
    async fn wait_for_replicas(&self) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let acked: u64 = redis::cmd("WAIT")
            .arg(self.wait_replicas)
            .arg(self.wait_timeout_ms)
            .query_async(&mut conn)
            .await
            .map_err(store_err)?;
        if acked < u64::from(self.wait_replicas) {
            return Err(StoreError(format!(
                "the spend reached {acked} of {} replicas within {} ms",
                self.wait_replicas, self.wait_timeout_ms
            )));
        }
        Ok(())
    }
}

/// [`SpentStore::record`] on Redis: `KEYS[1]` the record, `ARGV[1]` its value, `ARGV[2]` the
/// `EXAT` instant, `ARGV[3]` `1` when the caller will `WAIT` for replicas. Returns the stored
/// value, or nil when it wrote the record. A present record is written again unchanged
/// (`XX KEEPTTL`) when the caller waits: the record may have been written by another
/// connection (another instance) whose write this connection's `WAIT` does not cover, and the
/// stored value is about to be released (an ACT refund), so it must be on the replicas first.
const RECORD_SCRIPT: &str = "local v = redis.call('GET', KEYS[1]) \
if v then \
if ARGV[3] == '1' then redis.call('SET', KEYS[1], v, 'XX', 'KEEPTTL') end \
return v end \
redis.call('SET', KEYS[1], ARGV[1], 'EXAT', ARGV[2]) \
return false";

/// How to reach Redis beyond its URL.
#[derive(Default)]
pub struct RedisOptions {
    /// The password (overrides the URL's).
    pub password: Option<zeroize::Zeroizing<String>>,
    /// PEM CA certificates to trust for `rediss://` instead of the system's roots.
    pub ca_pem: Option<Vec<u8>>,
}

impl RedisOptions {
    /// The options of a configuration: the password from `store.redis_password_file`, else
    /// from the environment variable `PT_REDIS_PASSWORD`; the CA from `store.redis_ca_file`.
    ///
    /// # Errors
    /// [`StoreError`] when a configured file cannot be read, or the password file is empty.
    pub fn from_config(c: &StoreConfig) -> Result<Self, StoreError> {
        let read = |p: &std::path::Path| {
            std::fs::read(p).map_err(|e| StoreError(format!("{}: {e}", p.display())))
        };
        let password = match &c.redis_password_file {
            Some(p) => {
                let bytes = zeroize::Zeroizing::new(read(p)?);
                let text = std::str::from_utf8(&bytes)
                    .map_err(|_| StoreError(format!("{}: not UTF-8", p.display())))?
                    .trim_end_matches(['\r', '\n']);
                if text.is_empty() {
                    return Err(StoreError(format!("{}: empty password file", p.display())));
                }
                Some(zeroize::Zeroizing::new(text.to_owned()))
            }
            None => std::env::var(PASSWORD_ENV)
                .ok()
                .filter(|p| !p.is_empty())
                .map(zeroize::Zeroizing::new),
        };
        let ca_pem = c.redis_ca_file.as_deref().map(read).transpose()?;
        Ok(Self { password, ca_pem })
    }
}

/// The environment variable the Redis password is read from when no file is configured.
pub const PASSWORD_ENV: &str = "PT_REDIS_PASSWORD";

/// Refuses a Redis that may evict keys: every spent record carries a TTL, so any `volatile-*`
/// or `allkeys-*` policy drops spent records under memory pressure and reopens them to replay.
/// Read with `CONFIG GET`, or from `INFO memory` where managed services disable `CONFIG`.
async fn check_eviction_policy(conn: &mut redis::aio::ConnectionManager) -> Result<(), StoreError> {
    let from_config: Result<Vec<String>, _> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("maxmemory-policy")
        .query_async(conn)
        .await;
    let policy = match from_config {
        Ok(v) if v.len() == 2 => v[1].clone(),
        _ => {
            let info: String = redis::cmd("INFO")
                .arg("memory")
                .query_async(conn)
                .await
                .map_err(store_err)?;
            info.lines()
                .find_map(|l| l.strip_prefix("maxmemory_policy:"))
                .map(|p| p.trim().to_owned())
                .ok_or_else(|| {
                    StoreError(
                        "cannot read Redis's maxmemory-policy (CONFIG GET and INFO memory failed)"
                            .into(),
                    )
                })?
        }
    };
    if policy == "noeviction" {
        Ok(())
    } else {
        Err(StoreError(format!(
            "Redis maxmemory-policy is {policy:?}: it may evict spent-token records and reopen \
             them to replay; set maxmemory-policy noeviction"
        )))
    }
}

impl SpentStore for RedisStore {
    fn spend<'a>(&'a self, id: &'a [u8], expires_at: u64, now: u64) -> StoreFuture<'a> {
        Box::pin(async move {
            if now >= expires_at {
                return Err(key_expired());
            }
            if !self
                .set_nx_exat(id, b"1", expires_at.saturating_add(self.margin))
                .await?
            {
                return Ok(Spend::AlreadySpent);
            }
            if self.wait_replicas > 0 {
                self.wait_for_replicas().await?;
            }
            Ok(Spend::Fresh)
        })
    }

    /// One script, so atomic like `SET NX` (and Redis 6.2 compatible, unlike `SET NX GET`):
    /// the recorded value if the key exists, else the key written with `value` and `EXAT`.
    fn record<'a>(
        &'a self,
        id: &'a [u8],
        value: &'a [u8],
        expires_at: u64,
        now: u64,
    ) -> RecordFuture<'a> {
        Box::pin(async move {
            if now >= expires_at {
                return Err(key_expired());
            }
            let mut conn = self.conn.clone();
            let stored: Option<Vec<u8>> = redis::cmd("EVAL")
                .arg(RECORD_SCRIPT)
                .arg(1)
                .arg(self.key(id))
                .arg(value)
                .arg(expires_at.saturating_add(self.margin))
                .arg(if self.wait_replicas > 0 { "1" } else { "0" })
                .query_async(&mut conn)
                .await
                .map_err(store_err)?;
            // Either answer releases something (a fresh refund, or the stored one to a
            // repeated request): both wait for the replicas first.
            if self.wait_replicas > 0 {
                self.wait_for_replicas().await?;
            }
            Ok(match stored {
                Some(v) => Recorded::Present(v),
                None => Recorded::Fresh,
            })
        })
    }

    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let pong: String = redis::cmd("PING")
                .query_async(&mut conn)
                .await
                .map_err(store_err)?;
            if pong == "PONG" {
                Ok(())
            } else {
                Err(StoreError(format!("unexpected reply {pong:?}")))
            }
        })
    }

    fn name(&self) -> &'static str {
        "redis"
    }

    fn marker(&self) -> MarkerFuture<'_> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            redis::cmd("GET")
                .arg(self.marker_key())
                .query_async::<Option<Vec<u8>>>(&mut conn)
                .await
                .map_err(store_err)
        })
    }

    fn clock(&self) -> ClockFuture<'_> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let (secs, _micros): (u64, u64) = redis::cmd("TIME")
                .query_async(&mut conn)
                .await
                .map_err(store_err)?;
            Ok(Some(secs))
        })
    }

    fn put_marker<'a>(&'a self, marker: &'a [u8]) -> PutFuture<'a> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let reply: Option<String> = redis::cmd("SET")
                .arg(self.marker_key())
                .arg(marker)
                .arg("NX")
                .query_async(&mut conn)
                .await
                .map_err(store_err)?;
            Ok(reply.is_some())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn redb_spends_once_expires_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spent.redb");
        let far = crate::unix_now() + 3600;
        let now = crate::unix_now();
        {
            let s = RedbStore::open(&path).unwrap();
            assert_eq!(s.spend(b"a", far, now).await.unwrap(), Spend::Fresh);
            assert_eq!(s.spend(b"a", far, now).await.unwrap(), Spend::AlreadySpent);
            assert_eq!(s.spend(b"b", far, now).await.unwrap(), Spend::Fresh);
            // A spend once the key stopped redeeming is refused; the sweep removes records only
            // once their margin has passed.
            assert!(s.spend(b"late", 1, now).await.is_err());
            assert_eq!(s.spend(b"old", 100, 99).await.unwrap(), Spend::Fresh);
            assert_eq!(s.sweep(100 + DEFAULT_MARGIN_SECS - 1).unwrap(), 0);
            assert_eq!(s.sweep(now).unwrap(), 1);
        }
        let s = RedbStore::open(&path).unwrap();
        let now = crate::unix_now();
        assert_eq!(s.spend(b"old", far, now).await.unwrap(), Spend::Fresh);
        for id in [&b"a"[..], b"b", b"old"] {
            assert_eq!(s.spend(id, far, now).await.unwrap(), Spend::AlreadySpent);
        }
    }

    /// Defect 1 (issue 19): a replay that passed the key check just before the key's last
    /// redemption instant `x` reaches the store as its clock ticks to `x`; the record must still
    /// count as spent, and it must outlive `x` (the sweep keeps it for the margin).
    #[tokio::test]
    async fn redb_replay_at_key_expiry_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = RedbStore::open(&dir.path().join("s.redb")).unwrap();
        let x = 1_000_000;
        assert_eq!(s.spend(b"t", x, x - 1).await.unwrap(), Spend::Fresh);
        for now in [x - 1, x, x + 1, x + 60] {
            assert!(
                !matches!(s.spend(b"t", x, now).await, Ok(Spend::Fresh)),
                "replay granted at now = x{:+}",
                now as i64 - x as i64
            );
        }
        assert_eq!(s.sweep(x + 60).unwrap(), 0, "the record must outlive x");
        assert!(!matches!(s.spend(b"t", x, x - 1).await, Ok(Spend::Fresh)));
    }
}
