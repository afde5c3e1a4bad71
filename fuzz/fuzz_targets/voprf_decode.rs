#![no_main]
privacy_tokens_fuzz::target!("voprf_decode", privacy_tokens_fuzz::voprf::decode_target);
