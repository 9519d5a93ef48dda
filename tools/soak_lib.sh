# Shared by the soak scripts (sourced from the repository root): the built binary, the dance
# they play, their output folder; sample a process's resident memory, open file handles and
# threads every 10 s until it exits, and summarise the samples at minutes 0, 1, 10, 20, 30.

bin=target/release/odori
[ -x "$bin" ] || { echo "build first: cargo build --release -p odori" >&2; exit 2; }
assets=../shared/assets
# Gene_light × wavefile_v2 with its camera, at 1280×720.
gene_dance=("$assets/gene/Gene_light.pmx" "$assets/wavefile/wavefile_v2.vmd"
    --camera "$assets/wavefile/wavefile_camera.vmd" --size 1280x720)

# soak_out DIR: DIR made, as an absolute path.
soak_out() {
    mkdir -p "$1" && (cd "$1" && pwd)
}

# sample_until_exit PID CSV: one line per 10 s (seconds, rss_kb, handles, threads).
sample_until_exit() {
    local pid=$1 csv=$2 start rss threads handles
    start=$(date +%s)
    echo "seconds,rss_kb,handles,threads" >"$csv"
    while kill -0 "$pid" 2>/dev/null; do
        rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        threads=$(awk '/^Threads/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        handles=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
        [ -n "$rss" ] && echo "$(($(date +%s) - start)),$rss,$handles,$threads" >>"$csv"
        sleep 10
    done
}

# summarise CSV MINUTES: the figures at 0, 1, 10, 20, 30 … minutes, and the resident growth
# from the first minute to the last sample.
summarise() {
    awk -F, -v m="$2" 'NR > 1 {
            t[NR] = $1; r[NR] = $2; h[NR] = $3; th[NR] = $4; n = NR }
        END {
            for (k = 0; k <= m; k = (k == 0 ? 1 : (k == 1 && m >= 10 ? 10 : k + (m >= 10 ? 10 : 1)))) {
                best = 0
                for (i = 2; i <= n; i++) if (t[i] <= k * 60) best = i
                if (best) printf "minute %d: %d kB, %d handles, %d threads\n", k, r[best], h[best], th[best]
                if (k == 1) base = r[best]
            }
            printf "last sample, second %d: %d kB, %d handles, %d threads\n", t[n], r[n], h[n], th[n]
            if (base) printf "resident growth after the first minute: %.2f %%\n", 100 * (r[n] - base) / base
        }' "$1"
}
