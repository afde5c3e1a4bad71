//! Criterion settings shared by the token benches (`trust_token`, `privacy_pass`).

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};

/// Per-batch group settings: throughput in tokens; flat sampling and longer measurement for
/// batches (2 s, 4 s from 100 on), automatic sampling for 1 s otherwise.
pub fn configure(g: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    g.throughput(Throughput::Elements(n as u64));
    if n > 1 {
        g.sampling_mode(SamplingMode::Flat)
            .measurement_time(Duration::from_secs(if n >= 100 { 4 } else { 2 }));
    } else {
        g.sampling_mode(SamplingMode::Auto)
            .measurement_time(Duration::from_secs(1));
    }
}

/// 10 samples, 0.5 s warm-up, 1 s measurement, then the command line's settings.
pub fn criterion() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args()
}
