#![no_main]
privacy_tokens_fuzz::target!("arc_decode", privacy_tokens_fuzz::arc::decode_target);
