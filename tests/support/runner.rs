//! One vector runner for the test suite and the `replay` example: it recognises a file by its
//! content and replays it with the matching module.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "act.rs"]
pub mod act;
#[path = "arc.rs"]
pub mod arc;
#[path = "blind_rsa.rs"]
pub mod blind_rsa;
#[path = "counts.rs"]
pub mod counts;
#[path = "generic_batch.rs"]
pub mod generic_batch;
#[path = "patgo.rs"]
pub mod patgo;
#[path = "privacy_pass_rsa.rs"]
pub mod privacy_pass_rsa;
#[path = "rfc9496.rs"]
pub mod rfc9496;
#[path = "rfc9497.rs"]
pub mod rfc9497;
#[path = "rfc9578.rs"]
pub mod rfc9578;
#[path = "rollatini.rs"]
pub mod rollatini;
#[path = "sigma03.rs"]
pub mod sigma03;
#[path = "trust_token.rs"]
pub mod trust_token;
#[path = "wycheproof.rs"]
pub mod wycheproof;

pub use counts::Counts;

/// The layouts the runner knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// RFC 9497 Appendix A layout (also the swift-crypto edge cases).
    Rfc9497,
    /// RFC 9578 Appendix A.1 layout: one token per request (types 0x0001 and 0x0005).
    Rfc9578,
    /// pat-go's amortized batched issuance vectors (types 0x0001 and 0x0005).
    Amortized,
    /// pat-go's generic token batch vectors (draft-ietf-privacypass-batched-tokens).
    GenericBatch,
    /// Wycheproof ECDH ecpoint tests.
    Wycheproof,
    /// Recorded BoringSSL Trust Token transcripts.
    TrustToken,
    /// ARC (draft-arc `poc/vectors/allVectors.json` layout, v1 and v2).
    Arc,
    /// decaf448 group vectors (RFC 9496 Appendix B).
    Rfc9496,
    /// `expand_message_xof(SHAKE256)` vectors (RFC 9380 Appendix K.6).
    ExpandXof,
    /// draft-irtf-cfrg-sigma-protocols-03 / fiat-shamir-03 (`poc/vectors/*.json` records).
    Sigma03,
    /// RFC 9474 Appendix A (RSA blind signatures, four variants).
    Rfc9474,
    /// draft-irtf-cfrg-partially-blind-rsa-02 (partially blind RSA).
    Pbrsa,
    /// Privacy Pass token types 0x0002 and 0xDA7A (RFC 9578 Appendix A.2 layout).
    BlindRsaTokens,
    /// RFC 9577 Appendix A.1 token authenticator inputs.
    TokenInputs,
    /// ACT (`ACTv1-P256-SHA256`) text files of act-rs and the draft's appendix.
    Act,
    /// Rollatini (`Rollatiniv1-P256-SHA256`) text files of ihat-rs and the draft's appendix.
    Rollatini,
}

/// Recognises a document by its content.
pub fn recognise(json: &Value) -> Option<Kind> {
    if blind_rsa::recognises_rfc9474(json) {
        Some(Kind::Rfc9474)
    } else if blind_rsa::recognises_pbrsa(json) {
        Some(Kind::Pbrsa)
    } else if privacy_pass_rsa::recognises(json) {
        Some(Kind::BlindRsaTokens)
    } else if privacy_pass_rsa::recognises_token_inputs(json) {
        Some(Kind::TokenInputs)
    } else if rfc9497::recognises(json) {
        Some(Kind::Rfc9497)
    } else if patgo::recognises(json) {
        Some(Kind::Amortized)
    } else if generic_batch::recognises(json) {
        Some(Kind::GenericBatch)
    } else if json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter()
                .all(|e| rfc9578::has(e, "skS") && e.get("token_request").is_some())
    }) {
        Some(Kind::Rfc9578)
    } else if wycheproof::recognises(json) {
        Some(Kind::Wycheproof)
    } else if trust_token::recognises(json) {
        Some(Kind::TrustToken)
    } else if arc::recognises(json) {
        Some(Kind::Arc)
    } else if rfc9496::recognises_decaf448(json) {
        Some(Kind::Rfc9496)
    } else if rfc9496::recognises_xof(json) {
        Some(Kind::ExpandXof)
    } else if sigma03::recognises(json) {
        Some(Kind::Sigma03)
    } else {
        None
    }
}

/// Replays one file. A file that is not JSON, is not recognised, or yields zero cases is an error.
pub fn replay_file(path: &Path) -> Result<(Kind, Counts), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    if path.extension().is_some_and(|x| x == "txt") {
        let (kind, counts) = if act::recognises(&text) {
            (Kind::Act, act::run_text(&text)?)
        } else if rollatini::recognises(&text) {
            (Kind::Rollatini, rollatini::run_text(&text)?)
        } else {
            return Err("unrecognised text vector layout".into());
        };
        if counts.passed + counts.failed == 0 {
            return Err("no case ran".into());
        }
        return Ok((kind, counts));
    }
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let kind = recognise(&json).ok_or("unrecognised vector layout")?;
    let counts = match kind {
        Kind::Rfc9497 => rfc9497::run(&json)?,
        Kind::Rfc9578 => rfc9578::run(&json)?,
        Kind::Amortized => patgo::run(&json)?,
        Kind::GenericBatch => generic_batch::run(&json)?,
        Kind::Wycheproof => wycheproof::run(&json)?,
        Kind::TrustToken => trust_token::run(&json)?,
        Kind::Arc => arc::run(&json)?,
        Kind::Rfc9496 => rfc9496::run_decaf448(&json)?,
        Kind::ExpandXof => rfc9496::run_xof(&json)?,
        Kind::Sigma03 => sigma03::run(&json)?,
        Kind::Rfc9474 => blind_rsa::run_rfc9474(&json)?,
        Kind::Pbrsa => blind_rsa::run_pbrsa(&json)?,
        Kind::BlindRsaTokens => privacy_pass_rsa::run(&json)?,
        Kind::TokenInputs => privacy_pass_rsa::run_token_inputs(&json)?,
        Kind::Act | Kind::Rollatini => return Err("ACT and Rollatini files are text".into()),
    };
    if counts.passed + counts.failed == 0 {
        return Err(format!("no case ran ({} skipped)", counts.skipped));
    }
    Ok((kind, counts))
}

/// Whether a vector file (JSON, or an ACT or Rollatini text file) is claimed by a runner.
pub fn claimed(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    if path.extension().is_some_and(|x| x == "txt") {
        return act::recognises(&text) || rollatini::recognises(&text);
    }
    serde_json::from_str::<Value>(&text).is_ok_and(|json| recognise(&json).is_some())
}

/// Every `.json` and `.txt` file under a directory, recursively, sorted.
pub fn vector_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(rd) = std::fs::read_dir(&d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "json" || x == "txt") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}
