//! The TOML configuration file: everything but the listen address, the data directory and the
//! Redis URL (those are command-line flags).

use std::path::Path;

use serde::Deserialize;

/// Privacy Pass token type 0x0001, VOPRF(P-384, SHA-384) (RFC 9578 §5).
pub const TYPE_VOPRF: u16 = privacy_tokens::voprf::privacy_pass::TOKEN_TYPE;
/// Privacy Pass token type 0x0005, VOPRF(ristretto255, SHA-512)
/// (draft-ietf-privacypass-batched-tokens).
pub const TYPE_VOPRF5: u16 = privacy_tokens::voprf::privacy_pass::type5::TOKEN_TYPE;
/// Privacy Pass token type 0xE5AC, ARC (P-256) (draft-ietf-privacypass-arc-protocol).
pub const TYPE_ARC: u16 = privacy_tokens::arc::privacy_pass::TOKEN_TYPE;
/// Privacy Pass token type 0x0002, blind RSA (RSABSSA-SHA384-PSS-Deterministic, RFC 9578 §6).
pub const TYPE_BLIND_RSA: u16 = privacy_tokens::blind_rsa::privacy_pass::TOKEN_TYPE_BLIND_RSA;
/// Privacy Pass token type 0xDA7A, partially blind RSA with public metadata (extensions,
/// draft-ietf-privacypass-public-metadata-issuance).
pub const TYPE_PBRSA: u16 = privacy_tokens::blind_rsa::privacy_pass::TOKEN_TYPE_PARTIALLY_BLIND_RSA;

/// The server configuration. Every field has a default, so an empty file (or none) is valid.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The issuer name that challenges carry (`issuer_name`, RFC 9577 §2.1), normally the host
    /// clients reach this server at.
    pub issuer_name: String,
    /// The origin's `origin_info` in challenges (RFC 9577 §2.1); empty for any origin.
    pub origin_info: String,
    /// The Privacy Pass token types served: 1 (VOPRF P-384), 5 (VOPRF ristretto255), 2 (blind
    /// RSA), 55930 (0xDA7A, partially blind RSA with extensions) and/or 58796 (0xE5AC, ARC).
    /// The RSA types are off by default: their keys take a while to derive at start (see
    /// [`crate::keys`]).
    pub token_types: Vec<u16>,
    /// The Private State Token methods served: `"pst_v1_voprf"` and/or `"pst_v1_pmb"`.
    pub pst_methods: Vec<String>,
    /// The most tokens one amortized batch or one PST issuance may ask for.
    pub max_batch: u16,
    /// The key schedule of the Privacy Pass token types.
    pub keys: KeySchedule,
    /// The origin's challenges.
    pub challenge: ChallengeConfig,
    /// ARC (0xE5AC) options.
    pub arc: ArcConfig,
    /// Type 0xDA7A options (its extensions).
    pub pbrsa: PbrsaConfig,
    /// Private State Token options.
    pub pst: PstConfig,
    /// Spent-token store options.
    pub store: StoreConfig,
    /// Who may obtain tokens (required: see [`crate::gate`]).
    pub issuance: IssuanceConfig,
    /// Bounds on the curve work ([`crate::pool`]).
    pub limits: LimitsConfig,
    /// ACT (Anonymous Credit Tokens) options ([`crate::act`]).
    pub act: ActConfig,
}

/// ACT options: the credential width, what an issuance credits and what a spend costs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ActConfig {
    /// Serve `/.well-known/act-configuration`, `/act/issue` and `/act/spend`.
    pub enabled: bool,
    /// The balance width `L` (1 to 64): balances and amounts are below `2^L`.
    pub width: u8,
    /// Credits per issuance (below `2^L`).
    pub issue_credits: u64,
    /// Credits charged per spend: a spend of `s < cost` is refused (403).
    pub cost: u64,
    /// The largest top-up `a` a spend may ask for (0: a spend with `a != 0` is refused).
    pub max_top_up: u64,
}

impl Default for ActConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            width: 16,
            issue_credits: 100,
            cost: 1,
            max_top_up: 0,
        }
    }
}

impl ActConfig {
    /// Checks the width and that every amount fits it.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming the first bad value.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(1..=privacy_tokens::act::MAX_BIT_LENGTH).contains(&self.width) {
            return Err(ConfigError::Invalid("act.width must be 1 to 64".into()));
        }
        let limit = 1u128 << self.width;
        for (name, v) in [
            ("issue_credits", self.issue_credits),
            ("cost", self.cost),
            ("max_top_up", self.max_top_up),
        ] {
            if u128::from(v) >= limit {
                return Err(ConfigError::Invalid(format!(
                    "act.{name} must be below 2^act.width (2^{})",
                    self.width
                )));
            }
        }
        // The refund is `s - cost + a`: a spend must cost something (`cost >= 1`), and a
        // top-up below the cost keeps every spend a net charge of `cost - a >= 1`; a top-up of
        // `cost` or more would mint credits on every spend (nothing else charges for `a`).
        if self.cost == 0 {
            return Err(ConfigError::Invalid("act.cost must be at least 1".into()));
        }
        if self.max_top_up >= self.cost {
            return Err(ConfigError::Invalid(
                "act.max_top_up must be below act.cost (a top-up of cost or more mints credits)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The longest body `/act/issue` or `/act/spend` reads: a key id and the longest spend
    /// message a policy could accept (a top-up only when `max_top_up > 0`).
    pub fn max_body_bytes(&self) -> usize {
        use privacy_tokens::act::Spend;
        let l = self.width;
        let longest = Spend::encoded_len_for(l, 1, u64::from(self.max_top_up > 0))
            .max(Spend::encoded_len_for(l, 0, 0));
        32 + longest
    }
}

/// Bounds on the curve work.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Jobs (issuance, verification) running at once; 0 means one per CPU.
    pub crypto_threads: usize,
    /// Jobs waiting beyond those; more are answered 503 with `Retry-After: 1`.
    pub crypto_queue: usize,
    /// Seconds a connection has to send a whole request header, counted from its opening and,
    /// on a kept-alive connection, from the end of the previous response (so it is also the
    /// keep-alive idle timeout); then the connection is closed (1 to 300).
    pub header_read_timeout_secs: u64,
    /// Connections served at once; further ones wait in the listen backlog until one closes
    /// (at least 1; keep it below the process's open-file limit).
    pub max_connections: usize,
    /// Seconds a graceful shutdown waits for open connections to finish their requests before
    /// closing them (1 to 300).
    pub shutdown_grace_secs: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            crypto_threads: 0,
            crypto_queue: 64,
            header_read_timeout_secs: 10,
            max_connections: 10_000,
            shutdown_grace_secs: 35,
        }
    }
}

impl LimitsConfig {
    /// The number of concurrent jobs.
    pub fn threads(&self) -> usize {
        match self.crypto_threads {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        }
    }
}

/// How issuance is gated.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum IssuanceAuth {
    /// Anyone may obtain any number of tokens.
    Open,
    /// Bearer API keys from `api_keys_file`, with per-key quotas.
    ApiKeys,
}

/// The issuance gate's options.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IssuanceConfig {
    /// `"api-keys"` or `"open"`; no default.
    pub auth: Option<IssuanceAuth>,
    /// The API keys file (`name sha256hex quota` lines) of `auth = "api-keys"`.
    pub api_keys_file: Option<std::path::PathBuf>,
}

/// Seconds a spent record outlives its key's last redemption instant, by default: well above
/// any sane clock skew between instances and the store, plus the request and store timeouts.
pub const DEFAULT_MARGIN_SECS: u64 = 3600;

/// Spent-token store options.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// Seconds a spent record is kept past its key's last redemption instant: at least the
    /// largest clock skew between instances and the store plus the request timeout (30 s).
    pub spent_margin_secs: u64,
    /// Microseconds the embedded store's first spend of a group commit waits for others to
    /// join its transaction (0 to 10000; 0 commits what is queued at once).
    pub group_commit_wait_us: u64,
    /// A file holding the Redis password (trailing newline ignored), so it is not in the
    /// `--redis` URL (visible in `ps`). Without it, the environment variable
    /// `PT_REDIS_PASSWORD` is read; without either, the URL's password, if any.
    pub redis_password_file: Option<std::path::PathBuf>,
    /// PEM CA certificates trusted for a `rediss://` server (instead of the system's roots).
    pub redis_ca_file: Option<std::path::PathBuf>,
    /// With `--redis` (one primary with replicas): after each fresh spend, `WAIT` until this
    /// many replicas acknowledged it; fewer within `redis_wait_timeout_ms` answers 503 (nothing
    /// granted). 0 (the default) does not wait: a failover can lose an acknowledged spend.
    pub redis_wait_replicas: u32,
    /// Milliseconds `WAIT` waits for the replicas (1 to 1500, below the 2 s command timeout).
    pub redis_wait_timeout_ms: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        Self {
            spent_margin_secs: DEFAULT_MARGIN_SECS,
            group_commit_wait_us: 1000,
            redis_password_file: None,
            redis_ca_file: None,
            redis_wait_replicas: 0,
            redis_wait_timeout_ms: 500,
        }
    }
}

/// A key schedule: keys rotate every `lifetime_secs`; a key stays valid for redemption
/// `redeem_epochs` rotations after it stops issuing.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KeySchedule {
    /// Seconds between rotations (the epoch length). Each key issues for one epoch.
    pub lifetime_secs: u64,
    /// Epochs after its own during which a key still redeems (1 to 4).
    pub redeem_epochs: u64,
    /// Seconds into the next epoch during which the previous key still issues (clients whose
    /// directory was fetched just before the rotation).
    pub issue_grace_secs: u64,
}

/// The origin's challenges (RFC 9577 §2.1).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChallengeConfig {
    /// Seconds a challenge stays valid. Its `redemption_context` is derived from the master
    /// secret and the time window, so every instance issues and accepts the same challenges
    /// without shared state; the current and the previous window are accepted. 0 issues
    /// challenges with an empty `redemption_context` that never change.
    pub lifetime_secs: u64,
}

/// ARC options.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArcConfig {
    /// The presentation limit per challenge (`rate-limit`, at least 2).
    pub rate_limit: u32,
}

/// Type 0xDA7A options: which extensions the issuer signs and the origin accepts.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PbrsaConfig {
    /// The extension types allowed (each extension of a request or token must be of one of
    /// them); absent: any type.
    pub allowed_extension_types: Option<Vec<u16>>,
    /// The longest encoded `Extensions` taken (its 2-byte length prefix included), at most
    /// 65537; a longer request is refused before it is read.
    pub max_extensions_bytes: usize,
}

impl Default for PbrsaConfig {
    fn default() -> Self {
        Self {
            allowed_extension_types: None,
            max_extensions_bytes: 1024,
        }
    }
}

impl PbrsaConfig {
    /// Whether every extension of `e` is of an allowed type.
    pub fn allows(&self, e: &privacy_tokens::blind_rsa::privacy_pass::Extensions) -> bool {
        e.as_bytes().len() <= self.max_extensions_bytes
            && self
                .allowed_extension_types
                .as_ref()
                .is_none_or(|allowed| e.list().iter().all(|x| allowed.contains(&x.extension_type)))
    }
}

/// Private State Token options.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PstConfig {
    /// Seconds between PST key rotations (Chrome ignores commitments changing more often than
    /// every 60 days).
    pub key_lifetime_secs: u64,
    /// The private metadata bit set on issued PMB tokens.
    pub private_metadata: bool,
    /// Added to the epoch number to make the u32 PST key ids (and the commitment `id`). Raise
    /// it with `key_lifetime_secs` so the ids keep growing: a start that would lower them is
    /// refused and names the value to set.
    pub key_id_offset: u32,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            issuer_name: "issuer.example".into(),
            origin_info: String::new(),
            token_types: vec![TYPE_VOPRF, TYPE_VOPRF5, TYPE_ARC],
            pst_methods: vec!["pst_v1_voprf".into(), "pst_v1_pmb".into()],
            max_batch: 100,
            keys: KeySchedule::default(),
            challenge: ChallengeConfig::default(),
            arc: ArcConfig::default(),
            pbrsa: PbrsaConfig::default(),
            pst: PstConfig::default(),
            store: StoreConfig::default(),
            issuance: IssuanceConfig::default(),
            limits: LimitsConfig::default(),
            act: ActConfig::default(),
        }
    }
}

impl Default for KeySchedule {
    fn default() -> Self {
        Self {
            lifetime_secs: 86_400,
            redeem_epochs: 1,
            issue_grace_secs: 300,
        }
    }
}

impl Default for ChallengeConfig {
    fn default() -> Self {
        Self {
            lifetime_secs: 3600,
        }
    }
}

impl Default for ArcConfig {
    fn default() -> Self {
        Self { rate_limit: 10 }
    }
}

impl Default for PstConfig {
    fn default() -> Self {
        Self {
            key_lifetime_secs: 60 * 86_400,
            private_metadata: false,
            key_id_offset: 0,
        }
    }
}

/// A configuration error.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("reading the config file: {0}")]
    Io(#[from] std::io::Error),
    /// The file is not valid TOML for [`Config`].
    #[error("parsing the config file: {0}")]
    Toml(#[from] toml::de::Error),
    /// A value is out of range.
    #[error("invalid config: {0}")]
    Invalid(String),
}

impl Config {
    /// Reads and checks a TOML file.
    ///
    /// # Errors
    /// [`ConfigError`] for an unreadable file, invalid TOML, or a value out of range.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        Self::from_toml(&std::fs::read_to_string(path)?)
    }

    /// Parses and checks TOML text.
    ///
    /// # Errors
    /// [`ConfigError`] for invalid TOML or a value out of range.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let config: Self = toml::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    /// Checks the ranges the server relies on.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming the first bad value.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: &str| Err(ConfigError::Invalid(m.into()));
        if self.issuer_name.is_empty() || self.issuer_name.len() > 1024 {
            return bad("issuer_name must be 1 to 1024 bytes");
        }
        if self.origin_info.len() > 4096 {
            return bad("origin_info must be at most 4096 bytes");
        }
        if let Some(t) = self.token_types.iter().find(|t| {
            ![
                TYPE_VOPRF,
                TYPE_VOPRF5,
                TYPE_BLIND_RSA,
                TYPE_PBRSA,
                TYPE_ARC,
            ]
            .contains(t)
        }) {
            return bad(&format!("unsupported token type {t}"));
        }
        if let Some(m) = self
            .pst_methods
            .iter()
            .find(|m| !["pst_v1_voprf", "pst_v1_pmb"].contains(&m.as_str()))
        {
            return bad(&format!("unsupported PST method {m:?}"));
        }
        if self.max_batch == 0
            || self.max_batch > privacy_tokens::voprf::privacy_pass::DEFAULT_MAX_BATCH
        {
            return bad("max_batch must be 1 to 256");
        }
        if self.keys.lifetime_secs < 2 || self.pst.key_lifetime_secs < 2 {
            return bad("key lifetimes must be at least 2 seconds");
        }
        if !(1..=4).contains(&self.keys.redeem_epochs) {
            return bad("keys.redeem_epochs must be 1 to 4");
        }
        if self.keys.issue_grace_secs >= self.keys.lifetime_secs {
            return bad("keys.issue_grace_secs must be shorter than keys.lifetime_secs");
        }
        match (self.issuance.auth, &self.issuance.api_keys_file) {
            (None, _) => {
                return bad("[issuance] auth must be set: \"api-keys\" with api_keys_file, or \"open\" (anyone may mint tokens)")
            }
            (Some(IssuanceAuth::ApiKeys), None) => {
                return bad("[issuance] auth = \"api-keys\" needs api_keys_file")
            }
            _ => {}
        }
        if self.store.group_commit_wait_us > 10_000 {
            return bad("store.group_commit_wait_us must be at most 10000");
        }
        if !(1..=300).contains(&self.limits.header_read_timeout_secs) {
            return bad("limits.header_read_timeout_secs must be 1 to 300");
        }
        if !(1..=300).contains(&self.limits.shutdown_grace_secs) {
            return bad("limits.shutdown_grace_secs must be 1 to 300");
        }
        if self.limits.max_connections == 0 {
            return bad("limits.max_connections must be at least 1");
        }
        if !(1..=1500).contains(&self.store.redis_wait_timeout_ms) {
            return bad("store.redis_wait_timeout_ms must be 1 to 1500");
        }
        if self.store.spent_margin_secs < 60 {
            return bad("store.spent_margin_secs must be at least 60");
        }
        if self.arc.rate_limit < 2 {
            return bad("arc.rate_limit must be at least 2");
        }
        if !(2..=65_537).contains(&self.pbrsa.max_extensions_bytes) {
            return bad("pbrsa.max_extensions_bytes must be 2 to 65537");
        }
        self.act.check()
    }

    /// The largest request body the issuer reads: a generic batch of `max_batch` of the largest
    /// requests it carries (type 0x0001's, or 0x0002's when that type is served), with room for
    /// its length prefix; an amortized batch of `max_batch` P-384 elements and its header is
    /// smaller; an RSA request (0xDA7A's with its longest extensions), when those types are
    /// served, may be larger.
    pub fn max_body_bytes(&self) -> usize {
        use privacy_tokens::voprf::privacy_pass::{NE, TOKEN_REQUEST_LEN};
        let rsa_request = privacy_tokens::blind_rsa::privacy_pass::TOKEN_REQUEST_LEN;
        let generic_entry = if self.token_types.contains(&TYPE_BLIND_RSA) {
            rsa_request.max(TOKEN_REQUEST_LEN)
        } else {
            TOKEN_REQUEST_LEN
        };
        let batch = 3 + 8 + usize::from(self.max_batch) * NE;
        let generic = 8 + usize::from(self.max_batch) * generic_entry;
        let rsa = if self.token_types.contains(&TYPE_PBRSA) {
            rsa_request + self.pbrsa.max_extensions_bytes
        } else if self.token_types.contains(&TYPE_BLIND_RSA) {
            rsa_request
        } else {
            0
        };
        let act = if self.act.enabled {
            self.act.max_body_bytes()
        } else {
            0
        };
        batch
            .max(generic)
            .max(rsa)
            .max(act)
            .max(privacy_tokens::arc::privacy_pass::CredentialRequest::LEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_is_the_default_and_bad_values_are_refused() {
        assert!(
            Config::from_toml("").is_err(),
            "issuance.auth has no default"
        );
        let c = Config::from_toml("[issuance]\nauth = \"open\"").unwrap();
        assert_eq!(c.token_types, vec![1, 5, 0xE5AC]);
        let c = Config::from_toml(
            "issuer_name = \"a.example\"\nmax_batch = 10\n[keys]\nlifetime_secs = 600\n[issuance]\nauth = \"open\"\n",
        )
        .unwrap();
        assert_eq!((c.max_batch, c.keys.lifetime_secs), (10, 600));
        let open = "\n[issuance]\nauth = \"open\"\n";
        for bad in [
            format!("token_types = [3]{open}"),
            format!("max_batch = 0{open}"),
            format!("pst_methods = [\"experiment_v1\"]{open}"),
            format!("[keys]\nredeem_epochs = 0{open}"),
            format!("[arc]\nrate_limit = 1{open}"),
            format!("[pbrsa]\nmax_extensions_bytes = 1{open}"),
            format!("unknown = 1{open}"),
            format!("issuer_name = \"\"{open}"),
            format!("[act]\nwidth = 0{open}"),
            format!("[act]\nwidth = 65{open}"),
            format!("[act]\nwidth = 8\nissue_credits = 256{open}"),
            format!("[act]\nwidth = 8\ncost = 256{open}"),
            format!("[act]\nwidth = 8\nmax_top_up = 256{open}"),
            format!("[act]\ncost = 0{open}"),
            format!("[act]\ncost = 3\nmax_top_up = 3{open}"),
            format!("[act]\nmax_top_up = 1{open}"),
            "[issuance]\nauth = \"api-keys\"".to_string(),
            "[issuance]\nauth = \"none\"".to_string(),
        ] {
            assert!(Config::from_toml(&bad).is_err(), "{bad}");
        }
        let c = Config::from_toml(&format!(
            "[act]\nenabled = true\nwidth = 8\nissue_credits = 255\ncost = 255\nmax_top_up = 254{open}"
        ))
        .unwrap();
        assert_eq!((c.act.width, c.act.issue_credits), (8, 255));
    }

    #[test]
    fn the_example_config_parses() {
        let c = Config::from_toml(include_str!("../config.example.toml")).unwrap();
        assert_eq!(c.origin_info, "origin.example");
        assert_eq!(c.pst.key_lifetime_secs, 60 * 86_400);
        assert_eq!(
            (c.act.enabled, c.act.width, c.act.issue_credits),
            (false, 16, 100)
        );
    }
}
