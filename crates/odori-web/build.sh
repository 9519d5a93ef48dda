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
# target/tools/bin/wasm-bindgen is missing or another version, it is built there from
# tools/wasm-bindgen (its dependencies pinned by that folder's Cargo.lock; a few minutes,
# once; CI keeps it with target/). clang and llvm-ar compile Bullet for wasm32
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
tool=$root/crates/odori-web/tools/wasm-bindgen
pinned=$(awk -F'"' '/^wasm-bindgen-cli = / { sub(/^=/, "", $2); print $2 }' "$tool/Cargo.toml")
if [ "$pinned" != "$version" ]; then
    echo "error: $tool/Cargo.toml pins wasm-bindgen-cli $pinned but Cargo.lock has wasm-bindgen" \
        "$version; set it to =$version there and run cargo update --manifest-path $tool/Cargo.toml" >&2
    exit 1
fi
if ! "$bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
    echo "building wasm-bindgen-cli $version into $tools from $tool (its Cargo.lock, --locked)" >&2
    env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS cargo build --release --locked \
        --manifest-path "$tool/Cargo.toml" -p wasm-bindgen-cli --bin wasm-bindgen \
        --target-dir "$tools/build"
    mkdir -p "$tools/bin"
    cp "$tools/build/release/wasm-bindgen" "$bindgen"
    # The build's 400 MB of intermediate files are not needed again.
    rm -rf "$tools/build"
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
