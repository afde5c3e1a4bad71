#![no_main]
privacy_tokens_fuzz::target!("arc_verify", privacy_tokens_fuzz::arc::verify_target);
