#![no_main]
privacy_tokens_fuzz::target!(
    "pp_generic_decode",
    privacy_tokens_fuzz::privacy_pass::generic_decode_target
);
