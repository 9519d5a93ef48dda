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
#
# Where node and npm are, the wasm is then optimised by binaryen's wasm-opt -O3 (npm's
# `binaryen`, pinned in optimize/; installed there the first time): in headless Chromium the
# page's pose, pose + physics and with skinning take 0.83-0.93x the time (README), the wasm
# is 1 MB smaller, and no bit of pose or physics moves (tests/browser.rs holds the page's to
# the native build's). Without node it is left as rustc and wasm-bindgen made it, and says
# so; ODORI_WEB_WASM_OPT=0 skips it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/target/web}
# The physics wasm test builds in the same folder (its release profile beside this one).
target_dir=${ODORI_WASM_TARGET_DIR:-$root/target/wasm}
tools=$root/target/tools
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' "$root/Cargo.lock")
bindgen=$tools/bin/wasm-bindgen
if ! "$bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
    echo "installing wasm-bindgen-cli $version into $tools" >&2
    # --locked as its authors tested it; when the registry index lacks one of those exact
    # versions (an offline mirror), the newest compatible ones.
    cargo install --locked wasm-bindgen-cli --version "$version" --root "$tools" ||
        cargo install wasm-bindgen-cli --version "$version" --root "$tools"
fi
cd "$root"
env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
    cargo build --profile web --target wasm32-unknown-unknown -p odori-web --target-dir "$target_dir"
mkdir -p "$out"
"$bindgen" --target web --no-typescript --out-dir "$out" \
    "$target_dir/wasm32-unknown-unknown/web/odori_web.wasm"
wasm=$out/odori_web_bg.wasm
opt_dir=$root/crates/odori-web/optimize
if [ "${ODORI_WEB_WASM_OPT:-1}" = 0 ]; then
    echo "wasm-opt skipped (ODORI_WEB_WASM_OPT=0)" >&2
elif command -v node >/dev/null && command -v npm >/dev/null &&
    { [ -f "$opt_dir/node_modules/binaryen/bin/wasm-opt" ] ||
        (cd "$opt_dir" && npm ci --no-audit --no-fund --loglevel=error >&2); }; then
    # The features rustc's wasm32 target and +simd128 use, no others (no relaxed SIMD, no
    # fast math: results stay bit for bit).
    node "$opt_dir/node_modules/binaryen/bin/wasm-opt" -O3 \
        --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int \
        --enable-sign-ext --enable-reference-types --enable-multivalue \
        --enable-mutable-globals "$wasm" -o "$wasm.opt"
    mv "$wasm.opt" "$wasm"
else
    echo "build.sh: node and npm are needed for wasm-opt; the wasm is not optimised after" \
        "rustc (slower, 1 MB larger)" >&2
fi
cp "$root"/crates/odori-web/www/* "$out/"
echo "built $out ($(du -h "$out/odori_web_bg.wasm" | cut -f1) wasm)" >&2
