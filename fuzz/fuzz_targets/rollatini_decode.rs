#![no_main]
privacy_tokens_fuzz::target!(
    "rollatini_decode",
    privacy_tokens_fuzz::rollatini::decode_target
);
