#![no_main]
privacy_tokens_fuzz::target!("rsa_decode", privacy_tokens_fuzz::blind_rsa::decode_target);
