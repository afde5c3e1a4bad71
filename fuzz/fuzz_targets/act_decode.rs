#![no_main]
privacy_tokens_fuzz::target!("act_decode", privacy_tokens_fuzz::act::decode_target);
