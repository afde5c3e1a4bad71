#![no_main]
privacy_tokens_fuzz::target!("act_verify", privacy_tokens_fuzz::act::verify_target);
