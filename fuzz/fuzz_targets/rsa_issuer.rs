#![no_main]
privacy_tokens_fuzz::target!("rsa_issuer", privacy_tokens_fuzz::blind_rsa::issuer_target);
