#!/usr/bin/env bash
# Object-store benchmark: `tiler serve s3://…` against the store itself and against the same SZI on local disk,
# alternately, in one run, with wrk on 127.0.0.1 (the gateway, Tiler and wrk share the machine's cores).
#
# Usage: bench/object-store.sh [SECONDS] [ROUNDS]      (default 8 s per measurement, 5 rounds; medians and each
#        round's ratio reported; VERBOSE=1 prints every measurement on stderr)
# The store: the gateway S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_REGION name, else a one-node Ceph RADOS
# Gateway started for the run (Tests/Support/s3/ceph-rgw.sh) and stopped after it.
# Cases:
#   (cold) random tiles of the finest level with Tiler's cache off (--cache-mb 0), so every request is one ranged
#          GET of the object; against wrk's own ranged GETs of the same bytes straight from the gateway, at the same
#          concurrency, the store on cores of its own: the first half of the machine's cores for the gateway's
#          processes, the second half for Tiler and wrk (taskset), as a store on other machines would be. Goal:
#          Tiler's rate ≥ 0.9× the store's, its p50 ≤ 1.15× the store's.
#   (cold, shared) the same with every process on every core: the store then also pays for Tiler's CPU (and wrk's),
#          so this ratio is how much of a co-located store's capacity a proxied tile costs. Only with the gateway
#          started here (its processes are found by its folder), and at least 2 cores.
#   (warm) random tiles of the level below, which fits the cache, warmed first: Tiler on the bucket against Tiler on
#          the same SZI in a local folder. Goal ≥ 0.9×.
#   (list) a prefix of MANY (10,000) objects, one of them an SZI: seconds from `tiler serve` to serving. Goal < 10 s.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-5}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-8192}
CONNECTIONS=${CONNECTIONS:-16}
MANY=${MANY:-10000}

scripts/setup wrk python3-boto3
source bench/lib.sh
prepare_tiler
SZI="$BENCH_DIR/object-store-$SIZE.szi"
[ -s "$SZI" ] || "$TILER" slice "$SOURCE" -o "$SZI" --quiet --force

WORK=$(mktemp -d)
cleanup() {
    kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true
    stop_gateway
    rm -rf "$WORK"
}
trap cleanup EXIT
use_gateway
BUCKET="bench-$RANDOM$RANDOM"
TOP=$(/usr/bin/python3 bench/object-store-prepare.py "$WORK/gw" "$BUCKET" "$SZI" "$WORK/img")
WARM_LEVEL=$((TOP - 1))
WARM_GRID=$(((SIZE / 2 + 255) / 256))
mkdir -p "$WORK/local"
cp "$SZI" "$WORK/local/img.szi"

# Cores: the store's and Tiler's (with wrk), for the (cold) case.
CORES=$(nproc)
STORE_CORES="0-$((CORES / 2 - 1))" TILER_CORES="$((CORES / 2))-$((CORES - 1))"
APART=${OWN_GATEWAY:+1}
[ "$CORES" -ge 2 ] || APART=""
store_on() { # CORES: moves the gateway's processes (every thread) to CORES.
    local pid
    for pid in $(pgrep -f -- "$WORK/gw/"); do taskset -a -p -c "$1" "$pid" >/dev/null; done
}

declare -A ports
ports[cold]=$(ROOT="s3://$BUCKET/" start_tiler cold "$TILER" --cache-mb 0)
if [ -n "$APART" ]; then
    ports[apart]=$(ROOT="s3://$BUCKET/" start_tiler apart "$TILER" --cache-mb 0)
    taskset -a -p -c "$TILER_CORES" "$(cat "$WORK/apart.pid")" >/dev/null
fi
ports[warm]=$(ROOT="s3://$BUCKET/" start_tiler warm "$TILER" --cache-mb 1024)
ports[local]=$(ROOT="$WORK/local" start_tiler local "$TILER" --cache-mb 1024)
ports[store]=${S3_ENDPOINT##*:}
ports[store]=${ports[store]%%/*}

declare -A results
measure() {
    local who=$1 case=$2 port=${ports[$1]}
    export SERVER=$who
    case $case in
        cold | shared) [ "$who" = store ] && what=bench/wrk/ranged-list.lua || what=bench/wrk/url-list.lua
            [ "$who" != apart ] || who=cold
            results[$who-$case]+="$(RANGES=$WORK/img.ranges URLS=$WORK/img.tiles wrk_run "$port" "$what")"$'\n' ;;
        warm) results[$who-warm]+="$(PREFIX=/images/img_files LEVEL=$WARM_LEVEL COLS=$WARM_GRID ROWS=$WARM_GRID \
            wrk_run "$port" bench/wrk/random-tiles.lua)"$'\n' ;;
    esac
}
for round in $(seq "$ROUNDS"); do
    for who in warm local; do
        PREFIX=/images/img_files LEVEL=$WARM_LEVEL COLS=$WARM_GRID ROWS=$WARM_GRID \
            wrk -t1 -c8 -d2s -s bench/wrk/random-tiles.lua "http://127.0.0.1:${ports[$who]}" >/dev/null
    done
    # Back to back, who goes first alternating by round: the machine's speed drifts over seconds.
    if ((round % 2)); then cold=(cold store) warm=(warm local); else cold=(store cold) warm=(local warm); fi
    if [ -n "$APART" ]; then
        store_on "$STORE_CORES"
        for who in "${cold[@]}"; do
            [ "$who" = cold ] && who=apart
            WRK_PREFIX="taskset -c $TILER_CORES" measure "$who" cold
        done
        store_on "0-$((CORES - 1))"
        for who in "${cold[@]}"; do measure "$who" shared; done
    else
        for who in "${cold[@]}"; do measure "$who" cold; done
    fi
    for who in "${warm[@]}"; do measure "$who" warm; done
done

# The listing: MANY objects under one prefix, one of them the SZI.
/usr/bin/python3 bench/object-store-prepare.py "$WORK/gw" "$BUCKET" many "$MANY" "$SZI"
started=$(date +%s.%N)
ROOT="s3://$BUCKET/many/" start_tiler many "$TILER" --cache-mb 8 >/dev/null
listed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
# start_tiler waits 10 s at most: past that, the figure is a bound, not a time.
grep -q "serving" "$WORK/many.out" || listed="more than $listed"

column() { cut -d' ' -f"$1" <<<"${results[$2]%$'\n'}" | median; }
echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, back to back (who goes first alternating); medians."
if [ -n "$APART" ]; then
    echo "cold: the gateway on cores $STORE_CORES, Tiler and wrk on cores $TILER_CORES; shared: every process on every core."
fi
echo "$(nproc) cores; pyramid ${SIZE}x${SIZE} in one SZI ($(($(stat -c %s "$SZI") >> 20)) MiB); store: Ceph RADOS Gateway at $S3_ENDPOINT"
echo
echo "| case | server | req/s | p50 ms | p99 ms |"
echo "|---|---|---|---|---|"
rows=("cold tiler:cold" "cold store:store")
[ -z "$APART" ] || rows+=("shared tiler:cold" "shared store:store")
for row in "${rows[@]}" "warm tiler-on-bucket:warm" "warm tiler-on-disk:local"; do
    read -r case label <<<"$row"
    key=${label#*:}
    printf '| %s | %s | %.0f | %s | %s |\n' "$case" "${label%%:*}" "$(column 1 "$key-$case")" "$(column 2 "$key-$case")" \
        "$(column 3 "$key-$case")"
done
echo
by_round() {
    paste -d' ' <(cut -d' ' -f"$3" <<<"${results[$1]%$'\n'}") <(cut -d' ' -f"$3" <<<"${results[$2]%$'\n'}") |
        awk '{ printf "%.2f\n", $1 / $2 }'
}
specs=("cold-rate cold-cold store-cold 1" "cold-p50 cold-cold store-cold 2")
[ -z "$APART" ] || specs+=("shared-rate cold-shared store-shared 1" "shared-p50 cold-shared store-shared 2")
for spec in "${specs[@]}" "warm-rate warm-warm local-warm 1"; do
    read -r label a b field <<<"$spec"
    ratios=$(by_round "$a" "$b" "$field")
    echo "$label tiler ÷ $( [[ $b == store-* ]] && echo store || echo disk ) by round: $(tr '\n' ' ' <<<"$ratios")(median $(median <<<"$ratios"))"
done
echo "list: $MANY objects under one prefix listed and served in $listed s"
echo
curl -s "http://127.0.0.1:${ports[cold]}/metrics" | grep -E "^tiler_tile_reads_total|^tiler_cache_misses_total" || true
