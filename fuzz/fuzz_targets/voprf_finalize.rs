#![no_main]
privacy_tokens_fuzz::target!(
    "voprf_finalize",
    privacy_tokens_fuzz::voprf::finalize_target
);
