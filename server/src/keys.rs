//! The master secret and the keys derived from it, per token type and epoch.
//!
//! # Derivation (domain-separated)
//! `PRK = HKDF-Extract(salt = "privacy-tokens-server/v1", IKM = master secret)` (HKDF-SHA256,
//! RFC 5869), then for each key `HKDF-Expand(PRK, info, L)` with
//! `info = "privacy-tokens-server/v1/" ‖ label ‖ 0x00 ‖ schedule ‖ u64 epoch ‖ u32 attempt`
//! (big-endian integers), where `schedule` binds the key schedule into every token key:
//! `u64 keys.lifetime_secs ‖ u64 keys.redeem_epochs` for the Privacy Pass keys,
//! `u64 pst.key_lifetime_secs ‖ u64 pst.key_id_offset` for the PST keys, and is empty for the
//! subkeys and the fingerprint. A schedule change therefore replaces every key of its kind, and
//! no schedule can recreate another's key (an epoch number recurring under another period
//! names another key). `label` is one of:
//!
//! | label | L | key |
//! | --- | --- | --- |
//! | `voprf-p384` | 48 | type 0x0001: `DeriveKeyPair(seed, "PrivacyPass")` (RFC 9578 §6.5, RFC 9497 §3.2.1) |
//! | `voprf-ristretto255` | 32 | type 0x0005: `DeriveKeyPair(seed, "PrivacyPass")` over ristretto255 |
//! | `arc-p256` | 128 | ARC `x0 ‖ x1 ‖ x2 ‖ x0Blinding`, a new attempt if a scalar is not canonical |
//! | `blind-rsa-2048` | 32 | type 0x0002: `SecretKey::from_seed(seed, 2048, plain primes)` (attempt 0) |
//! | `pbrsa-2048` | 32 | type 0xDA7A: `SecretKey::from_seed(seed, 2048, safe primes)` (attempt 0) |
//! | `act-p256` | 48 | ACT `PrivateKey::derive(seed, "privacy-tokens-server ACT")` (attempt 0) |
//! | `pst_v1_voprf`, `pst_v1_pmb` | 32 | `TRUST_TOKEN_derive_key_from_secret(method, key_id, seed)` |
//! | `challenge` | 32 | the HMAC key of the origin's redemption contexts (attempt 0, epoch 0) |
//! | `redemption-record` | 32 | the HMAC key of PST redemption records (attempt 0, epoch 0) |
//!
//! # Schedule
//! With period `P` (`keys.lifetime_secs`), epoch `e = floor(now / P)`. The key of epoch `k` has
//! `not-before = k·P`, issues until `(k+1)·P + issue_grace`, and redeems until
//! `expires_at = (k + 1 + R)·P` (`R = keys.redeem_epochs`). So the live keys at epoch `e` are
//! those of epochs `e-R ..= e+1` (the next key is published ahead), `N = R + 2` of them.
//!
//! # Truncated key ids
//! Requests name their key by one byte (`truncated_token_key_id`, RFC 9578 §5.1), so live keys
//! must differ in it. Attempts whose truncated id is not `≡ k (mod N)` are skipped; then any
//! `N` consecutive epochs (all the keys live at once) have distinct truncated ids, and each
//! key is found from the master secret and its epoch alone, with no state shared between
//! instances. PST keys use `epoch + pst.key_id_offset` (mod 2^32) as their u32 key id; the
//! offset keeps the ids growing when `pst.key_lifetime_secs` is raised (see
//! [`crate::history`], which refuses a start that would lower them).
//!
//! # RSA keys (types 0x0002 and 0xDA7A)
//! Derived like the others, not generated and stored: every instance holding the master secret
//! finds the same key of every epoch with no key file to copy, rotate or back up, and no
//! instance can serve a key the others do not know. `SecretKey::from_seed` is a fixed
//! derivation (the least prime at or above HKDF-derived starting points, pairs of primes tried in
//! a fixed order, the first whose truncated id is `≡ k (mod N)` kept), so the key does not
//! depend on the library's prime sieve or version. The cost is time: a plain RSA-2048 key takes
//! about 0.1 s, a safe-prime key (0xDA7A) several seconds, and about `N / 2` more primes for the
//! truncated-id rule (`examples/rsa_keygen.rs` measures it; figures in `docs/blind-rsa.md`).
//! So the keys of a ring are derived on parallel threads, a key already in the previous ring is
//! carried over rather than derived again, and the next rotation's ring is derived ahead in the
//! background ([`crate::AppState::spawn_rotation`]): only a start pays for every live key.
//!
//! Secrets: the master secret and every seed are `Zeroizing`; the library's key types zeroize
//! on drop. Only public keys leave this module.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use hkdf::Hkdf;
use privacy_tokens::act::{CredentialContext, PrivateKey as ActPrivateKey};
use privacy_tokens::arc::privacy_pass::Issuer as ArcIssuer;
use privacy_tokens::arc::{ArcV2P256, ServerPrivateKey};
use privacy_tokens::blind_rsa::privacy_pass::{Issuer as RsaIssuer, TokenKey as RsaTokenKey};
use privacy_tokens::blind_rsa::SecretKey as RsaSecretKey;
use privacy_tokens::trust_token::{self, derive_key_from_secret, Method};
use privacy_tokens::voprf::privacy_pass::generic::Issuer as GenericIssuer;
use privacy_tokens::voprf::privacy_pass::{TokenType, Type1, Type5};
use privacy_tokens::voprf::VoprfServer;
use rand::TryRng as _;
use sha2::{Digest as _, Sha256};
use zeroize::{Zeroize as _, Zeroizing};

use crate::config::{Config, KeySchedule};

/// The length of the master secret in bytes.
pub const MASTER_SECRET_LEN: usize = 32;
/// The name of the master secret file in the data directory.
pub const MASTER_SECRET_FILE: &str = "master.key";
const SALT: &[u8] = b"privacy-tokens-server/v1";
/// More attempts than this for one key means a broken derivation (each succeeds with
/// probability about 1/N).
const MAX_ATTEMPTS: u32 = 100_000;

/// The master secret every key is derived from. Zeroized on drop; `Debug` is redacted.
pub struct MasterSecret {
    /// `HKDF-Extract(salt, master secret)`.
    prk: Zeroizing<[u8; 32]>,
}

impl std::fmt::Debug for MasterSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterSecret(<redacted>)")
    }
}

/// A key-derivation failure.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// Reading or creating the master secret file failed.
    #[error("master secret file: {0}")]
    Io(#[from] std::io::Error),
    /// The master secret file has the wrong length or permissions, or exists at `init`.
    #[error("master secret file: {0}")]
    BadFile(String),
    /// The master secret file is absent.
    #[error("no master secret at {0}: create one with `privacy-tokens-server init --data-dir DIR` (once, then copy it to every instance)")]
    Missing(String),
    /// The library refused every derived candidate (not expected to happen).
    #[error("key derivation found no valid key for {0}")]
    Derivation(&'static str),
}

impl MasterSecret {
    /// The master secret from its bytes.
    pub fn from_bytes(bytes: &[u8; MASTER_SECRET_LEN]) -> Self {
        let (mut prk, _) = Hkdf::<Sha256>::extract(Some(SALT), bytes);
        let mut out = Zeroizing::new([0u8; 32]);
        out.copy_from_slice(&prk);
        let prk: &mut [u8] = &mut prk;
        prk.zeroize();
        Self { prk: out }
    }

    /// Creates `dir/master.key` (32 random bytes from the OS, mode 0600) and `dir` (mode 0700)
    /// if absent: written to a temporary file, synced, renamed into place and the directory
    /// synced, so a crash leaves either no key or the whole key. Refuses to replace an existing
    /// key.
    ///
    /// # Errors
    /// [`KeyError::BadFile`] when the key exists; [`KeyError::Io`] on a file error.
    pub fn create(dir: &Path) -> Result<Self, KeyError> {
        use std::os::unix::fs::DirBuilderExt as _;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let path = dir.join(MASTER_SECRET_FILE);
        if path.exists() {
            return Err(KeyError::BadFile(format!(
                "{} exists; init never replaces a master secret",
                path.display()
            )));
        }
        let mut secret = Zeroizing::new([0u8; MASTER_SECRET_LEN]);
        rand::rngs::SysRng
            .try_fill_bytes(secret.as_mut())
            .map_err(|e| std::io::Error::other(format!("OS RNG: {e}")))?;
        let tmp = dir.join(format!(".{MASTER_SECRET_FILE}.tmp.{}", std::process::id()));
        let written = (|| {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(secret.as_ref())?;
            f.sync_all()?;
            // A hard link fails if the key appeared meanwhile (no silent replacement).
            std::fs::hard_link(&tmp, &path)?;
            std::fs::remove_file(&tmp)?;
            std::fs::File::open(dir)?.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(e.into());
        }
        Ok(Self::from_bytes(&secret))
    }

    /// Reads `dir/master.key`; never creates it (`privacy-tokens-server init` does).
    ///
    /// # Errors
    /// [`KeyError::Missing`] when absent; [`KeyError::Io`] on a file error;
    /// [`KeyError::BadFile`] when the file is not 32 bytes or is readable by group or others.
    pub fn load(dir: &Path) -> Result<Self, KeyError> {
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.join(MASTER_SECRET_FILE);
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(KeyError::Missing(path.display().to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        let mode = meta.permissions().mode();
        if mode & 0o077 != 0 {
            return Err(KeyError::BadFile(format!(
                "{} has mode {:o}; it must be 0600 or 0400",
                path.display(),
                mode & 0o777
            )));
        }
        let bytes = Zeroizing::new(std::fs::read(&path)?);
        if bytes.len() != MASTER_SECRET_LEN {
            return Err(KeyError::BadFile(format!(
                "{} holds {} bytes, not {MASTER_SECRET_LEN} (a crash during a hand-made copy? \
                 restore it from the other instances)",
                path.display(),
                bytes.len()
            )));
        }
        let mut secret = Zeroizing::new([0u8; MASTER_SECRET_LEN]);
        secret.copy_from_slice(&bytes);
        Ok(Self::from_bytes(&secret))
    }

    /// A public fingerprint of the secret (16 hex digits, `HKDF-Expand(PRK, ".../fingerprint")`):
    /// instances that should share keys and show different fingerprints do not.
    pub fn fingerprint(&self) -> String {
        crate::hex::hex_lower(&self.expand::<8>("fingerprint", &[], 0, 0)[..])
    }

    /// `HKDF-Expand(PRK, "privacy-tokens-server/v1/" ‖ label ‖ 0 ‖ u64 schedule... ‖ u64 epoch
    /// ‖ u32 attempt, L)`.
    fn expand<const L: usize>(
        &self,
        label: &str,
        schedule: &[u64],
        epoch: u64,
        attempt: u32,
    ) -> Zeroizing<[u8; L]> {
        let mut info = Vec::with_capacity(SALT.len() + 1 + label.len() + 13 + 8 * schedule.len());
        info.extend_from_slice(SALT);
        info.push(b'/');
        info.extend_from_slice(label.as_bytes());
        info.push(0);
        for p in schedule {
            info.extend_from_slice(&p.to_be_bytes());
        }
        info.extend_from_slice(&epoch.to_be_bytes());
        info.extend_from_slice(&attempt.to_be_bytes());
        let mut out = Zeroizing::new([0u8; L]);
        // A 32-byte PRK is always accepted and L <= 255 * 32 for every caller, so neither step
        // can fail. (The transient HMAC state inside `hkdf` is not wiped: hkdf 0.12 has no
        // zeroize support; the PRK and the output are.)
        if let Ok(hk) = Hkdf::<Sha256>::from_prk(self.prk.as_ref()) {
            let _ = hk.expand(&info, out.as_mut());
        }
        out
    }

    /// A 32-byte subkey for a purpose other than token keys (`challenge`, `redemption-record`).
    pub fn subkey(&self, label: &str) -> Zeroizing<[u8; 32]> {
        self.expand::<32>(label, &[], 0, 0)
    }
}

/// The time window of a key: when it starts, stops issuing, and expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyTimes {
    /// The key's epoch.
    pub epoch: u64,
    /// UNIX seconds from which clients may use the key (`not-before`).
    pub not_before: u64,
    /// UNIX seconds until which the key issues.
    pub issue_until: u64,
    /// UNIX seconds until which the key redeems; spent records of its tokens live as long.
    pub expires_at: u64,
}

impl KeySchedule {
    /// The epoch of `now`.
    pub fn epoch(&self, now: u64) -> u64 {
        now / self.lifetime_secs
    }

    /// How many keys are live at once: `redeem_epochs + 2`.
    pub fn window(&self) -> u64 {
        self.redeem_epochs + 2
    }

    /// The times of the key of epoch `k`.
    pub fn times(&self, k: u64) -> KeyTimes {
        let p = self.lifetime_secs;
        KeyTimes {
            epoch: k,
            not_before: k.saturating_mul(p),
            issue_until: (k + 1).saturating_mul(p) + self.issue_grace_secs,
            expires_at: (k + 1 + self.redeem_epochs).saturating_mul(p),
        }
    }

    /// The epochs live at epoch `e`, oldest first: `e-R ..= e+1`.
    pub fn live_epochs(&self, e: u64) -> impl Iterator<Item = u64> {
        e.saturating_sub(self.redeem_epochs)..=e + 1
    }

    /// The parameters bound into the keys of this schedule: `[lifetime_secs, redeem_epochs]`
    /// (the issue grace moves no key).
    pub fn binding(&self) -> [u64; 2] {
        [self.lifetime_secs, self.redeem_epochs]
    }

    /// Seconds from `now` to the next rotation (at least 1).
    pub fn secs_to_rotation(&self, now: u64) -> u64 {
        ((self.epoch(now) + 1) * self.lifetime_secs)
            .saturating_sub(now)
            .max(1)
    }
}

/// A VOPRF token type the server serves: 0x0001 (P-384) or 0x0005 (ristretto255).
pub trait VoprfType: TokenType + 'static {
    /// The HKDF label of its keys.
    const LABEL: &'static str;
    /// The length of its `DeriveKeyPair` seed (at most 48).
    const SEED_LEN: usize;
    /// Its metrics label.
    const METRIC: &'static str;
    /// Its keys in a ring.
    fn keys(ring: &KeyRing) -> &[VoprfKey<Self>];
}

impl VoprfType for Type1 {
    const LABEL: &'static str = "voprf-p384";
    const SEED_LEN: usize = 48;
    const METRIC: &'static str = "1";
    fn keys(ring: &KeyRing) -> &[VoprfKey<Self>] {
        &ring.voprf
    }
}

impl VoprfType for Type5 {
    const LABEL: &'static str = "voprf-ristretto255";
    const SEED_LEN: usize = 32;
    const METRIC: &'static str = "5";
    fn keys(ring: &KeyRing) -> &[VoprfKey<Self>] {
        &ring.voprf5
    }
}

/// A VOPRF key (type 0x0001 unless said otherwise) of one epoch.
pub struct VoprfKey<T: TokenType = Type1> {
    /// Its schedule.
    pub times: KeyTimes,
    /// The library issuer (holds the secret key, zeroized on drop).
    pub issuer: GenericIssuer<T>,
}

/// An ARC (0xE5AC) key of one epoch.
pub struct ArcKey {
    /// Its schedule.
    pub times: KeyTimes,
    /// The library issuer (holds the secret key, zeroized on drop).
    pub issuer: ArcIssuer,
}

/// The Private State Token keys of one method: one library issuer holding every live key.
pub struct PstKeys {
    /// The method.
    pub method: Method,
    /// The issuer with the keys of every live epoch added.
    pub issuer: trust_token::Issuer,
    /// The live keys' times and public key blobs (`u32 key_id ‖ points`), oldest first.
    pub public: Vec<(KeyTimes, Vec<u8>)>,
}

/// Derives the VOPRF key of type `T` (0x0001 or 0x0005) of epoch `k`.
///
/// # Errors
/// [`KeyError::Derivation`] if no attempt gives a valid key in the slot.
pub fn derive_voprf<T: VoprfType>(
    master: &MasterSecret,
    schedule: &KeySchedule,
    k: u64,
    max_batch: u16,
) -> Result<VoprfKey<T>, KeyError> {
    let n = schedule.window();
    for attempt in 0..MAX_ATTEMPTS {
        let seed = master.expand::<48>(T::LABEL, &schedule.binding(), k, attempt);
        let Ok(server) = VoprfServer::derive(&seed[..T::SEED_LEN], b"PrivacyPass") else {
            continue;
        };
        let issuer = GenericIssuer::<T>::new(server).with_max_batch(max_batch);
        if u64::from(issuer.truncated_token_key_id()) % n == k % n {
            return Ok(VoprfKey {
                times: schedule.times(k),
                issuer,
            });
        }
    }
    Err(KeyError::Derivation(T::LABEL))
}

/// Derives the ARC key of epoch `k`.
///
/// # Errors
/// [`KeyError::Derivation`] if no attempt gives a valid key in the slot.
pub fn derive_arc(
    master: &MasterSecret,
    schedule: &KeySchedule,
    k: u64,
) -> Result<ArcKey, KeyError> {
    let n = schedule.window();
    for attempt in 0..MAX_ATTEMPTS {
        let seed = master.expand::<128>("arc-p256", &schedule.binding(), k, attempt);
        let Ok(key) = ServerPrivateKey::<ArcV2P256>::from_bytes(seed.as_ref()) else {
            continue;
        };
        let issuer = ArcIssuer::new(key);
        if u64::from(issuer.key_id()[31]) % n == k % n {
            return Ok(ArcKey {
                times: schedule.times(k),
                issuer,
            });
        }
    }
    Err(KeyError::Derivation("arc-p256"))
}

/// An ACT key of one epoch, with its credential context (`ctx_cred = "privacy-tokens ACT " ‖
/// epoch`, bound to the width `L` by `CredentialContext::with_width`).
pub struct ActKey {
    /// Its schedule: it issues in its own epoch only, and takes spends until `expires_at`.
    pub times: KeyTimes,
    /// The Moderator's key (zeroized on drop, `Debug` redacted).
    pub key: ActPrivateKey,
    /// `ctx_cred` as passed to `CredentialContext::with_width` (published).
    pub ctx_cred: Vec<u8>,
    /// The credential context of `ctx_cred` and `L`.
    pub ctx: CredentialContext,
    /// `SHA-256(pkM)`: names the key in requests and scopes its nullifiers.
    pub key_id: [u8; 32],
}

/// Derives the ACT key of epoch `k` for balances of `width` bits.
///
/// # Errors
/// [`KeyError::Derivation`] if the library refuses the seed or the width.
pub fn derive_act(
    master: &MasterSecret,
    schedule: &KeySchedule,
    width: u8,
    k: u64,
) -> Result<ActKey, KeyError> {
    const LABEL: &str = "act-p256";
    let seed = master.expand::<48>(LABEL, &schedule.binding(), k, 0);
    let key = ActPrivateKey::derive(&seed, b"privacy-tokens-server ACT")
        .map_err(|_| KeyError::Derivation(LABEL))?;
    let ctx_cred = format!("privacy-tokens ACT {k}").into_bytes();
    let ctx =
        CredentialContext::with_width(&ctx_cred, width).map_err(|_| KeyError::Derivation(LABEL))?;
    let key_id = Sha256::digest(key.public_key().to_bytes()).into();
    Ok(ActKey {
        times: schedule.times(k),
        key,
        ctx_cred,
        ctx,
        key_id,
    })
}

/// A blind RSA key (type 0x0002 or 0xDA7A) of one epoch.
pub struct RsaKey {
    /// Its time window.
    pub times: KeyTimes,
    /// The issuer with the key.
    pub issuer: RsaIssuer,
}

/// The HKDF label and the safe-prime flag of an RSA token type's keys.
fn rsa_label(token_type: u16) -> (&'static str, bool) {
    if token_type == crate::config::TYPE_PBRSA {
        ("pbrsa-2048", true)
    } else {
        ("blind-rsa-2048", false)
    }
}

/// Derives the RSA key of `token_type` (0x0002 or 0xDA7A) of epoch `k`: the first candidate of
/// `SecretKey::from_seed` whose truncated token key id is `≡ k (mod N)`.
///
/// # Errors
/// [`KeyError::Derivation`] if the library finds no such key.
pub fn derive_rsa(
    master: &MasterSecret,
    schedule: &KeySchedule,
    token_type: u16,
    k: u64,
) -> Result<RsaKey, KeyError> {
    let (label, safe) = rsa_label(token_type);
    let n = schedule.window();
    let seed = master.expand::<32>(label, &schedule.binding(), k, 0);
    let key = RsaSecretKey::from_seed(seed.as_ref(), 2048, safe, |pk| {
        RsaTokenKey::new(pk.clone()).is_ok_and(|t| u64::from(t.truncated_id()) % n == k % n)
    })
    .map_err(|_| KeyError::Derivation(label))?;
    let issuer = RsaIssuer::new(key).map_err(|_| KeyError::Derivation(label))?;
    Ok(RsaKey {
        times: schedule.times(k),
        issuer,
    })
}

/// The RSA keys of `token_type` live at epoch `e`, oldest first: those of `previous` carried
/// over, the others derived on one thread each.
fn derive_rsa_live(
    master: &MasterSecret,
    schedule: &KeySchedule,
    token_type: u16,
    e: u64,
    previous: &[std::sync::Arc<RsaKey>],
) -> Result<Vec<std::sync::Arc<RsaKey>>, KeyError> {
    std::thread::scope(|scope| {
        let jobs: Vec<_> = schedule
            .live_epochs(e)
            .map(|k| match previous.iter().find(|p| p.times.epoch == k) {
                Some(p) => Ok(p.clone()),
                None => Err(scope.spawn(move || derive_rsa(master, schedule, token_type, k))),
            })
            .collect();
        jobs.into_iter()
            .map(|j| match j {
                Ok(kept) => Ok(kept),
                Err(handle) => handle
                    .join()
                    .map_err(|_| KeyError::Derivation(rsa_label(token_type).0))?
                    .map(std::sync::Arc::new),
            })
            .collect()
    })
}

/// The u32 PST key id of epoch `k`: `k + offset` (mod 2^32).
pub fn pst_key_id(k: u64, offset: u32) -> u32 {
    (k as u32).wrapping_add(offset)
}

/// Derives the PST keys of `method` live at epoch `e` of `schedule` (whose window must fit
/// [`Method::max_keys`]), with key ids offset by `offset` (`pst.key_id_offset`).
///
/// # Errors
/// [`KeyError::Derivation`] if the library refuses a key.
pub fn derive_pst(
    master: &MasterSecret,
    schedule: &KeySchedule,
    method: Method,
    e: u64,
    offset: u32,
    max_batch: u16,
) -> Result<PstKeys, KeyError> {
    let mut issuer = trust_token::Issuer::new(method, max_batch);
    let mut public = Vec::new();
    let binding = [schedule.lifetime_secs, u64::from(offset)];
    for k in schedule.live_epochs(e) {
        let seed = master.expand::<32>(method.name(), &binding, k, 0);
        let (private, pk) = derive_key_from_secret(method, pst_key_id(k, offset), seed.as_ref())
            .map_err(|_| KeyError::Derivation("pst"))?;
        issuer
            .add_key(private)
            .map_err(|_| KeyError::Derivation("pst"))?;
        public.push((schedule.times(k), pk.to_bytes()));
    }
    Ok(PstKeys {
        method,
        issuer,
        public,
    })
}

/// Every key live at one moment.
pub struct KeyRing {
    /// The Privacy Pass epoch this ring was built for.
    pub epoch: u64,
    /// The PST epoch this ring was built for.
    pub pst_epoch: u64,
    /// Type 0x0001 keys of the live epochs, oldest first (empty if the type is off).
    pub voprf: Vec<VoprfKey>,
    /// Type 0x0005 keys of the live epochs, oldest first (empty if the type is off).
    pub voprf5: Vec<VoprfKey<Type5>>,
    /// ARC keys of the live epochs, oldest first (empty if the type is off).
    pub arc: Vec<ArcKey>,
    /// Type 0x0002 keys of the live epochs, oldest first (empty if the type is off).
    pub rsa: Vec<std::sync::Arc<RsaKey>>,
    /// Type 0xDA7A keys of the live epochs, oldest first (empty if the type is off).
    pub pbrsa: Vec<std::sync::Arc<RsaKey>>,
    /// PST keys per configured method.
    pub pst: Vec<PstKeys>,
    /// ACT keys of the live epochs, oldest first (empty unless `act.enabled`).
    pub act: Vec<ActKey>,
}

impl KeyRing {
    /// Derives every key live at `now`.
    ///
    /// # Errors
    /// [`KeyError::Derivation`] if the library refuses a key.
    pub fn derive(master: &MasterSecret, config: &Config, now: u64) -> Result<Self, KeyError> {
        Self::derive_after(master, config, now, None)
    }

    /// Derives every key live at `now`, carrying over the RSA keys of `previous` (a ring of
    /// the same master secret and configuration) that are still live.
    ///
    /// # Errors
    /// [`KeyError::Derivation`] if the library refuses a key.
    pub fn derive_after(
        master: &MasterSecret,
        config: &Config,
        now: u64,
        previous: Option<&KeyRing>,
    ) -> Result<Self, KeyError> {
        let s = &config.keys;
        let e = s.epoch(now);
        let pst_schedule = pst_schedule(config);
        let pst_epoch = pst_schedule.epoch(now);
        let mut ring = KeyRing {
            epoch: e,
            pst_epoch,
            voprf: Vec::new(),
            voprf5: Vec::new(),
            arc: Vec::new(),
            rsa: Vec::new(),
            pbrsa: Vec::new(),
            pst: Vec::new(),
            act: Vec::new(),
        };
        if config.token_types.contains(&crate::config::TYPE_BLIND_RSA) {
            let kept = previous.map_or(&[][..], |p| &p.rsa[..]);
            ring.rsa = derive_rsa_live(master, s, crate::config::TYPE_BLIND_RSA, e, kept)?;
        }
        if config.token_types.contains(&crate::config::TYPE_PBRSA) {
            let kept = previous.map_or(&[][..], |p| &p.pbrsa[..]);
            ring.pbrsa = derive_rsa_live(master, s, crate::config::TYPE_PBRSA, e, kept)?;
        }
        if config.token_types.contains(&crate::config::TYPE_VOPRF) {
            for k in s.live_epochs(e) {
                ring.voprf
                    .push(derive_voprf(master, s, k, config.max_batch)?);
            }
        }
        if config.token_types.contains(&crate::config::TYPE_VOPRF5) {
            for k in s.live_epochs(e) {
                ring.voprf5
                    .push(derive_voprf(master, s, k, config.max_batch)?);
            }
        }
        if config.token_types.contains(&crate::config::TYPE_ARC) {
            for k in s.live_epochs(e) {
                ring.arc.push(derive_arc(master, s, k)?);
            }
        }
        if config.act.enabled {
            for k in s.live_epochs(e) {
                ring.act.push(derive_act(master, s, config.act.width, k)?);
            }
        }
        for name in &config.pst_methods {
            let method = Method::from_name(name).ok_or(KeyError::Derivation("pst method"))?;
            ring.pst.push(derive_pst(
                master,
                &pst_schedule,
                method,
                pst_epoch,
                config.pst.key_id_offset,
                config.max_batch,
            )?);
        }
        Ok(ring)
    }

    /// Whether this ring is the one for `now`.
    pub fn is_current(&self, config: &Config, now: u64) -> bool {
        self.epoch == config.keys.epoch(now) && self.pst_epoch == pst_schedule(config).epoch(now)
    }
}

/// Seconds from `now` to the next rotation of any key (Privacy Pass or PST).
pub fn secs_to_next_change(config: &Config, now: u64) -> u64 {
    config
        .keys
        .secs_to_rotation(now)
        .min(pst_schedule(config).secs_to_rotation(now))
}

/// The PST schedule: `pst.key_lifetime_secs`, one epoch of redemption after issuing (PMB
/// issuers hold at most 3 keys: previous, current, next).
pub fn pst_schedule(config: &Config) -> KeySchedule {
    KeySchedule {
        lifetime_secs: config.pst.key_lifetime_secs,
        redeem_epochs: 1,
        issue_grace_secs: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule() -> KeySchedule {
        KeySchedule {
            lifetime_secs: 100,
            redeem_epochs: 1,
            issue_grace_secs: 10,
        }
    }

    /// A ring derived after another carries over the RSA keys both hold (the same `Arc`), and
    /// they equal what a fresh derivation gives (the control: a fresh ring's keys are equal
    /// but not shared); the new epoch's key is new.
    #[test]
    fn rsa_keys_are_carried_over_and_equal_a_fresh_derivation() {
        let master = MasterSecret::from_bytes(&[3; 32]);
        let mut config = Config::default();
        config.token_types = vec![crate::config::TYPE_BLIND_RSA];
        config.pst_methods.clear();
        let p = config.keys.lifetime_secs;
        let first = KeyRing::derive(&master, &config, 10 * p).unwrap(); // ok: test
        let next = KeyRing::derive_after(&master, &config, 11 * p, Some(&first)).unwrap(); // ok: test
        let fresh = KeyRing::derive(&master, &config, 11 * p).unwrap(); // ok: test
        let epochs = |r: &KeyRing| r.rsa.iter().map(|k| k.times.epoch).collect::<Vec<_>>();
        assert_eq!(epochs(&first), vec![9, 10, 11]);
        assert_eq!(epochs(&next), vec![10, 11, 12]);
        for (i, k) in next.rsa.iter().enumerate() {
            let spki = |k: &RsaKey| k.issuer.token_key().to_spki().to_vec();
            assert_eq!(spki(k), spki(&fresh.rsa[i]));
            assert!(!std::sync::Arc::ptr_eq(k, &fresh.rsa[i]));
            if i < 2 {
                assert!(std::sync::Arc::ptr_eq(k, &first.rsa[i + 1]));
            }
        }
        let n = config.keys.window();
        for k in &next.rsa {
            assert_eq!(
                u64::from(k.issuer.token_key().truncated_id()) % n,
                k.times.epoch % n
            );
        }
    }

    #[test]
    fn derivation_is_deterministic_and_domain_separated() {
        let m = MasterSecret::from_bytes(&[7; 32]);
        let a = m.expand::<32>("voprf-p384", &[], 5, 0);
        assert_eq!(a, m.expand::<32>("voprf-p384", &[], 5, 0));
        assert_ne!(a, m.expand::<32>("voprf-p384", &[], 6, 0));
        assert_ne!(a, m.expand::<32>("voprf-p384", &[], 5, 1));
        assert_ne!(a, m.expand::<32>("arc-p256", &[], 5, 0));
        assert_ne!(
            a,
            MasterSecret::from_bytes(&[8; 32]).expand::<32>("voprf-p384", &[], 5, 0)
        );
        let k1 = derive_voprf::<Type1>(&m, &schedule(), 5, 10).unwrap();
        let k2 = derive_voprf::<Type1>(&m, &schedule(), 5, 10).unwrap();
        assert_eq!(k1.issuer.token_key_id(), k2.issuer.token_key_id());
        assert_eq!(format!("{m:?}"), "MasterSecret(<redacted>)");
    }

    #[test]
    fn live_keys_never_share_a_truncated_id() {
        let m = MasterSecret::from_bytes(&[1; 32]);
        let s = schedule();
        let ids: Vec<u8> = (0..40)
            .map(|k| {
                derive_voprf::<Type1>(&m, &s, k, 10)
                    .unwrap()
                    .issuer
                    .truncated_token_key_id()
            })
            .collect();
        let arc: Vec<u8> = (0..40)
            .map(|k| derive_arc(&m, &s, k).unwrap().issuer.key_id()[31])
            .collect();
        for ids in [ids, arc] {
            for w in ids.windows(s.window() as usize) {
                let mut v = w.to_vec();
                v.sort_unstable();
                v.dedup();
                assert_eq!(v.len(), w.len(), "{w:?}");
            }
        }
    }

    /// The same epoch number under another schedule names another key (issue 19, defect 4):
    /// a period with `floor(t1/P1) = floor(t2/P2)` or another `redeem_epochs` must not recreate
    /// an old epoch's key, whose spent records may be gone.
    #[test]
    fn the_schedule_is_bound_into_every_token_key() {
        let m = MasterSecret::from_bytes(&[3; 32]);
        let a = schedule();
        let longer = KeySchedule {
            lifetime_secs: 101,
            ..a.clone()
        };
        let more_epochs = KeySchedule {
            redeem_epochs: 4,
            ..a.clone()
        };
        let grace = KeySchedule {
            issue_grace_secs: 99,
            ..a.clone()
        };
        for k in [5, 6, 7, 8, 9, 10] {
            let key = |s: &KeySchedule| {
                *derive_voprf::<Type1>(&m, s, k, 10)
                    .unwrap()
                    .issuer
                    .token_key_id()
            };
            let arc = |s: &KeySchedule| derive_arc(&m, s, k).unwrap().issuer.key_id().to_vec();
            for other in [&longer, &more_epochs] {
                assert_ne!(key(&a), key(other), "epoch {k}: {other:?}");
                assert_ne!(arc(&a), arc(other), "epoch {k}: {other:?}");
            }
            // The issue grace only moves when a key stops issuing.
            assert_eq!(key(&a), key(&grace));
            let pst = |s: &KeySchedule, offset| {
                derive_pst(&m, s, Method::PstV1Voprf, k, offset, 10)
                    .unwrap()
                    .public[1]
                    .1[4..]
                    .to_vec()
            };
            assert_ne!(pst(&a, 0), pst(&longer, 0), "PST epoch {k}");
            assert_ne!(pst(&a, 0), pst(&a, 7), "PST epoch {k}");
        }
    }

    /// ACT keys: the same from the same secret and epoch, another per epoch and per schedule;
    /// the width changes the context only.
    #[test]
    fn act_keys_are_derived_per_epoch() {
        let m = MasterSecret::from_bytes(&[5; 32]);
        let s = schedule();
        let a = derive_act(&m, &s, 16, 7).unwrap(); // ok: test
        let b = derive_act(&m, &s, 16, 7).unwrap(); // ok: test
        assert_eq!(a.key_id, b.key_id);
        assert_eq!(a.ctx, b.ctx);
        assert_eq!(a.ctx_cred, b"privacy-tokens ACT 7");
        assert_eq!(a.times, s.times(7));
        let next = derive_act(&m, &s, 16, 8).unwrap(); // ok: test
        assert_ne!(a.key_id, next.key_id);
        let longer = KeySchedule {
            lifetime_secs: 101,
            ..s.clone()
        };
        assert_ne!(a.key_id, derive_act(&m, &longer, 16, 7).unwrap().key_id); // ok: test
        let wide = derive_act(&m, &s, 32, 7).unwrap(); // ok: test
        assert_eq!(a.key_id, wide.key_id);
        assert_ne!(a.ctx, wide.ctx);
        assert!(derive_act(&m, &s, 65, 7).is_err());
        assert_eq!(format!("{:?}", a.key), "PrivateKey(<redacted>)");
    }

    #[test]
    fn schedule_times() {
        let s = schedule();
        assert_eq!(s.epoch(250), 2);
        assert_eq!(
            s.times(2),
            KeyTimes {
                epoch: 2,
                not_before: 200,
                issue_until: 310,
                expires_at: 400
            }
        );
        assert_eq!(s.live_epochs(2).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(s.live_epochs(0).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(s.secs_to_rotation(250), 50);
    }

    #[test]
    fn master_secret_file_is_created_0600_by_init_only_and_reloaded() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("data");
        assert!(matches!(MasterSecret::load(&d), Err(KeyError::Missing(_))));
        assert!(!d.join(MASTER_SECRET_FILE).exists());
        let a = MasterSecret::create(&d).unwrap();
        let path = d.join(MASTER_SECRET_FILE);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read(&path).unwrap().len(), 32);
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            1,
            "no temporary file left"
        );
        let before = std::fs::read(&path).unwrap();
        assert!(matches!(
            MasterSecret::create(&d),
            Err(KeyError::BadFile(_))
        ));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "init replaced the key"
        );
        let b = MasterSecret::load(&d).unwrap();
        assert_eq!(a.subkey("challenge"), b.subkey("challenge"));
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.fingerprint().len(), 16);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(MasterSecret::load(&d), Err(KeyError::BadFile(_))));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&path, [0u8; 5]).unwrap();
        assert!(matches!(MasterSecret::load(&d), Err(KeyError::BadFile(_))));
    }
}
