#!/usr/bin/env bash
# Soak of a render: `odori render` of Gene_light × wavefile_v2 with its camera and physics at
# 1280×720, FRAMES frames (default 36,000: twenty minutes of video, about half an hour on two
# cores; past the dance's end the last pose holds and physics settles), its resident memory,
# open file handles and threads sampled every 10 s into OUT/samples.csv. Then the last frame
# of the long video against the same frame rendered by a fresh process to a PNG (the pre-roll
# plays frames 0 to FRAMES-1 in order, as the long render did), and, as the control for the
# H.264 round trip, the same frame from a fresh 30-frame MP4 ending there: a render that
# drifted over the half hour would sit far further from the PNG than the control does.
# Needs ffmpeg for the decode. Not run by CI.
#   cargo build --release -p odori && tools/soak_render.sh [FRAMES] [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/soak_lib.sh
frames=${1:-36000}
out=$(soak_out "${2:-target/soak-render}")
command -v ffmpeg >/dev/null || { echo "ffmpeg is needed to decode the last frames" >&2; exit 2; }
last=$((frames - 1))
scene=("${gene_dance[@]}" --backend cpu)
render() {
    "$bin" render "${scene[@]}" "$@"
}
rm -f "$out"/long.mp4 "$out"/control.mp4 "$out"/*.png "$out"/samples.csv
# Not through the function: $! must be odori's own process, not a subshell's.
"$bin" render "${scene[@]}" --range "0:$last" -o "$out/long.mp4" >"$out/stdout.txt" 2>"$out/stderr.txt" &
pid=$!
sample_until_exit "$pid" "$out/samples.csv"
wait "$pid"
minutes=$(($(tail -1 "$out/samples.csv" | cut -d, -f1) / 60))
summarise "$out/samples.csv" "$minutes"
tail -2 "$out/stdout.txt"
render --range "$last:$last" -o "$out/fresh.png" >/dev/null 2>&1
render --range "$((last - 29)):$last" -o "$out/control.mp4" >/dev/null 2>&1
decode_last() {
    ffmpeg -loglevel error -sseof -1 -i "$1" -update 1 -pix_fmt rgb24 -y "$2"
}
decode_last "$out/long.mp4" "$out/long_last.png"
decode_last "$out/control.mp4" "$out/control_last.png"
python3 - "$out" <<'PY'
import sys, subprocess
out = sys.argv[1]
def pixels(name):
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", f"{out}/{name}", "-f", "rawvideo",
                          "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
    return raw
fresh = pixels("fresh.png")
for name in ("long_last.png", "control_last.png"):
    other = pixels(name)
    assert len(other) == len(fresh), name
    diffs = [abs(a - b) for a, b in zip(fresh, other)]
    print(f"{name} against the fresh PNG: mean {sum(diffs) / len(diffs):.3f}, largest {max(diffs)}")
PY
