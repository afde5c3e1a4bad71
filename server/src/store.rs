//! The spent-token store: one atomic operation, insert-if-absent with expiry.
//!
//! The redemption path verifies a token and then calls [`SpentStore::spend`] once with its
//! spend id: there is no separate "is it spent?" check, so two concurrent redemptions of one
//! token cannot both see it absent. A store error is returned to the caller, which answers 503
//! and grants nothing.
//!
//! Spend ids (binary): `0x0001 ‖ nonce[32]` for type 0x0001, `0xE5AC ‖ SHA-256(presentation
//! context)[32] ‖ tag[33]` for ARC, `"pst" ‖ method id ‖ nonce[64]` for Private State Tokens.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use redb::{Database, Durability, ReadableTable as _, TableDefinition};

/// The outcome of [`SpentStore::spend`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spend {
    /// The id was absent and is now recorded: grant.
    Fresh,
    /// The id was already recorded: refuse.
    AlreadySpent,
}

/// A store failure: the caller must refuse the token (fail closed).
#[derive(Debug, thiserror::Error)]
#[error("spent-token store error: {0}")]
pub struct StoreError(pub String);

/// A boxed future of a store operation.
pub type StoreFuture<'a> = Pin<Box<dyn Future<Output = Result<Spend, StoreError>> + Send + 'a>>;

/// A spent-token set.
pub trait SpentStore: Send + Sync + 'static {
    /// Atomically records `id` unless it is recorded already. The record lives at least until
    /// `expires_at` (UNIX seconds); a record past its expiry counts as absent.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot answer; the id may or may not be recorded then, and
    /// the caller must not grant.
    fn spend<'a>(&'a self, id: &'a [u8], expires_at: u64) -> StoreFuture<'a>;

    /// The backend's name for logs and metrics.
    fn name(&self) -> &'static str;
}

const SPENT: TableDefinition<&[u8], u64> = TableDefinition::new("spent");

/// The embedded store: a `redb` database file, one write transaction per spend (redb
/// serializes write transactions, so the read and the insert are one atomic step), committed
/// durably before the answer.
pub struct RedbStore {
    db: Arc<Database>,
}

fn store_err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

impl RedbStore {
    /// Opens (or creates) the database at `path`.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be opened or initialized.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let db = Database::create(path).map_err(store_err)?;
        let txn = db.begin_write().map_err(store_err)?;
        txn.open_table(SPENT).map_err(store_err)?;
        txn.commit().map_err(store_err)?;
        Ok(Self { db: Arc::new(db) })
    }

    fn spend_blocking(
        db: &Database,
        id: &[u8],
        expires_at: u64,
        now: u64,
    ) -> Result<Spend, StoreError> {
        let mut txn = db.begin_write().map_err(store_err)?;
        txn.set_durability(Durability::Immediate);
        let outcome = {
            let mut table = txn.open_table(SPENT).map_err(store_err)?;
            let live = table
                .get(id)
                .map_err(store_err)?
                .is_some_and(|e| e.value() > now);
            if live {
                Spend::AlreadySpent
            } else {
                table.insert(id, expires_at).map_err(store_err)?;
                Spend::Fresh
            }
        };
        if outcome == Spend::Fresh {
            txn.commit().map_err(store_err)?;
        } else {
            txn.abort().map_err(store_err)?;
        }
        Ok(outcome)
    }

    /// Deletes the records that expired before `now`; returns how many.
    ///
    /// # Errors
    /// [`StoreError`] on a database error.
    pub fn sweep(&self, now: u64) -> Result<u64, StoreError> {
        let txn = self.db.begin_write().map_err(store_err)?;
        let mut removed = 0u64;
        {
            let mut table = txn.open_table(SPENT).map_err(store_err)?;
            table
                .retain(|_, exp| {
                    let keep = exp > now;
                    removed += u64::from(!keep);
                    keep
                })
                .map_err(store_err)?;
        }
        txn.commit().map_err(store_err)?;
        Ok(removed)
    }
}

impl SpentStore for RedbStore {
    fn spend<'a>(&'a self, id: &'a [u8], expires_at: u64) -> StoreFuture<'a> {
        let db = self.db.clone();
        let id = id.to_vec();
        Box::pin(async move {
            let now = crate::unix_now();
            tokio::task::spawn_blocking(move || Self::spend_blocking(&db, &id, expires_at, now))
                .await
                .map_err(store_err)?
        })
    }

    fn name(&self) -> &'static str {
        "redb"
    }
}

/// Redis (or any server speaking its protocol): `SET <prefix ‖ id> 1 NX EXAT <expires_at>`,
/// one command per spend, so any number of instances behind one issuer name share one set.
/// Single-key commands work unchanged on Redis Cluster. Durability is Redis's: run it with
/// `appendonly yes` and `appendfsync always` if a crash must not forget spent tokens.
pub struct RedisStore {
    conn: redis::aio::ConnectionManager,
    prefix: Vec<u8>,
}

impl RedisStore {
    /// Connects to `url` (`redis://`, `redis+unix:///path`); commands time out after
    /// `timeout`.
    ///
    /// # Errors
    /// [`StoreError`] for a bad URL or when the first connection fails.
    pub async fn connect(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(store_err)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let conn = redis::aio::ConnectionManager::new_with_config(client, config)
            .await
            .map_err(store_err)?;
        Ok(Self {
            conn,
            prefix: b"pts:spent:".to_vec(),
        })
    }
}

impl SpentStore for RedisStore {
    fn spend<'a>(&'a self, id: &'a [u8], expires_at: u64) -> StoreFuture<'a> {
        Box::pin(async move {
            // Redis drops a key written with an expiry in the past at once: such a token's key
            // has expired, and the caller refuses it before spending; refuse here too.
            if expires_at <= crate::unix_now() {
                return Err(StoreError("expiry in the past".into()));
            }
            let mut key = Vec::with_capacity(self.prefix.len() + id.len());
            key.extend_from_slice(&self.prefix);
            key.extend_from_slice(id);
            let mut conn = self.conn.clone();
            let reply: Option<String> = redis::cmd("SET")
                .arg(key)
                .arg(1)
                .arg("NX")
                .arg("EXAT")
                .arg(expires_at)
                .query_async(&mut conn)
                .await
                .map_err(store_err)?;
            match reply.as_deref() {
                Some("OK") => Ok(Spend::Fresh),
                None => Ok(Spend::AlreadySpent),
                Some(other) => Err(StoreError(format!("unexpected reply {other:?}"))),
            }
        })
    }

    fn name(&self) -> &'static str {
        "redis"
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
        {
            let s = RedbStore::open(&path).unwrap();
            assert_eq!(s.spend(b"a", far).await.unwrap(), Spend::Fresh);
            assert_eq!(s.spend(b"a", far).await.unwrap(), Spend::AlreadySpent);
            assert_eq!(s.spend(b"b", far).await.unwrap(), Spend::Fresh);
            // A record past its expiry counts as absent, and the sweep removes it.
            assert_eq!(s.spend(b"old", 1).await.unwrap(), Spend::Fresh);
            assert_eq!(s.spend(b"old", far).await.unwrap(), Spend::Fresh);
            assert_eq!(s.spend(b"gone", 1).await.unwrap(), Spend::Fresh);
            assert_eq!(s.sweep(crate::unix_now()).unwrap(), 1);
        }
        let s = RedbStore::open(&path).unwrap();
        for id in [&b"a"[..], b"b", b"old"] {
            assert_eq!(s.spend(id, far).await.unwrap(), Spend::AlreadySpent);
        }
    }
}
