#![no_main]
privacy_tokens_fuzz::target!(
    "pp_client",
    privacy_tokens_fuzz::privacy_pass::client_target
);
