#![no_main]
privacy_tokens_fuzz::target!(
    "diff_hash_to_curve",
    privacy_tokens_fuzz::arith::hash_to_curve_target
);
