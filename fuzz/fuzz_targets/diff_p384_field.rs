#![no_main]
privacy_tokens_fuzz::target!(
    "diff_p384_field",
    privacy_tokens_fuzz::arith::field_target::<p384::NistP384, privacy_tokens_fuzz::arith::P384RefFe>
);
