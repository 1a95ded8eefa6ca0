#!/usr/bin/env bash
# Hostile clients (issue 17): replays, one after another, the attacks the issue lists against a release `tiler serve`
# on 127.0.0.1 while a normal client keeps asking for random tiles, and prints one row per attack: the server's
# descriptors and RSS (before → peak → after), its CPU during the attack, the normal client's requests ok/failed and
# p50/p99, and whether the server closed the attack's connections (median time), with PASS/FAIL against the goal
# "under each attack a normal client's tile requests keep succeeding, p99 under 50 ms, and the server's memory stays
# under its configured budgets".
#
# Usage: bench/hostile-clients.sh            (release build; about 3½ minutes with the defaults)
# Env:   SECONDS_PER_ATTACK (15)  how long each attack (and the normal client's measurement) runs
#        ATTACKS (all)            a comma list of: none, slow-body, flood, slowloris, iiif-no-read,
#                                 abandoned-renders, pipelined-no-read, head-render
#        TILER_BIN                a tiler binary to measure instead of building this checkout's
#        SERVER_NOFILE (4096)     the server's descriptor limit (prlimit), below the flood's 20,000
#        CACHE_MB (128)           the server's --cache-mb; RENDER_MB (256) its --iiif-render-mb where it has one
#        BUDGET_MB                the RSS budget rows are judged against (default CACHE_MB + RENDER_MB, or + 300
#                                 without --iiif-render-mb, + 100 MB base)
#        WIDTH, HEIGHT (8000, 6000) the generated picture; BENCH_DIR (.bench-data) where it and its pyramid are kept
#        SETTLE (3)               seconds after an attack before the "after" sample and a health check
#        NORMAL_SOURCE (127.0.0.2) the normal client's source address (the attacks come from 127.0.0.1)
#        RESULTS_DIR              where to keep each attack's JSON (every latency, failure, sample); default: none
# Each attack gets a fresh server (so one attack's leftovers — renders still running, a full descriptor table —
# do not land on the next), warmed by the normal client fetching every tile it will ask for once. The normal client
# (bench/hostile-clients.py, its own process): 3 random tiles of the three most detailed levels every 10 ms on one
# kept-alive connection, one tile on a new connection every 100 ms, and one small rendered IIIF region (300², off
# the tile grid) on a new connection every second, all from 127.0.0.2 (the attacks come from 127.0.0.1); a request
# slower than 2 s counts as failed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
SECONDS_PER_ATTACK=${SECONDS_PER_ATTACK:-15}
ATTACKS=${ATTACKS:-none,slow-body,flood,slowloris,iiif-no-read,abandoned-renders,pipelined-no-read,head-render}
SERVER_NOFILE=${SERVER_NOFILE:-4096}
CACHE_MB=${CACHE_MB:-128}
RENDER_MB=${RENDER_MB:-256}
WIDTH=${WIDTH:-8000}
HEIGHT=${HEIGHT:-6000}
SETTLE=${SETTLE:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data}

PYTHON=$(command -v python3 || true)
[ -n "$PYTHON" ] || { echo "hostile-clients: python3 (3.9 or later, standard library only) is required" >&2; exit 1; }
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))' ||
    { echo "hostile-clients: $PYTHON is older than 3.9" >&2; exit 1; }
command -v prlimit >/dev/null || { echo "hostile-clients: prlimit (util-linux) is required" >&2; exit 1; }
[ -r /proc/self/status ] || { echo "hostile-clients: needs Linux /proc" >&2; exit 1; }

source bench/lib.sh

choose_tiler hostile-clients
prepare_hostile_root

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hostile-clients.XXXXXX")
cleanup() {
    local pid
    for f in "$WORK"/*.pid; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null || true
    done
    sleep 0.2
    for f in "$WORK"/*.pid; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What this build of the server offers.
HELP=$("$TILER" serve --help 2>&1 || true)
SERVER_ARGS=(--cache-mb "$CACHE_MB")
if grep -q -- "--iiif-render-mb" <<<"$HELP"; then
    SERVER_ARGS+=(--iiif-render-mb "$RENDER_MB")
    BUDGET_MB=${BUDGET_MB:-$((CACHE_MB + RENDER_MB + 100))}
    BUDGET_NOTE="--cache-mb $CACHE_MB + --iiif-render-mb $RENDER_MB + 100 MB base"
    RENDER_BUDGET_MB=$RENDER_MB
else
    BUDGET_MB=${BUDGET_MB:-$((CACHE_MB + 300 + 100))}
    BUDGET_NOTE="--cache-mb $CACHE_MB + 300 MB for renders (this build has no --iiif-render-mb) + 100 MB base"
    RENDER_BUDGET_MB=300
fi
grep -q -- "--shutdown-grace" <<<"$HELP" && SERVER_ARGS+=(--shutdown-grace 1)

# The server under a lowered descriptor limit: prlimit sets it and execs tiler, so $! is tiler's own pid.
cat >"$WORK/tiler-limited" <<SH
#!/bin/sh
exec prlimit --nofile=$SERVER_NOFILE:$SERVER_NOFILE "$TILER" "\$@"
SH
chmod +x "$WORK/tiler-limited"

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); tiler: $TILER" >&2
echo "server: tiler serve ${SERVER_ARGS[*]}, descriptor limit $SERVER_NOFILE; picture ${WIDTH}×$HEIGHT;" \
    "${SECONDS_PER_ATTACK} s per attack; client descriptor limit $(ulimit -Hn)" >&2
results=()
IFS=, read -ra attack_list <<<"$ATTACKS"
for attack in "${attack_list[@]}"; do
    echo "== $attack" >&2
    port=$(start_tiler "server-$attack" "$WORK/tiler-limited" "${SERVER_ARGS[@]}")
    pid=$(cat "$WORK/server-$attack.pid")
    if [ -z "$port" ]; then
        echo "hostile-clients: tiler serve did not start:" >&2
        cat "$WORK/server-$attack.err" >&2
        exit 1
    fi
    "$PYTHON" bench/hostile-clients.py run "$attack" --port "$port" --pid "$pid" --dzi "$ROOT/big.dzi" \
        --seconds "$SECONDS_PER_ATTACK" --settle "$SETTLE" --out "$WORK/$attack.json" &
    echo $! >"$WORK/client.pid"
    wait "$(cat "$WORK/client.pid")" || { echo "hostile-clients: the $attack run failed" >&2; exit 1; }
    rm -f "$WORK/client.pid"
    stop_server "server-$attack"
    results+=("$WORK/$attack.json")
done

echo
echo "bench/hostile-clients.sh: $(nproc) cores (load average $(cut -d' ' -f1-3 /proc/loadavg) at the end)," \
    "${SECONDS_PER_ATTACK} s per attack, a fresh \`tiler serve ${SERVER_ARGS[*]}\` for each under a" \
    "$SERVER_NOFILE-descriptor limit, a ${WIDTH}×$HEIGHT picture"
echo
"$PYTHON" bench/hostile-clients.py report --budget-mb "$BUDGET_MB" --budget-note "$BUDGET_NOTE" \
    --server-nofile "$SERVER_NOFILE" --render-budget-mb "$RENDER_BUDGET_MB" "${results[@]}"
if [ -n "${RESULTS_DIR:-}" ]; then
    mkdir -p "$RESULTS_DIR"
    cp "$WORK"/*.json "$RESULTS_DIR"/
    echo "every measurement: $RESULTS_DIR/ATTACK{,.normal,.monitor}.json" >&2
fi
