#!/usr/bin/env bash
# Private images' cost: the same release `tiler serve` binary on the same pyramid, once public (no --access) and once
# with an access policy that makes it private, alternately, in one run, with wrk on 127.0.0.1 (serve-vs-nginx.sh's
# cases and method). The private server is asked for signed tile URLs (every tile request checks one HMAC-SHA256
# signature) and for visible-rect queries with a bearer token (one token check, and signed URLs in the answer).
#
# Usage: bench/private-vs-public.sh [SECONDS] [ROUNDS]     (default 8 s per measurement, 5 rounds; medians reported;
#        VERBOSE=1 also prints every measurement on stderr; CASES="a d" runs only those cases)
# Cases: (a) one hot tile, (b) random tiles of one level that fits the cache, (c) random tiles over a level larger
# than the cache, (d) visible-rect queries for random viewports.
# Besides req/s it reports each server's CPU time per request (user + system, from /proc/PID/stat around each
# measurement): on a machine shared with other work, throughput swings from round to round, CPU per request much less.
# And the CPU time of its event loops alone (the NIO-ELT threads, from /proc/PID/task/*/stat) per request: what answering
# costs, without the background threads — in (d) the warming thread, which reads the tiles each query asks for at up to
# a quarter of a core by wall time (TileWarmer.cpuShare), so its CPU per request rises whenever the rate falls, whatever
# the cause.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-5}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
CACHE_MB=${CACHE_MB:-64}
CONNECTIONS=${CONNECTIONS:-64}
CASES=${CASES:-a b c d}

scripts/setup wrk
source bench/lib.sh
prepare_serve_pyramid
GRID=$(( (SIZE + 255) / 256 ))
FITS_LEVEL=$((TOP - 1)) FITS_GRID=$(( (SIZE / 2 + 255) / 256 ))

WORK=$(mktemp -d)
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
head -c 48 /dev/urandom | base64 >"$WORK/k1.key"
echo '{"default": "private", "keys": [{"id": "k1", "file": "k1.key"}]}' >"$WORK/policy.json"
declare -A ports
ports[public]=$(start_tiler public "$TILER" --cache-mb "$CACHE_MB")
ports[private]=$(start_tiler private "$TILER" --cache-mb "$CACHE_MB" --access "$WORK/policy.json")
TOKEN=$("$TILER" token --access "$WORK/policy.json" --images '*' --expires 2h)
# The versioned tile prefix (both servers) and the signed query the private one hands out with its descriptor.
VERSIONED=$(curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:${ports[private]}/api/images" |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["dzi"][:-4])')
SIGNED=$(curl -s -D - -o /dev/null -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:${ports[private]}/images/img.dzi" |
    tr -d '\r' | sed -n 's/^Tiler-Tile-Query: //p')
[ -n "$SIGNED" ] || { echo "the private server handed out no signed tile query" >&2; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${ports[private]}${VERSIONED}_files/$FITS_LEVEL/3_3.jpg")" = 401 ] ||
    { echo "the private server served an unsigned tile" >&2; exit 1; }
declare -A query=([public]="" [private]="$SIGNED")
declare -A token=([public]="" [private]="$TOKEN")

# cpu_ticks SERVER: the server process's user + system time so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$(cat "$WORK/$1.pid")/stat"; }
# loop_ticks SERVER: the same for its event-loop threads only.
loop_ticks() {
    local task sum=0
    for task in /proc/"$(cat "$WORK/$1.pid")"/task/*; do
        [[ $(cat "$task/comm" 2>/dev/null) == NIO-ELT-* ]] && sum=$(( sum + $(awk '{ print $14 + $15 }' "$task/stat") ))
    done
    echo "$sum"
}
TICK_US=$(( 1000000 / $(getconf CLK_TCK) ))

# measure SERVER CASE: one measurement of a case against one server, appended to its results ("req/s p50 p99 errors
# cpu-µs-per-request event-loop-cpu-µs-per-request").
measure() {
    local server=$1 case=$2 port=${ports[$1]} before loop_before result
    export SERVER=$server
    local q=${query[$server]}
    before=$(cpu_ticks "$server") loop_before=$(loop_ticks "$server")
    result=$(measure_case "$server" "$case" "$port" "$q")
    awk -v r="$result" -v t=$(( ($(cpu_ticks "$server") - before) * TICK_US )) -v l=$(( ($(loop_ticks "$server") - loop_before) * TICK_US )) \
        -v s="$SECONDS_PER" 'BEGIN { split(r, f, " "); n = f[1] * s; printf "%s %.2f %.2f\n", r, (n > 0) ? t / n : 0, (n > 0) ? l / n : 0 }'
}

measure_case() {
    local server=$1 case=$2 port=$3 q=$4
    case $case in
        a) wrk_run "$port" "${VERSIONED}_files/$FITS_LEVEL/3_3.jpg${q:+?$q}" ;;
        b) PREFIX=${VERSIONED}_files LEVEL=$FITS_LEVEL COLS=$FITS_GRID ROWS=$FITS_GRID QUERY=$q wrk_run "$port" bench/wrk/random-tiles.lua ;;
        c) PREFIX=${VERSIONED}_files LEVEL=$TOP COLS=$GRID ROWS=$GRID QUERY=$q wrk_run "$port" bench/wrk/random-tiles.lua ;;
        d) NAME=img WIDTH=$SIZE HEIGHT=$SIZE TOKEN=${token[$server]} wrk_run "$port" bench/wrk/random-viewports.lua ;;
    esac
}
declare -A results
for round in $(seq "$ROUNDS"); do
    for server in public private; do
        q=${query[$server]}
        PREFIX=${VERSIONED}_files LEVEL=$FITS_LEVEL COLS=$FITS_GRID ROWS=$FITS_GRID QUERY=$q \
            wrk -t1 -c8 -d2s -s bench/wrk/random-tiles.lua "http://127.0.0.1:${ports[$server]}" >/dev/null
    done
    order=(public private)
    (( round % 2 == 0 )) && order=(private public)
    for case in $CASES; do
        for server in "${order[@]}"; do results[$server-$case]+="$(measure "$server" $case)"$'\n'; done
    done
done
echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, each case against public and private back to back (who goes first alternating); medians. $(nproc) cores"
echo
echo "| case | server | req/s | p50 ms | p99 ms | CPU µs/request | event-loop CPU µs/request | private ÷ public req/s | private ÷ public CPU/request | private ÷ public event-loop CPU/request |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for case in $CASES; do
    label=$(case $case in a) echo "(a) one hot tile" ;; b) echo "(b) random tiles, level fits cache" ;;
        c) echo "(c) random tiles, level > cache" ;; d) echo "(d) visible-rect queries" ;; esac)
    for server in public private; do
        data=${results[$server-$case]}
        rps=$(cut -d' ' -f1 <<<"${data%$'\n'}" | median)
        p50=$(cut -d' ' -f2 <<<"${data%$'\n'}" | median)
        p99=$(cut -d' ' -f3 <<<"${data%$'\n'}" | median)
        cpu=$(cut -d' ' -f5 <<<"${data%$'\n'}" | median)
        loop=$(cut -d' ' -f6 <<<"${data%$'\n'}" | median)
        eval "${server}_rps=$rps ${server}_cpu=$cpu ${server}_loop=$loop"
        ratio="" cpu_ratio="" loop_ratio=""
        if [ $server = private ]; then
            ratio=$(awk -v t="$rps" -v n="$public_rps" 'BEGIN { printf "%.3fx", t / n }')
            cpu_ratio=$(awk -v t="$cpu" -v n="$public_cpu" 'BEGIN { printf "%.3fx", t / n }')
            loop_ratio=$(awk -v t="$loop" -v n="$public_loop" 'BEGIN { printf "%.3fx", t / n }')
        fi
        printf '| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$server" "$rps" "$p50" "$p99" "$cpu" "$loop" "$ratio" "$cpu_ratio" "$loop_ratio"
    done
done
echo
# by_round CASE FIELD: private ÷ public of one field of the results, round by round, and their median.
by_round() {
    local ratios
    ratios=$(paste -d' ' <(cut -d' ' -f"$2" <<<"${results[private-$1]%$'\n'}") <(cut -d' ' -f"$2" <<<"${results[public-$1]%$'\n'}") |
        awk '{ printf "%.3f\n", ($2 > 0) ? $1 / $2 : 0 }')
    echo "$(tr '\n' ' ' <<<"$ratios")(median $(median <<<"$ratios"))"
}
for case in $CASES; do
    echo "($case) private ÷ public by round: $(by_round "$case" 1)"
    echo "($case) private ÷ public CPU per request by round: $(by_round "$case" 5)"
    echo "($case) private ÷ public event-loop CPU per request by round: $(by_round "$case" 6)"
done
