//! The key schedule history of an instance, `DIR/schedule.json`: which schedules it served
//! (the parameters bound into the keys, [`crate::keys`]), when, and the highest PST epoch it
//! published. `serve` checks it before serving and refuses:
//!
//! - a PST schedule change (`pst.key_lifetime_secs`, `pst.key_id_offset`) whose live key ids
//!   would not all be above every id published before: Chrome reads a lower commitment `id` as
//!   older, and an old id would name another key. The error names the `pst.key_id_offset` to set.
//! - a clock more than `store.spent_margin_secs` behind the last time it served: keys that
//!   expired then would redeem again while their spent records may have been swept.
//!
//! A change of `keys.lifetime_secs` or `keys.redeem_epochs` replaces every Privacy Pass key (a
//! warning is logged); since the schedule is bound into the derivation it cannot bring back an
//! old key. The history is per instance: instances sharing a Redis must change their
//! configuration together.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::keys::pst_schedule;

/// The history file in the data directory.
pub const HISTORY_FILE: &str = "schedule.json";

/// Seconds ahead of `now` a recorded entry covers: rings are derived ahead of their rotation
/// (within `2 × 5 s + 30 s`) and the history is recorded every 5 s.
const AHEAD_SECS: u64 = 60;

/// A last-seen time this much older than now is refreshed on disk.
const REFRESH_SECS: u64 = 300;

/// One schedule an instance served.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// `keys.lifetime_secs`.
    pub lifetime_secs: u64,
    /// `keys.redeem_epochs`.
    pub redeem_epochs: u64,
    /// `pst.key_lifetime_secs`.
    pub pst_key_lifetime_secs: u64,
    /// `pst.key_id_offset`.
    pub pst_key_id_offset: u32,
    /// UNIX seconds of its first start.
    pub first_seen: u64,
    /// UNIX seconds it was last seen serving.
    pub last_seen: u64,
    /// The highest PST epoch whose key it published (none when it served no PST method).
    pub max_pst_epoch: Option<u64>,
}

impl Entry {
    fn same_schedule(&self, c: &Config) -> bool {
        (
            self.lifetime_secs,
            self.redeem_epochs,
            self.pst_key_lifetime_secs,
            self.pst_key_id_offset,
        ) == (
            c.keys.lifetime_secs,
            c.keys.redeem_epochs,
            c.pst.key_lifetime_secs,
            c.pst.key_id_offset,
        )
    }

    fn same_pst_keys(&self, c: &Config) -> bool {
        (self.pst_key_lifetime_secs, self.pst_key_id_offset)
            == (c.pst.key_lifetime_secs, c.pst.key_id_offset)
    }

    /// The highest PST key id it published.
    fn max_pst_key_id(&self) -> Option<u64> {
        self.max_pst_epoch
            .map(|e| e + u64::from(self.pst_key_id_offset))
    }
}

/// A refusal or a file error.
#[derive(Debug, thiserror::Error)]
#[error("key schedule history {path}: {msg}")]
pub struct HistoryError {
    path: String,
    msg: String,
}

/// The history of one data directory.
#[derive(Debug)]
pub struct History {
    path: PathBuf,
    entries: Vec<Entry>,
}

impl History {
    /// Reads `dir/schedule.json` (an absent file is an empty history).
    ///
    /// # Errors
    /// [`HistoryError`] when it cannot be read or parsed.
    pub fn open(dir: &Path) -> Result<Self, HistoryError> {
        let path = dir.join(HISTORY_FILE);
        let entries = match std::fs::read(&path) {
            Ok(b) => serde_json::from_slice(&b).map_err(|e| err(&path, e.to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(err(&path, e.to_string())),
        };
        Ok(Self { path, entries })
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Whether serving `config` at `now` is safe (see the module doc); `Ok(true)` when the
    /// schedule differs from the last one served (every key of the changed kind is new).
    ///
    /// # Errors
    /// [`HistoryError`] naming the refusal.
    pub fn check(&self, config: &Config, now: u64) -> Result<bool, HistoryError> {
        let e = |msg: String| err(&self.path, msg);
        if let Some(last) = self.entries.iter().map(|x| x.last_seen).max() {
            if now.saturating_add(config.store.spent_margin_secs) < last {
                return Err(e(format!(
                    "the clock ({now}) is {} s behind the last time this instance served \
                     ({last}), more than store.spent_margin_secs = {}: keys that had expired \
                     would redeem again after their spent records were swept; fix the clock",
                    last - now,
                    config.store.spent_margin_secs
                )));
            }
        }
        if !config.pst_methods.is_empty() {
            let pst = pst_schedule(config);
            let offset = u64::from(config.pst.key_id_offset);
            let lowest = pst.epoch(now).saturating_sub(pst.redeem_epochs) + offset;
            let published = self
                .entries
                .iter()
                .filter(|x| !x.same_pst_keys(config))
                .filter_map(|x| x.max_pst_key_id().map(|id| (id, x)))
                .max_by_key(|(id, _)| *id);
            if let Some((max, was)) = published {
                if lowest <= max {
                    return Err(e(format!(
                        "pst.key_lifetime_secs = {} with pst.key_id_offset = {} would publish PST \
                         key ids from {lowest}, but ids up to {max} were published under \
                         pst.key_lifetime_secs = {}, pst.key_id_offset = {} (Chrome reads a lower \
                         commitment id as older, and an old id would name another key): set \
                         pst.key_id_offset = {} (or more)",
                        config.pst.key_lifetime_secs,
                        config.pst.key_id_offset,
                        was.pst_key_lifetime_secs,
                        was.pst_key_id_offset,
                        offset + (max - lowest) + 1
                    )));
                }
            }
        }
        Ok(self
            .entries
            .iter()
            .max_by_key(|x| x.last_seen)
            .is_some_and(|x| !x.same_schedule(config)))
    }

    /// Records that `config` is served at `now` (with the keys derived ahead of it), writing
    /// the file atomically when something changed that a later check reads.
    ///
    /// # Errors
    /// [`HistoryError`] when the file cannot be written.
    pub fn record(&mut self, config: &Config, now: u64) -> Result<(), HistoryError> {
        let pst = pst_schedule(config);
        let max_pst_epoch =
            (!config.pst_methods.is_empty()).then(|| pst.epoch(now + AHEAD_SECS) + 1);
        let changed = match self.entries.iter_mut().find(|x| x.same_schedule(config)) {
            Some(x) => {
                let grew = max_pst_epoch > x.max_pst_epoch;
                let stale = now >= x.last_seen + REFRESH_SECS;
                if grew {
                    x.max_pst_epoch = max_pst_epoch;
                }
                if grew || stale {
                    x.last_seen = x.last_seen.max(now);
                }
                grew || stale
            }
            None => {
                self.entries.push(Entry {
                    lifetime_secs: config.keys.lifetime_secs,
                    redeem_epochs: config.keys.redeem_epochs,
                    pst_key_lifetime_secs: config.pst.key_lifetime_secs,
                    pst_key_id_offset: config.pst.key_id_offset,
                    first_seen: now,
                    last_seen: now,
                    max_pst_epoch,
                });
                true
            }
        };
        if changed {
            self.write()?;
        }
        Ok(())
    }

    /// Writes to a temporary file, syncs it, renames it into place and syncs the directory.
    fn write(&self) -> Result<(), HistoryError> {
        let e = |x: std::io::Error| err(&self.path, x.to_string());
        let json =
            serde_json::to_vec_pretty(&self.entries).map_err(|x| err(&self.path, x.to_string()))?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let tmp = dir.join(format!(".{HISTORY_FILE}.tmp.{}", std::process::id()));
        let mut f = std::fs::File::create(&tmp).map_err(e)?;
        f.write_all(&json).map_err(e)?;
        f.sync_all().map_err(e)?;
        std::fs::rename(&tmp, &self.path).map_err(e)?;
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(e)
    }
}

fn err(path: &Path, msg: String) -> HistoryError {
    HistoryError {
        path: path.display().to_string(),
        msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = 86_400;

    fn config(pst_lifetime: u64, offset: u32) -> Config {
        let mut c = Config::default();
        c.pst.key_lifetime_secs = pst_lifetime;
        c.pst.key_id_offset = offset;
        c
    }

    #[test]
    fn a_clock_behind_the_last_start_by_more_than_the_margin_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::default();
        let now = 1_800_000_000;
        let mut h = History::open(dir.path()).unwrap();
        h.record(&c, now).unwrap();
        let h = History::open(dir.path()).unwrap();
        let margin = c.store.spent_margin_secs;
        assert!(h.check(&c, now - margin).is_ok());
        let refused = h.check(&c, now - margin - 1).unwrap_err().to_string();
        assert!(refused.contains("fix the clock"), "{refused}");
    }

    #[test]
    fn pst_key_ids_must_keep_growing_across_a_schedule_change() {
        let dir = tempfile::tempdir().unwrap();
        let now = 1_800_000_000;
        let mut h = History::open(dir.path()).unwrap();
        let sixty = config(60 * DAY, 0);
        assert!(!h.check(&sixty, now).unwrap());
        h.record(&sixty, now).unwrap();
        let published = now / (60 * DAY) + 1;
        // Lowering the period raises the epoch numbers: accepted (a new schedule).
        assert!(h.check(&config(30 * DAY, 0), now).unwrap());
        // Raising it lowers them: refused, naming the offset that keeps them growing.
        let ninety = config(90 * DAY, 0);
        let msg = h.check(&ninety, now).unwrap_err().to_string();
        let lowest = now / (90 * DAY) - 1;
        let needed = published - lowest + 1;
        assert!(
            msg.contains(&format!("set pst.key_id_offset = {needed} ")),
            "{msg}"
        );
        assert!(h.check(&config(90 * DAY, needed as u32 - 1), now).is_err());
        assert!(h.check(&config(90 * DAY, needed as u32), now).unwrap());
        // Recorded and reopened, the new schedule is the same schedule; the old one's ids
        // still bind later changes.
        h.record(&config(90 * DAY, needed as u32), now + 10)
            .unwrap();
        let h = History::open(dir.path()).unwrap();
        assert_eq!(h.entries().len(), 2);
        assert!(!h.check(&config(90 * DAY, needed as u32), now + 20).unwrap());
        assert!(h.check(&config(90 * DAY, 0), now + 20).is_err());
        // Without PST methods no PST id is published or checked.
        let mut off = config(90 * DAY, 0);
        off.pst_methods.clear();
        assert!(h.check(&off, now + 20).is_ok());
    }

    #[test]
    fn the_history_is_written_only_when_a_check_would_read_something_new() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::default();
        let now = 1_800_000_000;
        let mut h = History::open(dir.path()).unwrap();
        h.record(&c, now).unwrap();
        let path = dir.path().join(HISTORY_FILE);
        let first = std::fs::read(&path).unwrap();
        h.record(&c, now + 5).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), first);
        h.record(&c, now + REFRESH_SECS).unwrap();
        let e = &History::open(dir.path()).unwrap().entries[0];
        assert_eq!((e.first_seen, e.last_seen), (now, now + REFRESH_SECS));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
