#!/usr/bin/env bash
# Soak of the window: `odori play` with Gene_light × wavefile_v2, its camera and physics, looping
# for MINUTES (default 30) under Xvfb, the player's resident memory, open file handles and
# threads sampled every 10 s into OUT/samples.csv (seconds, kB, handles, threads). Frame 300 is
# screenshot before and after, each time reached the same way: frames 0, 1 and 2 in turn (the
# pose carries a frame's state to the next: bones that read their parent a frame late, IK),
# then a seek to 300 (which restarts physics settled where it lands, as MikuMikuDance does).
# Nothing the half hour left behind may then show: cmp says whether the two are the same
# picture. Not run by CI.
#   cargo build --release -p odori && tools/soak_window.sh [MINUTES] [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/soak_lib.sh
minutes=${1:-30}
out=$(soak_out "${2:-target/soak-window}")
rm -f "$out"/start.png "$out"/end.png "$out"/samples.csv
to_300="pause
seek 0
wait 2
seek 1
wait 2
seek 2
wait 2
seek 300
wait 3"
cat > "$out/script.txt" <<SCRIPT
$to_300
screenshot start.png
play
wait $((minutes * 60))s
$to_300
screenshot end.png
status
quit
SCRIPT
ODORI_AUDIO_DEVICE=null xvfb-run -a -s "-screen 0 1400x900x24" "$bin" play "${gene_dance[@]}" \
    --script "$out/script.txt" >"$out/stdout.txt" 2>"$out/stderr.txt" &
runner=$!
pid=""
for _ in $(seq 100); do
    pid=$(pgrep -n -x odori || true)
    [ -n "$pid" ] && break
    sleep 0.1
done
[ -n "$pid" ] || { echo "the player did not start" >&2; exit 1; }
sample_until_exit "$pid" "$out/samples.csv"
wait "$runner"
summarise "$out/samples.csv" "$minutes"
if cmp -s "$out/start.png" "$out/end.png"; then
    echo "frame 300 at the end is the picture at the start, byte for byte"
else
    echo "frame 300 differs between start and end"
    exit 1
fi
