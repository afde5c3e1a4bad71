#!/usr/bin/env bash
# Builds the npm package `privacy-tokens` into bindings/wasm/pkg/: two flavours of the
# WebAssembly module (`full`: clients, issuers, OPRF/VOPRF/POPRF; `client`: Privacy Pass and
# ARC clients only), each with wasm-bindgen's ES-module glue, a Node entry that needs no init
# call, and TypeScript declarations.
#
# Installs what is missing (Debian's rustc-web, rust-web-src and lld; wasm-bindgen-cli at the
# exact version of the `wasm-bindgen` crate in Cargo.lock). rustup has no wasm32 standard
# library on this machine, so std is built from Debian's rust-web-src with -Zbuild-std
# (RUSTC_BOOTSTRAP=1 enables that one unstable cargo flag on the stable compiler).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

need_apt=()
[ -x /usr/bin/rustc ] && /usr/bin/rustc --version 2>/dev/null | grep -q . || need_apt+=(rustc-web)
[ -d /usr/lib/rustlib/src/rust/library/std ] || need_apt+=(rust-web-src)
command -v wasm-ld >/dev/null || need_apt+=(lld)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "build.sh: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}"
fi
# The wasm32 target's std must come from a compiler at least as new as the library's MSRV.
echo "build.sh: $(/usr/bin/rustc --version) for wasm32 (std from $(/usr/bin/rustc --print sysroot)/lib/rustlib/src)"

wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! command -v wasm-bindgen >/dev/null || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$wb_version" ]; then
  echo "build.sh: installing wasm-bindgen-cli $wb_version"
  # Not --locked: its lock file pins a webpki-roots release the registry mirror here lacks.
  cargo install wasm-bindgen-cli --version "$wb_version" --force
fi

export RUSTC=/usr/bin/rustc
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld
target_dir="$here/target"

build_flavour() {
  local flavour=$1 features=$2 out=$3
  echo "build.sh: building flavour '$flavour' (features: ${features:-none})"
  cargo build --release --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort \
    --target-dir "$target_dir" --no-default-features ${features:+--features "$features"}
  rm -rf "$out"
  mkdir -p "$out"
  wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir "$out" --out-name privacy_tokens \
    "$target_dir/wasm32-unknown-unknown/release/privacy_tokens_wasm.wasm"
  cp js/index.js js/node.js js/index.d.ts js/node.d.ts js/errors.js js/errors.d.ts "$out/"
}

# `bash build.sh` builds everything; `bash build.sh full|client|testing ...` only those flavours.
flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=(full client testing)
want() { local f; for f in "${flavours[@]}"; do [ "$f" = "$1" ] && return 0; done; return 1; }

mkdir -p pkg
want full && build_flavour full "issuer,oprf" "$here/pkg/full"
want client && build_flavour client "" "$here/pkg/client"
# The test suite's flavour, outside the package: everything, plus the deterministic `hazmat`
# entry points (published vectors) and the `__testing*` hooks (a fixed seed, the linear memory,
# the wipes switched off for the memory scans' controls).
want testing && build_flavour testing "issuer,oprf,hazmat,testing" "$here/pkg-testing"
cp js/package.json pkg/package.json
cp README.md pkg/README.md
for f in ../../LICENSE-MIT ../../LICENSE-APACHE; do [ -f "$f" ] && cp "$f" pkg/; done
for flavour in full client; do
  wasm="pkg/$flavour/privacy_tokens_bg.wasm"
  [ -f "$wasm" ] && echo "build.sh: wasm $flavour: $(stat -c %s "$wasm") bytes, $(gzip -9c "$wasm" | wc -c) gzipped"
done
echo "build.sh: package in $here/pkg"
