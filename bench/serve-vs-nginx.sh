#!/usr/bin/env bash
# Serving benchmark: `tiler serve` against nginx (sendfile, open_file_cache, access log off) on the same pyramid,
# alternately, in one run, with wrk on 127.0.0.1 (the load generator shares the machine's cores with the server).
#
# Usage: bench/serve-vs-nginx.sh [SECONDS] [ROUNDS]     (default 8 s per measurement, 5 rounds; medians reported;
#        VERBOSE=1 also prints every measurement on stderr)
#        TILER_BEFORE=/path/to/an/older/tiler bench/serve-vs-nginx.sh …   also measures that binary ("before") in the
#        same run, each case against all three back to back (the order rotating by round), and prints each round's
#        ratio to nginx for both tilers: a before/after comparison on the same machine in the same minutes.
# Cases: (a) one hot tile, (b) random tiles of one level that fits the cache, (c) random tiles over a level larger
# than the cache, (d) visible-rect queries for random viewports (tiler only: nginx has no such endpoint).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-5}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
CACHE_MB=${CACHE_MB:-64}
CONNECTIONS=${CONNECTIONS:-64}

scripts/setup nginx-light wrk
source bench/lib.sh
prepare_serve_pyramid
GRID=$(( (SIZE + 255) / 256 ))
FITS_LEVEL=$((TOP - 1)) FITS_GRID=$(( (SIZE / 2 + 255) / 256 ))
level_bytes() { du -sb "$ROOT/img_files/$1" | cut -f1; }
echo "pyramid: ${SIZE}x${SIZE}, level $FITS_LEVEL = $(( $(level_bytes $FITS_LEVEL) >> 20 )) MiB (fits the ${CACHE_MB} MiB cache)," \
    "level $TOP = $(( $(level_bytes "$TOP") >> 20 )) MiB (does not)"

WORK=$(mktemp -d)
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
NGINX_PORT=18081
write_nginx_conf "$NGINX_PORT"
nginx -c "$WORK/nginx.conf"
declare -A ports=([nginx]=$NGINX_PORT)
ports[tiler]=$(start_tiler tiler "$TILER" --cache-mb "$CACHE_MB")
SERVERS="nginx tiler"
TILERS="tiler"
if [ -n "${TILER_BEFORE:-}" ]; then
    [ -x "$TILER_BEFORE" ] || { echo "TILER_BEFORE=$TILER_BEFORE is not an executable" >&2; exit 1; }
    ports[before]=$(start_tiler before "$TILER_BEFORE" --cache-mb "$CACHE_MB")
    SERVERS="nginx tiler before"
    TILERS="tiler before"
fi
TILER_PORT=${ports[tiler]}

run() { wrk_run "$@"; }

HOT="/images/img_files/$FITS_LEVEL/3_3.jpg"
# measure SERVER CASE: one measurement of a case against one server, appended to its results.
measure() {
    local server=$1 case=$2 port=${ports[$1]}
    export SERVER=$server
    case $case in
        a) results[$server-a]+="$(run $port "$HOT")"$'\n' ;;
        b) results[$server-b]+="$(PREFIX=/images/img_files LEVEL=$FITS_LEVEL COLS=$FITS_GRID ROWS=$FITS_GRID run $port bench/wrk/random-tiles.lua)"$'\n' ;;
        c) results[$server-c]+="$(PREFIX=/images/img_files LEVEL=$TOP COLS=$GRID ROWS=$GRID run $port bench/wrk/random-tiles.lua)"$'\n' ;;
        d) results[$server-d]+="$(NAME=img WIDTH=$SIZE HEIGHT=$SIZE run $port bench/wrk/random-viewports.lua)"$'\n' ;;
    esac
}
declare -A results
for round in $(seq "$ROUNDS"); do
    # Warm both: every tile of the level that fits once, so (b) measures a warm cache on both sides ((c) of the
    # round before filled tiler's cache with the top level).
    for server in $SERVERS; do
        port=${ports[$server]}
        PREFIX=/images/img_files LEVEL=$FITS_LEVEL COLS=$FITS_GRID ROWS=$FITS_GRID \
            wrk -t1 -c8 -d2s -s bench/wrk/random-tiles.lua "http://127.0.0.1:$port" >/dev/null
    done
    # Each case against every server back to back, who goes first rotating by round: the machine's speed drifts
    # over seconds (other tenants), and measurements of two servers far apart in time would compare that drift.
    read -ra order <<<"$SERVERS"
    shift_by=$(( (round - 1) % ${#order[@]} ))
    order=("${order[@]:shift_by}" "${order[@]:0:shift_by}")
    for case in a b c; do
        for server in "${order[@]}"; do measure "$server" $case; done
    done
    for server in "${order[@]}"; do [ "$server" = nginx ] || measure "$server" d; done
done
echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, each case against $(sed 's/ /, /g' <<<"$SERVERS") back to back (who goes first rotating); medians. $(nproc) cores; $(nginx -v 2>&1)"
[ -z "${TILER_BEFORE:-}" ] || echo "tiler: $TILER; before: $TILER_BEFORE"
echo
echo "| case | server | req/s | p50 ms | p99 ms | ÷ nginx req/s |"
echo "|---|---|---|---|---|---|"
for case in a b c d; do
    label=$(case $case in a) echo "(a) one hot tile" ;; b) echo "(b) random tiles, level fits cache" ;;
        c) echo "(c) random tiles, level > cache" ;; d) echo "(d) visible-rect queries" ;; esac)
    for server in $SERVERS; do
        data=${results[$server-$case]:-}
        [ -n "$data" ] || continue
        rps=$(cut -d' ' -f1 <<<"${data%$'\n'}" | median)
        p50=$(cut -d' ' -f2 <<<"${data%$'\n'}" | median)
        p99=$(cut -d' ' -f3 <<<"${data%$'\n'}" | median)
        eval "${server}_rps=$rps"
        ratio=""
        [ $server != nginx ] && [ $case != d ] && ratio=$(awk -v t="$rps" -v n="$nginx_rps" 'BEGIN { printf "%.2fx", t / n }')
        printf '| %s | %s | %.0f | %s | %s | %s |\n' "$label" "$server" "$rps" "$p50" "$p99" "$ratio"
    done
done
echo
# The same comparison round by round (each round's measurements were taken back to back).
# by_round A B CASE → A's req/s ÷ B's, one per round.
by_round() {
    paste -d' ' <(cut -d' ' -f1 <<<"${results[$1-$3]%$'\n'}") <(cut -d' ' -f1 <<<"${results[$2-$3]%$'\n'}") |
        awk '{ printf "%.2f\n", $1 / $2 }'
}
for case in a b c; do
    for server in $TILERS; do
        ratios=$(by_round "$server" nginx $case)
        echo "($case) $server ÷ nginx by round: $(tr '\n' ' ' <<<"$ratios")(median $(median <<<"$ratios"))"
    done
done
if [ -n "${TILER_BEFORE:-}" ]; then
    ratios=$(by_round tiler before d)
    echo "(d) tiler ÷ before by round: $(tr '\n' ' ' <<<"$ratios")(median $(median <<<"$ratios"))"
fi
echo
curl -s "http://127.0.0.1:$TILER_PORT/metrics" | grep -E "^tiler_cache_(hits|misses|evictions)" || true
