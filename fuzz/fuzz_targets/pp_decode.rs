#![no_main]
privacy_tokens_fuzz::target!(
    "pp_decode",
    privacy_tokens_fuzz::privacy_pass::decode_target
);
