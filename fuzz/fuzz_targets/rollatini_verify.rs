#![no_main]
privacy_tokens_fuzz::target!(
    "rollatini_verify",
    privacy_tokens_fuzz::rollatini::verify_target
);
