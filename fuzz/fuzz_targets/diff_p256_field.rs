#![no_main]
privacy_tokens_fuzz::target!(
    "diff_p256_field",
    privacy_tokens_fuzz::arith::field_target::<p256::NistP256, privacy_tokens_fuzz::arith::P256RefFe>
);
