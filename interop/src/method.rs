//! The five Trust Token methods (spec §1), all on P-384, which BoringSSL and AWS-LC both have.

/// A `TRUST_TOKEN_METHOD` of BoringSSL and AWS-LC (each library's table is its
/// `ffi::method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `TRUST_TOKEN_experiment_v1`: legacy PMB with length-prefixed points and SRR.
    ExperimentV1,
    /// `TRUST_TOKEN_experiment_v2_voprf` (Chrome `"PrivateStateTokenV3VOPRF"`).
    ExperimentV2Voprf,
    /// `TRUST_TOKEN_experiment_v2_pmb` (Chrome `"PrivateStateTokenV3PMB"`).
    ExperimentV2Pmb,
    /// `TRUST_TOKEN_pst_v1_voprf` (Chrome `"PrivateStateTokenV1VOPRF"`).
    PstV1Voprf,
    /// `TRUST_TOKEN_pst_v1_pmb` (Chrome `"PrivateStateTokenV1PMB"`).
    PstV1Pmb,
}

impl Method {
    /// The four methods Chrome still maps (PST v1 and experiment v2), current ones first.
    pub const CURRENT: [Self; 4] = [
        Self::PstV1Voprf,
        Self::PstV1Pmb,
        Self::ExperimentV2Voprf,
        Self::ExperimentV2Pmb,
    ];

    /// The libraries' function name for the method, also used in test and bench names.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ExperimentV1 => "experiment_v1",
            Self::ExperimentV2Voprf => "experiment_v2_voprf",
            Self::ExperimentV2Pmb => "experiment_v2_pmb",
            Self::PstV1Voprf => "pst_v1_voprf",
            Self::PstV1Pmb => "pst_v1_pmb",
        }
    }

    /// Whether the method carries a private metadata bit (the PMB methods).
    pub const fn has_private_bit(self) -> bool {
        !matches!(self, Self::ExperimentV2Voprf | Self::PstV1Voprf)
    }

    /// The most keys a client or issuer of this method accepts (`method->max_keys`).
    pub const fn max_keys(self) -> usize {
        match self {
            Self::ExperimentV2Voprf | Self::PstV1Voprf => 6,
            Self::ExperimentV1 | Self::ExperimentV2Pmb | Self::PstV1Pmb => 3,
        }
    }
}
