#![no_main]
privacy_tokens_fuzz::target!(
    "diff_p384_field",
    privacy_tokens_fuzz::arith::p384_field_target
);
