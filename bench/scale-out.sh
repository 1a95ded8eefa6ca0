#!/usr/bin/env bash
# Scale-out benchmark: the deployment of deploy/varnish/tiler.vcl run whole on 127.0.0.1 — Debian's varnishd in front
# of three `tiler serve` replicas over one pyramid folder — in one run:
#   1. throughput: random tiles over pyramids larger than one replica's cache, straight to one replica, then through
#      Varnish cold (cache banned) and warm; req/s, p50/p99 and Varnish's hit ratio;
#   2. failover: a 20-s load of tiles and visible-rect queries (always passed to a replica) through Varnish, one
#      replica stopped 7 s in (KILL_AT) — with SIGTERM, then (replica restarted) with SIGKILL; client-visible errors (goal:
#      zero) and the latency spike (p99, max);
#   3. re-slice: one pyramid re-sliced with --force under load; a checker fetches through Varnish the whole time and
#      reports whether a tile URL ever answered other bytes than its version's, and how long the new picture took to
#      appear through Varnish.
# Usage: bench/scale-out.sh [SECONDS]   (default 10 s per throughput measurement). Not a test: prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-10}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-8192}
PYRAMIDS=${PYRAMIDS:-3}
CACHE_MB=${CACHE_MB:-16}
CONNECTIONS=${CONNECTIONS:-64}
FAILOVER_SECONDS=${FAILOVER_SECONDS:-20}
KILL_AT=$(( FAILOVER_SECONDS * 7 / 20 ))

scripts/setup varnish wrk python3
if [ -z "${TILER_BIN:-}" ]; then
    swift build -c release --product tiler >/dev/null
    TILER_BIN="$(swift build -c release --show-bin-path)/tiler"
fi
TILER=$TILER_BIN
mkdir -p "$BENCH_DIR"
ROOT="$BENCH_DIR/scale-root"
for i in $(seq 1 "$PYRAMIDS"); do
    [ -s "$BENCH_DIR/scale-$SIZE-$i.jpg" ] || "$TILER" sample "$BENCH_DIR/scale-$SIZE-$i.jpg" --size "${SIZE}x${SIZE}" --seed "$i" --quiet
    [ -s "$ROOT/p$i.dzi" ] || "$TILER" slice "$BENCH_DIR/scale-$SIZE-$i.jpg" -o "$ROOT" --name "p$i" --quiet --force
done
# The re-slice's second picture (another seed, same size).
RESLICE_SOURCE="$BENCH_DIR/scale-$SIZE-reslice.jpg"
[ -s "$RESLICE_SOURCE" ] || "$TILER" sample "$RESLICE_SOURCE" --size "${SIZE}x${SIZE}" --seed 99 --quiet

WORK=$(mktemp -d)
chmod 755 "$WORK"  # varnishd reads the VCL as its own user
cleanup() {
    [ -s "$WORK/varnish/pid" ] && kill "$(cat "$WORK/varnish/pid")" 2>/dev/null
    for f in "$WORK"/replica-*.pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
    sleep 0.5
    rm -rf "$WORK"
}
trap cleanup EXIT
PORTS=(19181 19182 19183)
VARNISH_PORT=19180

start_replica() {  # INDEX
    local port=${PORTS[$1]}
    # In a subshell, so that a replica killed on purpose is not reported as a failed job of this script.
    ("$TILER" serve "$ROOT" --port "$port" --cache-mb "$CACHE_MB" --trust-proxy --max-connections-per-address 0 >"$WORK/replica-$1.out" 2>&1 & echo $! >"$WORK/replica-$1.pid")
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && return; sleep 0.1; done
    echo "replica on port $port did not start" >&2
    exit 1
}
for i in 0 1 2; do start_replica "$i"; done
sed -e "s/\"8081\"/\"${PORTS[0]}\"/" -e "s/\"8082\"/\"${PORTS[1]}\"/" -e "s/\"8083\"/\"${PORTS[2]}\"/" \
    deploy/varnish/tiler.vcl >"$WORK/tiler.vcl"
mkdir -p "$WORK/varnish"
varnishd -f "$WORK/tiler.vcl" -a "127.0.0.1:$VARNISH_PORT" -n "$WORK/varnish" -P "$WORK/varnish/pid" -s malloc,1g >/dev/null
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$VARNISH_PORT/healthz" >/dev/null && break; sleep 0.1; done

# URL lists: every tile of every pyramid under the versioned URLs /api/images hands out (immutable, so Varnish keeps
# them); and for the failover load, tiles plus one visible-rect query per 4 tiles.
curl -fs "http://127.0.0.1:$VARNISH_PORT/api/images" | /usr/bin/python3 -c '
import json, sys
for image in json.load(sys.stdin):
    print(image["name"], image["dzi"][: -len(".dzi")])' >"$WORK/prefixes.txt"
(cd "$ROOT" && find . -path '*_files/*' -type f | sed 's|^\./||') | /usr/bin/python3 -c '
import sys
prefixes = dict(line.split() for line in open(sys.argv[1]))
for path in sys.stdin:
    name, rest = path.strip().split("_files/", 1)
    print(prefixes[name] + "_files/" + rest)' "$WORK/prefixes.txt" >"$WORK/tiles.txt"
/usr/bin/python3 - "$WORK/tiles.txt" "$PYRAMIDS" "$SIZE" >"$WORK/mixed.txt" <<'PY'
import random, sys
tiles = [line.strip() for line in open(sys.argv[1]) if line.strip()]
pyramids, size = int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(5)
out = list(tiles)
for _ in range(len(tiles) // 4):
    zoom = 2 ** (rng.random() * 6 - 6)
    out.append("/api/images/p%d/visible?x=%d&y=%d&width=1920&height=1080&zoomScale=%.6f&prefetch=1"
               % (rng.randint(1, pyramids), rng.random() * size * zoom, rng.random() * size * zoom, zoom))
print("\n".join(out))
PY
TILE_BYTES=$(du -sb "$ROOT" | cut -f1)
echo "topology: varnishd $(varnishd -V 2>&1 | head -1 | grep -o '[0-9]\.[0-9.]*' | head -1) on :$VARNISH_PORT, replicas on ${PORTS[*]}" \
    "(--cache-mb $CACHE_MB each); $PYRAMIDS pyramids of ${SIZE}², $(wc -l <"$WORK/tiles.txt") tiles, $((TILE_BYTES >> 20)) MiB"

counters() { varnishstat -n "$WORK/varnish" -1 -f MAIN.cache_hit -f MAIN.cache_miss | awk '{ printf "%s ", $2 } END { print "" }'; }
# load PORT LIST SECONDS → wrk's output
load() { URLS="$3" wrk -t2 -c"$CONNECTIONS" -d"${2}s" --latency --timeout 10s -s bench/wrk/url-list.lua "http://127.0.0.1:$1"; }
summarize() {  # wrk output on stdin → "req/s p50 p99 max errors"
    awk '/Requests\/sec/ { r = $2 } / 50%/ { p50 = $2 } / 99%/ { p99 = $2 } /Latency/ && !max { max = $4 }
        /^status / { errors += $3 } /Socket errors/ { for (i = 4; i <= NF; i += 2) errors += $i }
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        END { printf "%.0f %.2f %.2f %.1f %d\n", r, ms(p50), ms(p99), ms(max), errors }'
}
row() { printf '| %-44s | %9s | %8s | %8s | %9s | %6s | %9s |\n' "$@"; }
echo
row "case" "req/s" "p50 ms" "p99 ms" "max ms" "errors" "hit ratio"
row "---" "---" "---" "---" "---" "---" "---"

# 1. Throughput.
load "${PORTS[0]}" 3 "$WORK/tiles.txt" >/dev/null  # the replica's cache and page cache see the tiles once
read -r rps p50 p99 max errors < <(load "${PORTS[0]}" "$SECONDS_PER" "$WORK/tiles.txt" | summarize)
row "straight to one replica (random tiles)" "$rps" "$p50" "$p99" "$max" "$errors" "-"
ratio() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { h = c - a; m = d - b; printf "%.3f", (h + m) ? h / (h + m) : 0 }'; }
for pass in cold warm; do
    [ "$pass" = cold ] && varnishadm -n "$WORK/varnish" "ban req.url ~ ." >/dev/null
    read -r h0 m0 < <(counters)
    read -r rps p50 p99 max errors < <(load "$VARNISH_PORT" "$SECONDS_PER" "$WORK/tiles.txt" | summarize)
    read -r h1 m1 < <(counters)
    row "through Varnish, $pass (random tiles)" "$rps" "$p50" "$p99" "$max" "$errors" "$(ratio "$h0" "$m0" "$h1" "$m1")"
done

# 2. Failover: stop the replica that serves p1 7 s into a load of tiles and visible-rect queries.
VICTIM_NAME=$(curl -fsI "http://127.0.0.1:$VARNISH_PORT/images/p1.dzi" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-backend" { print $2 }')
VICTIM=$(( ${VICTIM_NAME#tiler} - 1 ))
for how in TERM KILL; do
    varnishadm -n "$WORK/varnish" "ban req.url ~ ." >/dev/null
    read -r h0 m0 < <(counters)
    (sleep "$KILL_AT"; kill -s "$how" "$(cat "$WORK/replica-$VICTIM.pid")") &
    read -r rps p50 p99 max errors < <(load "$VARNISH_PORT" "$FAILOVER_SECONDS" "$WORK/mixed.txt" | summarize)
    read -r h1 m1 < <(counters)
    while kill -0 "$(cat "$WORK/replica-$VICTIM.pid")" 2>/dev/null; do sleep 0.1; done
    row "failover: $VICTIM_NAME gets SIG$how at ${KILL_AT} s of ${FAILOVER_SECONDS}" "$rps" "$p50" "$p99" "$max" "$errors" "$(ratio "$h0" "$m0" "$h1" "$m1")"
    start_replica "$VICTIM"
    sleep 3  # two good probes: healthy again
done

# 3. Re-slice p1 with --force under load and watch what Varnish answers.
echo
(load "$VARNISH_PORT" 25 "$WORK/mixed.txt" >"$WORK/reslice-load.txt") &
LOAD_PID=$!
/usr/bin/python3 bench/scale-out-reslice.py --tiler "$TILER" --root "$ROOT" --name p1 --source "$RESLICE_SOURCE" \
    --port "$VARNISH_PORT" --work "$WORK"
wait "$LOAD_PID"
read -r rps p50 p99 max errors < <(summarize <"$WORK/reslice-load.txt")
echo "load during the re-slice: $rps req/s, p99 $p99 ms, $errors errors"
