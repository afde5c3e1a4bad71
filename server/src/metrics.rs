//! Prometheus metrics (OpenMetrics text at `GET /metrics`).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// Labels naming a token type (`"1"`, `"58796"`, `"pst_v1_voprf"`, ...).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TypeLabel {
    /// The token type or PST method.
    pub token_type: String,
}

/// Labels of a redemption outcome.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RedeemLabel {
    /// The token type or PST method.
    pub token_type: String,
    /// `ok`, `invalid`, `double_spend`, `unknown_key`, `unknown_challenge` or `store_error`;
    /// for ACT spends also `replayed` (a recorded nullifier, answered with its refund) and
    /// `policy` (refused by `[act]` cost or top-up).
    pub result: String,
}

/// Labels of a request: its route and status.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabel {
    /// The matched route.
    pub route: String,
}

/// The label of the key fingerprint metric.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FingerprintLabel {
    /// The master secret's public fingerprint.
    pub fingerprint: String,
}

/// The label of the store id metric.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StoreLabel {
    /// The spent-token store's id ([`crate::marker::StoreMarker`]).
    pub store_id: String,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 100 µs to about 6.5 s.
    Histogram::new(exponential_buckets(0.0001, 2.0, 17))
}

/// Every metric the server exports.
pub struct Metrics {
    registry: Registry,
    /// Tokens issued (one per element of a batch), per type.
    pub issued: Family<TypeLabel, Counter>,
    /// Redemptions per type and outcome.
    pub redemptions: Family<RedeemLabel, Counter>,
    /// Tokens refused as already spent, per type.
    pub double_spend: Family<TypeLabel, Counter>,
    /// Spent-store errors.
    pub store_errors: Counter,
    /// Request latency per route, seconds.
    pub latency: HistogramFamily<RouteLabel>,
    /// Spent-store operation latency, seconds.
    pub store_latency: Histogram,
    /// 1, labelled with the master secret's fingerprint (instances that disagree split clients).
    pub fingerprint: Family<FingerprintLabel, Gauge>,
    /// 1, labelled with the spent-token store's id (instances that disagree are on different
    /// sets).
    pub store_info: Family<StoreLabel, Gauge>,
    /// The store's clock minus this instance's, seconds (Redis `TIME`; 0 for redb).
    pub clock_skew: Gauge,
    /// 1 while redemptions are refused because of that skew.
    pub clock_refusing: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let issued = Family::<TypeLabel, Counter>::default();
        let redemptions = Family::<RedeemLabel, Counter>::default();
        let double_spend = Family::<TypeLabel, Counter>::default();
        let store_errors = Counter::default();
        let latency: HistogramFamily<RouteLabel> = Family::new_with_constructor(latency_histogram);
        let store_latency = latency_histogram();
        let fingerprint = Family::<FingerprintLabel, Gauge>::default();
        registry.register(
            "pt_key_fingerprint",
            "1, labelled with the master secret's public fingerprint",
            fingerprint.clone(),
        );
        let store_info = Family::<StoreLabel, Gauge>::default();
        registry.register(
            "pt_store_info",
            "1, labelled with the spent-token store's id",
            store_info.clone(),
        );
        let clock_skew = Gauge::default();
        registry.register(
            "pt_clock_skew_seconds",
            "The spent-token store's clock minus this instance's",
            clock_skew.clone(),
        );
        let clock_refusing = Gauge::default();
        registry.register(
            "pt_clock_skew_refusing",
            "1 while redemptions are refused for clock skew beyond the limit",
            clock_refusing.clone(),
        );
        registry.register("pt_issued_tokens", "Tokens issued", issued.clone());
        registry.register(
            "pt_redemptions",
            "Redemption attempts by outcome",
            redemptions.clone(),
        );
        registry.register(
            "pt_double_spend_rejections",
            "Tokens refused because already spent",
            double_spend.clone(),
        );
        registry.register(
            "pt_store_errors",
            "Spent-token store errors",
            store_errors.clone(),
        );
        registry.register(
            "pt_request_seconds",
            "Request latency by route",
            latency.clone(),
        );
        registry.register(
            "pt_store_seconds",
            "Spent-token store latency",
            store_latency.clone(),
        );
        Self {
            registry,
            issued,
            redemptions,
            double_spend,
            store_errors,
            latency,
            store_latency,
            fingerprint,
            store_info,
            clock_skew,
            clock_refusing,
        }
    }
}

impl Metrics {
    /// Counts `n` tokens issued of `token_type`.
    pub fn issued(&self, token_type: &str, n: u64) {
        self.issued
            .get_or_create(&TypeLabel {
                token_type: token_type.into(),
            })
            .inc_by(n);
    }

    /// Counts one redemption outcome.
    pub fn redeemed(&self, token_type: &str, result: &str) {
        self.redemptions
            .get_or_create(&RedeemLabel {
                token_type: token_type.into(),
                result: result.into(),
            })
            .inc();
        if result == "double_spend" {
            self.double_spend
                .get_or_create(&TypeLabel {
                    token_type: token_type.into(),
                })
                .inc();
        }
    }

    /// Sets the store id metric.
    pub fn set_store_id(&self, id: &str) {
        self.store_info
            .get_or_create(&StoreLabel {
                store_id: id.into(),
            })
            .set(1);
    }

    /// Sets the key fingerprint metric.
    pub fn set_fingerprint(&self, fp: &str) {
        self.fingerprint
            .get_or_create(&FingerprintLabel {
                fingerprint: fp.into(),
            })
            .set(1);
    }

    /// The OpenMetrics text.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}
