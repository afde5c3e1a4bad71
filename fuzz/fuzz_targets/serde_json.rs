#![no_main]
privacy_tokens_fuzz::target!("serde_json", privacy_tokens_fuzz::serde_json_rt::target);
