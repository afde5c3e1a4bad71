#![no_main]
privacy_tokens_fuzz::target!("tt_redeem", privacy_tokens_fuzz::trust_token::redeem_target);
