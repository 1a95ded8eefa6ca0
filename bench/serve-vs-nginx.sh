#!/usr/bin/env bash
# Serving benchmark: `tiler serve` against nginx (sendfile, open_file_cache, access log off) on the same pyramid,
# alternately, in one run, with wrk on 127.0.0.1 (the load generator shares the machine's cores with the server).
#
# Usage: bench/serve-vs-nginx.sh [SECONDS] [ROUNDS]     (default 8 s per measurement, 5 rounds; medians reported;
#        VERBOSE=1 also prints every measurement on stderr)
#        TILER_BEFORE=/path/to/an/older/tiler bench/serve-vs-nginx.sh …   also measures that binary ("before") in the
#        same run (with TIFF and SZI Tilers of its own for (e) and (f)), each case against all three back to back (the
#        order rotating by round), and prints each round's ratio to nginx for both tilers: a before/after comparison
#        on the same machine in the same minutes.
# Cases: (a) one hot tile, (b) random tiles of one level that fits the cache, (c) random tiles over a level larger
# than the cache (the finest), (d) visible-rect queries for random viewports (tiler only: nginx has no such endpoint),
# (e) (c)'s random tiles passed through from the same picture sliced to a pyramidal TIFF (256-px JPEG tiles, sent as
# stored), (f) the same from an SZI: together what issue #53 asks to be ≥ 1.0× nginx (a, b, c, e, f).
# (e) and (f): the TIFF and the SZI are bench/lib.sh's prepare_containers (sliced once per BENCH_DIR into
# BENCH_DIR/request-cost-containers, as bench/request-cost.sh's (5) and (6)), each served by a Tiler of its own (one per
# binary) with the same --cache-mb, whose ROOT holds only that file (a hard link in a temporary folder, else a copy);
# check_container checks that its descriptor is the folder's and a tile of it the folder's, so (c)'s request sequence
# is the same tiles. Each such Tiler's cache is first offered every tile of the finest level once, in order, as
# request-cost.sh's (4)–(6) do: full of that level's tiles, the steady state (c) reaches within its measurement (the
# per-round warm-up is of (b)'s level, which these Tilers are not asked for, so they skip it). nginx's figure for (e)
# and for (f) is measured again beside them in each round — the same random tiles as files, the same request sequence
# as (c) — rather than reusing (c)'s, which was taken a measurement or more earlier (the machine's speed drifts).
# The share of cache hits over (c), (e) and (f) is printed below the table, to see that the three are comparable.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-5}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
CACHE_MB=${CACHE_MB:-64}
CONNECTIONS=${CONNECTIONS:-64}

scripts/setup nginx-light wrk
# shellcheck source=bench/lib.sh
source bench/lib.sh
prepare_serve_pyramid
prepare_containers
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
declare -A binary=([tiler]=$TILER [before]=${TILER_BEFORE:-})

# (e) and (f): a root of its own for each container, and a Tiler of its own on it for each binary; port
# ports[SERVER-tiff] or ports[SERVER-szi].
declare -A container=([tiff]=img-tiff.tif [szi]=img-szi.szi)
# offer_level PORT NAME: every tile of NAME's finest level requested once, row by row, over one connection.
offer_level() {
    local port=$1 name=$2 c r bad
    bad=$(for r in $(seq 0 $((GRID - 1))); do
        for c in $(seq 0 $((GRID - 1))); do
            printf 'url = "http://127.0.0.1:%s/images/%s_files/%s/%s_%s.jpg"\noutput = /dev/null\n' "$port" "$name" "$TOP" "$c" "$r"
        done
    done | curl -s -K - -w '%{http_code}\n' | grep -cv '^200$' || true)
    [ "$bad" = 0 ] || { echo "serve-vs-nginx: $bad of $name's level-$TOP tiles did not answer 200" >&2; exit 1; }
}
for kind in tiff szi; do
    file=${container[$kind]}
    mkdir -p "$WORK/root-$kind"
    ln -f "$CONTAINERS/$file" "$WORK/root-$kind/$file" 2>/dev/null || cp "$CONTAINERS/$file" "$WORK/root-$kind/$file"
    for server in $TILERS; do
        ports[$server-$kind]=$(ROOT="$WORK/root-$kind" start_tiler "$server-$kind" "${binary[$server]}" --cache-mb "$CACHE_MB")
        [ -n "${ports[$server-$kind]}" ] || { echo "serve-vs-nginx: $server-$kind did not start:" >&2; cat "$WORK/$server-$kind.err" >&2; exit 1; }
        check_container "${ports[$server-$kind]}" "img-$kind" "$server"
        offer_level "${ports[$server-$kind]}" "img-$kind"
    done
done

run() { wrk_run "$@"; }

HOT="/images/img_files/$FITS_LEVEL/3_3.jpg"
# measure SERVER CASE: one measurement of a case against one server, appended to its results. For (e) and (f), a
# Tiler's is its TIFF or SZI Tiler's (kind_of); nginx's, the folder's same tiles, as in (c). Around a Tiler's (c), (e) and (f) its cache hits
# and misses are added up in hits[SERVER-CASE] and misses[SERVER-CASE].
declare -A hits misses kind_of=([e]=tiff [f]=szi)
measure() {
    local server=$1 case=$2 port=${ports[$1]} prefix=/images/img_files kind=${kind_of[$2]:-} before=""
    export SERVER=$server
    if [ -n "$kind" ] && [ "$server" != nginx ]; then
        port=${ports[$server-$kind]} prefix=/images/img-${kind}_files SERVER=$server-$kind
    fi
    [[ $server == nginx || $case != [cef] ]] || before=$(cache_counts "$port")
    case $case in
        a) results[$server-a]+="$(run $port "$HOT")"$'\n' ;;
        b) results[$server-b]+="$(PREFIX=/images/img_files LEVEL=$FITS_LEVEL COLS=$FITS_GRID ROWS=$FITS_GRID run $port bench/wrk/random-tiles.lua)"$'\n' ;;
        c | e | f) results[$server-$case]+="$(PREFIX=$prefix LEVEL=$TOP COLS=$GRID ROWS=$GRID run "$port" bench/wrk/random-tiles.lua)"$'\n' ;;
        d) results[$server-d]+="$(NAME=img WIDTH=$SIZE HEIGHT=$SIZE run $port bench/wrk/random-viewports.lua)"$'\n' ;;
    esac
    if [ -n "$before" ]; then
        local h0 m0 h1 m1
        read -r h0 m0 <<<"$before"
        read -r h1 m1 < <(cache_counts "$port")
        hits[$server-$case]=$(( ${hits[$server-$case]:-0} + h1 - h0 ))
        misses[$server-$case]=$(( ${misses[$server-$case]:-0} + m1 - m0 ))
        [ -z "${VERBOSE:-}" ] || echo "    its cache: $((h1 - h0)) hits, $((m1 - m0)) misses" >&2
    fi
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
    for case in a b c e f; do
        for server in "${order[@]}"; do measure "$server" $case; done
    done
    for server in "${order[@]}"; do [ "$server" = nginx ] || measure "$server" d; done
done
echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, each case against ${SERVERS// /, } back to back (who goes first rotating); medians. $(nproc) cores; $(nginx -v 2>&1)"
[ -z "${TILER_BEFORE:-}" ] || echo "tiler: $TILER; before: $TILER_BEFORE"
echo
echo "| case | server | req/s | p50 ms | p99 ms | ÷ nginx req/s |"
echo "|---|---|---|---|---|---|"
declare -A rps_of
for case in a b c e f d; do
    label=$(case $case in a) echo "(a) one hot tile" ;; b) echo "(b) random tiles, level fits cache" ;;
        c) echo "(c) random tiles, level > cache" ;; d) echo "(d) visible-rect queries" ;;
        e) echo "(e) as (c), TIFF pass-through (nginx: the files)" ;; f) echo "(f) as (c), from an SZI (nginx: the files)" ;; esac)
    for server in $SERVERS; do
        data=${results[$server-$case]:-}
        [ -n "$data" ] || continue
        rps=$(cut -d' ' -f1 <<<"${data%$'\n'}" | median)
        p50=$(cut -d' ' -f2 <<<"${data%$'\n'}" | median)
        p99=$(cut -d' ' -f3 <<<"${data%$'\n'}" | median)
        rps_of[$server]=$rps
        ratio=""
        [ "$server" != nginx ] && [ $case != d ] && ratio=$(awk -v t="$rps" -v n="${rps_of[nginx]}" 'BEGIN { printf "%.2fx", t / n }')
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
for case in a b c e f; do
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
# The share of requests the cache answered, over all rounds' (c), (e) and (f).
for server in $TILERS; do
    echo "$server's tile cache hits: $(for case in c e f; do
        awk -v c=$case -v h="${hits[$server-$case]:-0}" -v m="${misses[$server-$case]:-0}" \
            'BEGIN { printf "(%s) %.1f %% of %d; ", c, (h + m) ? 100 * h / (h + m) : 0, h + m }'
    done | sed 's/; $//')"
done
echo
curl -s "http://127.0.0.1:$TILER_PORT/metrics" | grep -E "^tiler_cache_(hits|misses|evictions)" || true
