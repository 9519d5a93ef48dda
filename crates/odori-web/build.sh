#!/usr/bin/env bash
# Build odori for the web: the wasm module (wasm32-unknown-unknown, simd128, the workspace's
# `web` profile: release with fat LTO) and its wasm-bindgen glue, either
# - the page, with www/, into one folder any static server can serve:
#     crates/odori-web/build.sh [OUT]      # OUT defaults to target/web
#     python3 -m http.server -d target/web 8000   # then open http://localhost:8000
# - or the npm package (npm/, without the page's renderer), packed by `npm pack`:
#     crates/odori-web/build.sh --package [OUT]   # OUT defaults to target/npm
#   which leaves OUT/odori/ (the package folder) and OUT/odori-VERSION.tgz (to npm install).
#
# wasm-bindgen-cli must be the version Cargo.lock pins for the wasm-bindgen crate; when
# target/tools/bin/wasm-bindgen is missing or another version, it is installed there (a few
# minutes, once; CI keeps it with target/). clang and llvm-ar compile Bullet for wasm32
# (crates/odori-physics/README.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=page
if [ "${1:-}" = "--package" ]; then
    mode=package
    shift
fi
if [ $mode = page ]; then
    out=${1:-$root/target/web}
else
    out=${1:-$root/target/npm}
fi
echo "building the $mode into $out: the wasm32 target, wasm-bindgen-cli, odori-web (fat LTO)" >&2
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
features=()
if [ $mode = package ]; then
    features=(--no-default-features)
fi
env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
    cargo build --profile web --target wasm32-unknown-unknown -p odori-web "${features[@]}" \
    --target-dir "$target_dir"
wasm=$target_dir/wasm32-unknown-unknown/web/odori_web.wasm
if [ $mode = page ]; then
    mkdir -p "$out"
    "$bindgen" --target web --no-typescript --out-dir "$out" "$wasm"
    cp "$root"/crates/odori-web/www/* "$out/"
    echo "built $out ($(du -h "$out/odori_web_bg.wasm" | cut -f1) wasm)" >&2
    exit 0
fi
# The package: npm/ as written, the glue and wasm in wasm/, the workspace's version.
package=$out/odori
rm -rf "$package"
mkdir -p "$package"
cp -r "$root"/crates/odori-web/npm/. "$package/"
"$bindgen" --target web --no-typescript --out-dir "$package/wasm" "$wasm"
version=$(awk -F'"' '/^version = / { print $2; exit }' "$root/Cargo.toml")
(cd "$package" && npm pkg set version="$version" >/dev/null)
rm -f "$out"/odori-*.tgz
(cd "$out" && npm pack --silent "$package" >/dev/null)
echo "built $out/odori-$version.tgz ($(du -h "$package/wasm/odori_web_bg.wasm" | cut -f1) wasm," \
    "$(gzip -c "$package/wasm/odori_web_bg.wasm" | wc -c) bytes gzipped)" >&2
