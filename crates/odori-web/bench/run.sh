#!/usr/bin/env bash
# Measurement harness, not product and not a test: babylon-mmd 1.3's WASM runtime, odori's
# page, odori's npm package and three.js r171's MMDAnimationHelper doing the same work (Gene_light.pmx × wavefile_v2.vmd) in one headless Chromium, A/B
# alternated; prints a table (run.mjs says what each figure is).
#
#   bash crates/odori-web/bench/run.sh [ROUNDS]     # ROUNDS defaults to 3
#
# Needs node, /usr/bin/chromium, what build.sh needs, and ../shared (or $ODORI_SHARED): the
# model and motion are served from there at run time, never copied. npm packages (babylon-mmd
# 1.3.0, @babylonjs/core, three 0.187 and 0.171, esbuild, playwright-core) are installed here by `npm ci` the first
# time. Writes target/bench-web/result.json and a screenshot of each runtime's canvas.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
shared=${ODORI_SHARED:-$root/../shared}
assets=$shared/assets
for f in gene/Gene_light.pmx wavefile/wavefile_v2.vmd; do
    if [ ! -f "$assets/$f" ]; then
        echo "bench: $assets/$f is missing (set ODORI_SHARED to the shared folder)" >&2
        exit 1
    fi
done
[ -d "$here/node_modules/babylon-mmd" ] || (cd "$here" && npm ci --no-audit --no-fund)
bash "$root/crates/odori-web/build.sh" "$root/target/web"
bash "$root/crates/odori-web/build.sh" --package "$root/target/npm"
(cd "$here" && npx esbuild src/babylon.js --bundle --format=esm --minify \
    --outfile=dist/babylon.js --log-level=warning)
(cd "$here" && npx esbuild src/three171.js --bundle --format=esm --minify \
    --outfile=dist/three171.js --log-level=warning)
echo "load before: $(uptime)" >&2
node "$here/run.mjs" "$root/target/web" "$assets" "$root/target/bench-web" "${1:-3}" "$root/target/npm/odori"
echo "load after: $(uptime)" >&2
