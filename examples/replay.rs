//! Replays published test-vector files against the crate and prints a summary.
//!
//! ```text
//! cargo run --release --example replay -- [FILE...]
//! ```
//!
//! With no argument it replays every `.json` file under `test-vectors/`. Files are recognised by
//! their content (RFC 9497 layout, RFC 9578 layout, Wycheproof ECDH ecpoint), wherever they live.
//! Prints `<file>: N passed, M failed` per file and a final `N passed, M failed`; exits non-zero
//! on any failure or on a file it cannot recognise.

#[path = "../tests/support/runner.rs"]
mod runner;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let files = if args.is_empty() {
        runner::vector_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("test-vectors"))
    } else {
        args
    };
    if files.is_empty() {
        eprintln!("no vector files found");
        return ExitCode::FAILURE;
    }
    let (mut passed, mut failed, mut errors) = (0usize, 0usize, 0usize);
    for f in &files {
        match runner::replay_file(f) {
            Ok((kind, c)) => {
                let skipped = if c.skipped > 0 {
                    format!(" ({} skipped: other suites)", c.skipped)
                } else {
                    String::new()
                };
                println!(
                    "{}: {} passed, {} failed{skipped}  [{kind:?}]",
                    f.display(),
                    c.passed,
                    c.failed
                );
                for line in &c.failures {
                    println!("    FAIL {line}");
                }
                passed += c.passed;
                failed += c.failed;
            }
            Err(e) => {
                println!("{}: error: {e}", f.display());
                errors += 1;
            }
        }
    }
    if errors > 0 {
        println!("{errors} file(s) could not be replayed");
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 && errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
