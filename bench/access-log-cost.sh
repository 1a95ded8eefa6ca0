#!/usr/bin/env bash
# What the access log costs: `tiler serve` with `--access-log` (lines to a file, as an operator would redirect stdout)
# against the same server without it, alternately in one run, on (a) one hot tile and (b) random cached tiles, with
# wrk on 127.0.0.1. Prints each round's ratio (with ÷ without) and the median; the goal is a cost ≤ 10 %.
#
# Usage: bench/access-log-cost.sh [SECONDS] [ROUNDS]     (default 8 s per measurement, 5 rounds; release build)
#        FORMAT=text|json (default json)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-5}
FORMAT=${FORMAT:-json}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
CONNECTIONS=${CONNECTIONS:-64}

scripts/setup wrk
source bench/lib.sh
prepare_serve_pyramid
LEVEL=$((TOP - 1)) GRID=$(( (SIZE / 2 + 255) / 256 ))

WORK=$(mktemp -d "$BENCH_DIR/access-log.XXXXXX")
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
declare -A ports=([off]=$(start_tiler off "$TILER" --cache-mb 256) [on]=$(start_tiler on "$TILER" --cache-mb 256 --access-log --log-format "$FORMAT"))

# run PORT LUA|PATH → req/s
run() {
    local port=$1 what=$2 out
    if [[ $what == *.lua ]]; then
        out=$(PREFIX=/images/img_files LEVEL=$LEVEL COLS=$GRID ROWS=$GRID wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER}s" -s "$what" "http://127.0.0.1:$port")
    else
        out=$(wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER}s" "http://127.0.0.1:$port$what")
    fi
    if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx answers: $out" >&2; exit 1; fi
    awk '/Requests\/sec/ { printf "%.0f\n", $2 }' <<<"$out"
}

declare -A results
for server in off on; do  # warm both caches with the level
    PREFIX=/images/img_files LEVEL=$LEVEL COLS=$GRID ROWS=$GRID wrk -t1 -c8 -d3s -s bench/wrk/random-tiles.lua "http://127.0.0.1:${ports[$server]}" >/dev/null
done
for round in $(seq "$ROUNDS"); do
    order=(off on)
    [ $((round % 2)) -eq 0 ] && order=(on off)
    for case in a b; do
        what=$([ $case = a ] && echo "/images/img_files/$LEVEL/3_3.jpg" || echo bench/wrk/random-tiles.lua)
        for server in "${order[@]}"; do results[$server-$case]+="$(run "${ports[$server]}" "$what")"$'\n'; done
    done
done
lines=$(wc -l <"$WORK/on.out")
echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, with and without --access-log --log-format $FORMAT back to back" \
    "(who goes first alternating); $(nproc) cores; $lines access-log lines written ($(( $(stat -c %s "$WORK/on.out") >> 20 )) MiB)"
for case in a b; do
    label=$([ $case = a ] && echo "(a) one hot tile" || echo "(b) random cached tiles")
    ratios=$(paste -d' ' <(printf '%s' "${results[on-$case]}") <(printf '%s' "${results[off-$case]}") | awk '{ printf "%.3f\n", $1 / $2 }')
    echo "$label: without $(printf '%s' "${results[off-$case]}" | median) req/s, with $(printf '%s' "${results[on-$case]}" | median) req/s;" \
        "with ÷ without by round: $(tr '\n' ' ' <<<"$ratios")(median $(median <<<"$ratios"))"
done
