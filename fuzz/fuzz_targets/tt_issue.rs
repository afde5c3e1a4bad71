#![no_main]
privacy_tokens_fuzz::target!("tt_issue", privacy_tokens_fuzz::trust_token::issue_target);
