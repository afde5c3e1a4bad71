//! The spent-token store's identity (review finding S1): a store that lacks it is refused.
//!
//! Keys are a pure function of `master.key`, the configuration and the clock; the spent set is
//! the only state that makes a token single-use. A new, emptied or replaced set (a lost
//! `spent.redb`, a switch from redb to Redis, another Redis database, a Redis restarted without
//! persistence) would accept again every token spent under the keys still live. So each set
//! carries a marker without expiry (redb: the `meta` table; Redis: `pts:meta:store`), holding a
//! random store id, the master secret's fingerprint and `valid_from`: tokens of keys that
//! started (`not_before`) before `valid_from` may have been spent elsewhere, and are refused.
//!
//! - `init` marks the embedded store of the new data directory with `valid_from = 0`: no token of
//!   a new master secret exists anywhere yet.
//! - `serve` reads the marker: one of this master secret serves; one of another master secret,
//!   or none, is refused (exit 1, the error names the ways out) unless
//! - `serve --new-spent-store` acknowledges a new set: it is marked with `valid_from = now`, so
//!   every token of a key live before now is refused (fail closed: no double spend, but clients
//!   need tokens of the next keys), or
//! - `serve --adopt-spent-store` marks it with `valid_from = 0`: the operator states it is the
//!   set this deployment has always used (the one-time upgrade from a version without markers), or
//! - `migrate-spent` copies the embedded set into Redis with its marker's `valid_from`, then
//!   removes the marker from the embedded file (serving on that file again needs the flag).

use serde::{Deserialize, Serialize};

use crate::store::{RedbStore, RedisStore, SpentStore, StoreError};

/// A spent-token set's identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreMarker {
    /// A random id (32 hex digits), exported as `pt_store_info{store_id}`: instances showing
    /// different ids are on different sets.
    pub store_id: String,
    /// The fingerprint of the master secret whose tokens the set holds.
    pub fingerprint: String,
    /// UNIX seconds: tokens of keys whose `not_before` is earlier are refused.
    pub valid_from: u64,
    /// UNIX seconds the marker was written.
    pub created_at: u64,
}

/// A refusal at start, or a store failure.
#[derive(Debug, thiserror::Error)]
pub enum MarkerError {
    /// The store answered with an error.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The store has no marker and the operator did not acknowledge a new set.
    #[error(
        "the {0} spent-token store has no marker: it is new, emptied or replaced, and tokens \
         already spent under the live keys would be accepted again. Copy the old set with \
         `privacy-tokens-server migrate-spent` (redb to Redis), or start once with \
         `--new-spent-store` (tokens of keys live before now are then refused until they expire); \
         a store used since before markers existed (an upgrade): `--adopt-spent-store` once"
    )]
    Unmarked(&'static str),
    /// The marker names another master secret.
    #[error(
        "the spent-token store belongs to the master secret {found}, not {ours}: use this \
         deployment's store"
    )]
    OtherDeployment {
        /// The marker's fingerprint.
        found: String,
        /// This master secret's.
        ours: String,
    },
    /// The marker is not ours to read.
    #[error("the spent-token store's marker is malformed: {0}")]
    Malformed(String),
}

impl StoreMarker {
    /// A new marker with a random id.
    pub fn new(fingerprint: &str, valid_from: u64, now: u64) -> Self {
        let id: [u8; 16] = rand::random();
        Self {
            store_id: crate::hex::hex_lower(&id),
            fingerprint: fingerprint.to_owned(),
            valid_from,
            created_at: now,
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        // A struct of strings and integers always serializes.
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// Reads the store's marker.
///
/// # Errors
/// [`MarkerError`] on a store error or a malformed marker.
pub async fn read(store: &dyn SpentStore) -> Result<Option<StoreMarker>, MarkerError> {
    match store.marker().await? {
        None => Ok(None),
        Some(b) => serde_json::from_slice(&b)
            .map(Some)
            .map_err(|e| MarkerError::Malformed(e.to_string())),
    }
}

/// Writes `marker` unless the store has one, and returns the store's marker then.
///
/// # Errors
/// [`MarkerError`] on a store error.
pub async fn put(store: &dyn SpentStore, marker: &StoreMarker) -> Result<StoreMarker, MarkerError> {
    if store.put_marker(&marker.to_bytes()).await? {
        return Ok(marker.clone());
    }
    read(store)
        .await?
        .ok_or_else(|| MarkerError::Malformed("the marker vanished while written".into()))
}

/// What `serve` does with a store that has no marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unmarked {
    /// Refuse to start (the default).
    Refuse,
    /// `--new-spent-store`: mark it with `valid_from = now` (tokens of older keys refused).
    New,
    /// `--adopt-spent-store`: the operator states it is the set this deployment has always
    /// used (an upgrade from a version without markers): mark it with `valid_from = 0`.
    Adopt,
}

/// The check of `serve` (see the module doc): the marker to serve with, or the refusal.
///
/// # Errors
/// [`MarkerError`] naming the refusal.
pub async fn check_at_start(
    store: &dyn SpentStore,
    fingerprint: &str,
    unmarked: Unmarked,
    now: u64,
) -> Result<StoreMarker, MarkerError> {
    let found = match read(store).await? {
        Some(m) => m,
        None if unmarked == Unmarked::Adopt => {
            let m = put(store, &StoreMarker::new(fingerprint, 0, now)).await?;
            tracing::warn!(
                store = store.name(),
                store_id = %m.store_id,
                "--adopt-spent-store: marked the existing spent-token set as this deployment's \
                 (valid_from = 0)"
            );
            m
        }
        None if unmarked == Unmarked::New => {
            let m = put(store, &StoreMarker::new(fingerprint, now, now)).await?;
            tracing::warn!(
                store = store.name(),
                store_id = %m.store_id,
                valid_from = m.valid_from,
                "--new-spent-store: marked a new spent-token set; tokens of keys live before \
                 valid_from are refused until they expire"
            );
            m
        }
        None => return Err(MarkerError::Unmarked(store.name())),
    };
    if found.fingerprint != fingerprint {
        return Err(MarkerError::OtherDeployment {
            found: found.fingerprint,
            ours: fingerprint.to_owned(),
        });
    }
    Ok(found)
}

/// Records copied per read of the embedded store.
const CHUNK: usize = 1000;

/// Copies the embedded set into Redis (`SET NX EXAT keep_until`, records already expired at
/// `now` skipped), then marks Redis with the embedded marker's `valid_from` and a new id, then
/// removes the embedded marker. Refused when Redis has a marker already or the embedded store
/// has none. A failure part-way leaves Redis unmarked (so refused by `serve`), and the copy can
/// be run again. Returns the records copied and the Redis marker.
///
/// # Errors
/// [`MarkerError`] naming the refusal or the store error.
pub async fn migrate(
    from: &RedbStore,
    to: &RedisStore,
    fingerprint: &str,
    now: u64,
) -> Result<(u64, StoreMarker), MarkerError> {
    let source = check_at_start(from, fingerprint, Unmarked::Refuse, now).await?;
    if read(to).await?.is_some() {
        return Err(MarkerError::Malformed(
            "the Redis store is marked already: migrate into an unmarked one".into(),
        ));
    }
    let (mut copied, mut after) = (0u64, None::<Vec<u8>>);
    loop {
        let records = from.records_after(after.as_deref(), CHUNK)?;
        let Some((last, _, _)) = records.last() else {
            break;
        };
        after = Some(last.clone());
        for (id, keep_until, value) in records.iter().filter(|(_, k, _)| *k > now) {
            to.copy_record(id, *keep_until, value.as_deref()).await?;
            copied += 1;
        }
    }
    let marker = put(to, &StoreMarker::new(fingerprint, source.valid_from, now)).await?;
    from.remove_marker()?;
    Ok((copied, marker))
}
