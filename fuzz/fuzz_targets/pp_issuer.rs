#![no_main]
privacy_tokens_fuzz::target!(
    "pp_issuer",
    privacy_tokens_fuzz::privacy_pass::issuer_target
);
