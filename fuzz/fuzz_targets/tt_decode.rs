#![no_main]
privacy_tokens_fuzz::target!("tt_decode", privacy_tokens_fuzz::trust_token::decode_target);
