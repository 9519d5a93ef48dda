#!/usr/bin/env bash
# Build odori's web page: the wasm module (wasm32-unknown-unknown, simd128, the workspace's
# `web` profile: release with fat LTO), its wasm-bindgen glue, and www/, into one folder any
# static server can serve.
#
#   crates/odori-web/build.sh [OUT]      # OUT defaults to target/web
#   python3 -m http.server -d target/web 8000   # then open http://localhost:8000
#
# wasm-bindgen-cli must be the version Cargo.lock pins for the wasm-bindgen crate; when
# target/tools/bin/wasm-bindgen is missing or another version, it is installed there (a few
# minutes, once; CI keeps it with target/). clang and llvm-ar compile Bullet for wasm32
# (crates/odori-physics/README.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/web}
echo "building the page into $out: the wasm32 target, wasm-bindgen-cli, odori-web (fat LTO)" >&2
# The wasm32 target first: without it the build fails only after the minutes the
# wasm-bindgen-cli install takes.
wasm_lib=$(rustc --print target-libdir --target wasm32-unknown-unknown)
if [ ! -d "$wasm_lib" ]; then
    if command -v rustup >/dev/null 2>&1; then
        echo "adding the wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown)" >&2
        rustup target add wasm32-unknown-unknown
    else
        echo "error: Rust's wasm32-unknown-unknown target is missing; install it with" \
            "rustup target add wasm32-unknown-unknown (or your Rust distribution's wasm32 package)" >&2
        exit 1
    fi
fi
# The physics wasm test builds in the same folder (its release profile beside this one).
target_dir=${ODORI_WASM_TARGET_DIR:-$root/target/wasm}
tools=$root/target/tools
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' "$root/Cargo.lock")
bindgen=$tools/bin/wasm-bindgen
if ! "$bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
    echo "installing wasm-bindgen-cli $version into $tools" >&2
    # --locked as its authors tested it; when the registry index lacks one of those exact
    # versions (an offline mirror), the newest compatible ones.
    if ! cargo install --locked wasm-bindgen-cli --version "$version" --root "$tools"; then
        echo "warning: the registry lacks a dependency version wasm-bindgen-cli $version locks;" \
            "installing it with the newest compatible ones (not the tested set)" >&2
        cargo install wasm-bindgen-cli --version "$version" --root "$tools"
    fi
fi
cd "$root"
env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
    cargo build --profile web --target wasm32-unknown-unknown -p odori-web --target-dir "$target_dir"
mkdir -p "$out"
"$bindgen" --target web --no-typescript --out-dir "$out" \
    "$target_dir/wasm32-unknown-unknown/web/odori_web.wasm"
cp "$root"/crates/odori-web/www/* "$out/"
echo "built $out ($(du -h "$out/odori_web_bg.wasm" | cut -f1) wasm)" >&2
