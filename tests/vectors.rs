//! Every vector file under `test-vectors/` is claimed by a runner and passes; zero cases fail.

#[path = "support/runner.rs"]
mod runner;

use std::path::Path;

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-vectors")
}

fn replay(name: &str) -> runner::Counts {
    let (_, c) = runner::replay_file(&dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        c.failures.is_empty() && c.failed == 0,
        "{name}: {:#?}",
        c.failures
    );
    c
}

#[test]
fn rfc9497_all_p256_p384_vectors() {
    let c = replay("rfc9497-voprf.json");
    // 8 vectors per suite (OPRF 2, VOPRF 3, POPRF 3), P-256 and P-384.
    assert_eq!(c.passed, 16, "{c:?}");
    assert_eq!(c.skipped, 24);
}

#[test]
fn swift_crypto_edge_cases() {
    let c = replay("oprf-edgecases.json");
    assert_eq!(c.passed, 8, "{c:?}");
    assert_eq!(c.skipped, 4);
}

#[test]
fn wycheproof_p256_points() {
    let c = replay("wycheproof/ecdh_secp256r1_ecpoint_test.json");
    assert_eq!(c.passed, 355);
}

#[test]
fn wycheproof_p384_points() {
    let c = replay("wycheproof/ecdh_secp384r1_ecpoint_test.json");
    assert_eq!(c.passed, 790);
}

#[test]
fn trust_token_boringssl_pst_v1() {
    let c = replay("trust-token-boringssl-pst-v1.json");
    // 2 key KATs, 3 responses (VOPRF bit 0, PMB bits 0 and 1), 9 redeemed tokens.
    assert_eq!(c.passed, 14, "{c:?}");
    assert_eq!(c.skipped, 0);
}

#[test]
fn every_file_is_claimed() {
    let files = runner::vector_files(&dir());
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        assert!(
            runner::recognise(&json).is_some(),
            "{} is not claimed by any runner",
            f.display()
        );
    }
}
