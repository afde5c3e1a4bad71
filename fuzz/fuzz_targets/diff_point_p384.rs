#![no_main]
privacy_tokens_fuzz::target!(
    "diff_point_p384",
    privacy_tokens_fuzz::arith::point_target::<p384::NistP384>
);
