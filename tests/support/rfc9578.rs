//! Placeholder until the Privacy Pass module lands.
use super::counts::Counts;
use serde_json::Value;
pub fn run(_json: &Value) -> Result<Counts, String> {
    Err("RFC 9578 runner not built yet".into())
}
