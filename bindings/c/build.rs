//! Gives the shared library an ABI identity (review BND-6): the SONAME
//! `libprivacy_tokens.so.0` on Linux (cargo has no setting for it, rust-lang/cargo#5045), and
//! an `@rpath` install name on Apple platforms. The `0` follows `PT_ABI_VERSION - 1` (checked
//! by a unit test in `src/ffi.rs`): an app linked against this library records the name and
//! refuses a library of another ABI.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    match os.as_str() {
        // Android loads `libprivacy_tokens.so` by its file name (jniLibs): no versioned SONAME.
        "linux" | "freebsd" | "netbsd" | "openbsd" | "dragonfly" => {
            println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libprivacy_tokens.so.0");
        }
        "macos" | "ios" | "tvos" | "watchos" | "visionos" => {
            println!(
                "cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/libprivacy_tokens.dylib"
            );
        }
        _ => {}
    }
}
