#![no_main]
privacy_tokens_fuzz::target!("arc_issue", privacy_tokens_fuzz::arc::issue_target);
