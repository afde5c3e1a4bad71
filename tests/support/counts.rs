//! Per-file tallies of a vector replay.

/// How many cases of one file passed, failed or were skipped, with a line per failure.
#[derive(Debug, Default)]
pub struct Counts {
    /// Cases whose every field matched.
    pub passed: usize,
    /// Cases with at least one mismatch.
    pub failed: usize,
    /// Cases for suites this crate does not implement.
    pub skipped: usize,
    /// One line per failed case.
    pub failures: Vec<String>,
}

#[allow(dead_code)]
impl Counts {
    /// Records one case from its list of mismatches.
    pub fn record(&mut self, name: &str, mismatches: Vec<String>) {
        if mismatches.is_empty() {
            self.passed += 1;
        } else {
            self.failed += 1;
            self.failures
                .push(format!("{name}: {}", mismatches.join("; ")));
        }
    }

    /// Adds another file's tallies.
    pub fn add(&mut self, other: Counts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
        self.failures.extend(other.failures);
    }
}

/// Decodes a hex string field.
#[allow(dead_code)]
pub fn hex_field(v: &serde_json::Value, key: &str) -> Result<Vec<u8>, String> {
    let s = v
        .get(key)
        .and_then(|x| x.as_str())
        .ok_or_else(|| format!("missing field {key}"))?;
    hex::decode(s).map_err(|e| format!("field {key}: {e}"))
}

/// Records a mismatch in `m` when `got` differs from `want`, both shown in hex.
#[allow(dead_code)]
pub fn check(m: &mut Vec<String>, what: &str, got: &[u8], want: &[u8]) {
    if got != want {
        m.push(format!(
            "{what}: got {} want {}",
            hex::encode(got),
            hex::encode(want)
        ));
    }
}
