#![no_main]
privacy_tokens_fuzz::target!("tt_finish", privacy_tokens_fuzz::trust_token::finish_target);
