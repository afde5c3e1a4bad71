//! Each method's hash parameters (the XMD hash and the DSTs of `voprf.cc` and `pmbtoken.cc`)
//! and PMB's second generator `H` with its fixed-base table: what the protocols ([`super::voprf`],
//! [`super::pmb`]) and the key derivation ([`super::keys`]) all read, owned here so that the keys
//! do not import the protocols that import them.

use std::sync::OnceLock;

use crate::group::{self, Affine, Curve, FixedBaseTable, Xmd};

use super::{Method, C};

/// One VOPRF method's hashes.
pub(crate) struct VoprfParams {
    pub(crate) xmd: Xmd,
    pub(crate) h2g: &'static [u8],
    pub(crate) h2s: &'static [u8],
}

/// `voprf_pst1_*` (`voprf.cc:1182-1195`): RFC 9497 DSTs, no NUL.
const VOPRF_PST1: VoprfParams = VoprfParams {
    xmd: Xmd::Sha384,
    h2g: b"HashToGroup-OPRFV1-\x01-P384-SHA384",
    h2s: b"HashToScalar-OPRFV1-\x01-P384-SHA384",
};

/// `voprf_exp2_*` (`voprf.cc:1107-1119`): NUL-terminated DSTs, SHA-512.
const VOPRF_EXP2: VoprfParams = VoprfParams {
    xmd: Xmd::Sha512,
    h2g: b"TrustToken VOPRF Experiment V2 HashToGroup\0",
    h2s: b"TrustToken VOPRF Experiment V2 HashToScalar\0",
};

/// The VOPRF method's hashes (`PstV1Voprf` and `ExperimentV2Voprf`).
pub(crate) fn voprf_params(method: Method) -> &'static VoprfParams {
    match method {
        Method::ExperimentV2Voprf => &VOPRF_EXP2,
        _ => &VOPRF_PST1,
    }
}

/// One PMB method's hashes (`PMBTOKEN_METHOD`). The DSTs include the trailing C NUL
/// (`sizeof("...")` in BoringSSL).
pub(crate) struct PmbParams {
    pub(crate) xmd: Xmd,
    pub(crate) hash_t: &'static [u8],
    pub(crate) hash_s: &'static [u8],
    pub(crate) hash_c: &'static [u8],
    pub(crate) hash_to_scalar: &'static [u8],
    pub(crate) hash_h: &'static [u8],
}

/// `pmbtoken_pst1_*` (`pmbtoken.cc:1501-1544`): RFC 9380 SHA-384.
const PMB_PST1: PmbParams = PmbParams {
    xmd: Xmd::Sha384,
    hash_t: b"PMBTokens PST V1 HashT\0",
    hash_s: b"PMBTokens PST V1 HashS\0",
    hash_c: b"PMBTokens PST V1 HashC\0",
    hash_to_scalar: b"PMBTokens PST V1 HashToScalar\0",
    hash_h: b"PMBTokens PST V1 HashH\0",
};

/// `pmbtoken_exp1_*`: SHA-512 ("draft07"), "Experiment V1" labels.
const PMB_EXP1: PmbParams = PmbParams {
    xmd: Xmd::Sha512,
    hash_t: b"PMBTokens Experiment V1 HashT\0",
    hash_s: b"PMBTokens Experiment V1 HashS\0",
    hash_c: b"PMBTokens Experiment V1 HashC\0",
    hash_to_scalar: b"PMBTokens Experiment V1 HashToScalar\0",
    hash_h: b"PMBTokens Experiment V1 HashH\0",
};

/// `pmbtoken_exp2_*`: the same construction with SHA-512 ("draft07").
const PMB_EXP2: PmbParams = PmbParams {
    xmd: Xmd::Sha512,
    hash_t: b"PMBTokens Experiment V2 HashT\0",
    hash_s: b"PMBTokens Experiment V2 HashS\0",
    hash_c: b"PMBTokens Experiment V2 HashC\0",
    hash_to_scalar: b"PMBTokens Experiment V2 HashToScalar\0",
    hash_h: b"PMBTokens Experiment V2 HashH\0",
};

/// The PMB method's hashes (`PstV1Pmb`, `ExperimentV2Pmb` and `ExperimentV1`).
pub(crate) fn pmb_params(method: Method) -> &'static PmbParams {
    match method {
        Method::ExperimentV2Pmb => &PMB_EXP2,
        Method::ExperimentV1 => &PMB_EXP1,
        _ => &PMB_PST1,
    }
}

/// The second generator `H = HashToCurve("generator\0")` under the method's `HashH` DST (the
/// `kH` constants of `pmbtoken.cc`), computed once per process.
pub(crate) fn generator_h(method: Method) -> &'static Affine<C> {
    static PST1_H: OnceLock<Affine<C>> = OnceLock::new();
    static EXP2_H: OnceLock<Affine<C>> = OnceLock::new();
    static EXP1_H: OnceLock<Affine<C>> = OnceLock::new();
    let cell = match method {
        Method::ExperimentV2Pmb => &EXP2_H,
        Method::ExperimentV1 => &EXP1_H,
        _ => &PST1_H,
    };
    cell.get_or_init(|| {
        let p = pmb_params(method);
        // The DSTs are short constants: hashing cannot fail.
        C::hash_to_curve(p.xmd, &[b"generator\0"], &[p.hash_h])
            .map(|h| h.to_affine())
            .unwrap_or_else(|_| group::affine_identity::<C>())
    })
}

/// The table of `H` for fixed-base multiplication, built once per process.
pub(crate) fn h_table(method: Method) -> &'static FixedBaseTable<C> {
    static PST1_T: OnceLock<FixedBaseTable<C>> = OnceLock::new();
    static EXP2_T: OnceLock<FixedBaseTable<C>> = OnceLock::new();
    static EXP1_T: OnceLock<FixedBaseTable<C>> = OnceLock::new();
    let cell = match method {
        Method::ExperimentV2Pmb => &EXP2_T,
        Method::ExperimentV1 => &EXP1_T,
        _ => &PST1_T,
    };
    cell.get_or_init(|| FixedBaseTable::new_wide(generator_h(method)))
}
