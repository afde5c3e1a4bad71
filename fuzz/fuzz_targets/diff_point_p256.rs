#![no_main]
privacy_tokens_fuzz::target!(
    "diff_point_p256",
    privacy_tokens_fuzz::arith::point_target::<p256::NistP256>
);
