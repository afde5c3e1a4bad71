//! Lowercase hex: one encoder for the directory's ETag (`issuer`), the key fingerprints (`keys`)
//! and the hashed client data of a PST redemption record (`pst`).

/// Lowercase hex.
pub(crate) fn hex_lower(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
