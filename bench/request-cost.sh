#!/usr/bin/env bash
# The cost of one request in user-space instructions: `tiler serve` and nginx (on the same tile files), each run under
# valgrind's callgrind, the server process only. Per case: a warm-up, `callgrind_control --zero`, exactly REQUESTS
# sequential requests over one keep-alive connection (a small Python client, not counted), `callgrind_control --dump`,
# and the dump's total Ir ÷ REQUESTS. Instruction counts do not depend on the machine's load, unlike rates.
#
# Usage: bench/request-cost.sh [REQUESTS]        (default 2000 requests per case)
#        TILER_BIN=/path/to/release/tiler bench/request-cost.sh   measures that binary instead of building this checkout
#        SIZE=4096 …     a smaller pyramid (default 16384, the one bench/serve-vs-nginx.sh uses; another SIZE gets its own
#                        BENCH_DIR, .bench-data/request-cost-SIZE, unless BENCH_DIR is given)
#        KEEP_DUMPS=DIR  keeps the callgrind dumps (SERVER-CASE.cg) in DIR, for callgrind_annotate or kcachegrind
#        TOP_FUNCTIONS=10  how many of the hot-tile case's most expensive Tiler functions to print (self and inclusive)
# Cases: (1) one hot tile, (2) random tiles of a level that fits the cache (every tile of it requested once before),
# (3) visible-rect queries for random viewports (Tiler only), (4) random tiles over a level larger than the cache.
# Both servers get the same request sequences (fixed seeds). nginx runs single-process in the foreground
# (daemon off, master_process off, worker_processes 1) with the configuration bench/serve-vs-nginx.sh gives it
# (sendfile, open_file_cache, access log off): what sendfile does in the kernel is not counted, as no system call's
# kernel work is for either server. Tiler runs with `--cache-mb CACHE_MB` (64) and nothing else (TILER_ARGS adds).
#
# valgrind 3.19 (Debian 12) cannot read the DWARF 5 debug info of a Swift 6 binary ("unhandled dwarf2 abbrev form",
# then it gives up), so callgrind runs a copy with the debug sections removed (`objcopy --strip-debug`): the symbol
# table stays, so functions are still named; the instructions executed are the same.
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${1:-2000}
SIZE=${SIZE:-16384}
if [ "$SIZE" = 16384 ]; then BENCH_DIR=${BENCH_DIR:-.bench-data}; else BENCH_DIR=${BENCH_DIR:-.bench-data/request-cost-$SIZE}; fi
CACHE_MB=${CACHE_MB:-64}
TOP_FUNCTIONS=${TOP_FUNCTIONS:-10}
WARMUP=${WARMUP:-300}
PYTHON=/usr/bin/python3

scripts/setup valgrind nginx-light >/dev/null
# shellcheck source=bench/lib.sh
source bench/lib.sh
prepare_serve_pyramid
ROOT=$(cd "$ROOT" && pwd)  # the servers run in $WORK
grep -q "Width=\"$SIZE\"" "$ROOT/img.dzi" || {
    echo "request-cost: $ROOT/img.dzi is not ${SIZE}x${SIZE}; give another BENCH_DIR" >&2
    exit 1
}
GRID=$(( (SIZE + 255) / 256 ))
FITS_LEVEL=$((TOP - 1)) FITS_GRID=$(( (SIZE / 2 + 255) / 256 ))
level_bytes() { du -sb "$ROOT/img_files/$1" | cut -f1; }
HOT="/images/img_files/$FITS_LEVEL/3_3.jpg"

WORK=$(mktemp -d)
cleanup() {
    local pid pids_to_stop=()
    while read -r pid; do pids_to_stop+=("$pid"); done < <(cat "$WORK"/*.pid 2>/dev/null)
    for pid in "${pids_to_stop[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids_to_stop[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ -n "${KEEP_DUMPS:-}" ]; then mkdir -p "$KEEP_DUMPS"; cp "$WORK"/*-?.cg "$KEEP_DUMPS"/ 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The client: COUNT requests over one keep-alive connection, one after another, every answer read whole and checked
# to be a 200. Modes: path PATH | random PREFIX LEVEL COLS ROWS SEED | every PREFIX LEVEL COLS ROWS |
# visible NAME WIDTH HEIGHT SEED (viewports as bench/wrk/random-viewports.lua draws them).
cat >"$WORK/client.py" <<'PY'
import http.client, random, sys
port, count, mode, args = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
if mode == "path":
    paths = [args[0]] * count
elif mode == "random":
    prefix, level, cols, rows, seed = args[0], args[1], int(args[2]), int(args[3]), int(args[4])
    rng = random.Random(seed)
    paths = [f"{prefix}/{level}/{rng.randrange(cols)}_{rng.randrange(rows)}.jpg" for _ in range(count)]
elif mode == "every":
    prefix, level, cols, rows = args[0], args[1], int(args[2]), int(args[3])
    paths = [f"{prefix}/{level}/{c}_{r}.jpg" for r in range(rows) for c in range(cols)]
elif mode == "visible":
    name, width, height, seed = args[0], int(args[1]), int(args[2]), int(args[3])
    rng = random.Random(seed)
    paths = []
    for _ in range(count):
        zoom = 2 ** (rng.random() * 8 - 7)
        x = int(rng.random() * width * zoom - 960)
        y = int(rng.random() * height * zoom - 540)
        paths.append(f"/api/images/{name}/visible?x={x}&y={y}&width=1920&height=1080&zoomScale={zoom:.6f}"
                     f"&contentScale={rng.randint(1, 2)}")
else:
    sys.exit(f"client: unknown mode {mode}")
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
bad = 0
for path in paths:
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    if response.status != 200:
        bad += 1
        if bad <= 3:
            print(f"client: {response.status} for {path}", file=sys.stderr)
    if response.will_close:
        sys.exit(f"client: the server closed the connection after {path}")
conn.close()
if bad:
    sys.exit(f"client: {bad} of {len(paths)} answers were not 200")
PY
client() { "$PYTHON" "$WORK/client.py" "$@"; }

free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for_port() {
    local port=$1 pid=$2
    for _ in $(seq 600); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
        kill -0 "$pid" 2>/dev/null || { echo "request-cost: the server under valgrind exited" >&2; return 1; }
        sleep 0.2
    done
    echo "request-cost: no answer on port $port after 120 s" >&2
    return 1
}

# The debug-stripped copy of the binary (see above).
objcopy --strip-debug "$TILER" "$WORK/tiler"

declare -A parts pids ports
CALLGRIND=(valgrind --tool=callgrind --dump-instr=no --collect-jumps=no)

start_tiler_cg() {
    local port
    port=$(free_port)
    # shellcheck disable=SC2086
    (cd "$WORK" && exec "${CALLGRIND[@]}" --callgrind-out-file="$WORK/tiler.cg" \
        "$WORK/tiler" serve "$ROOT" --port "$port" --cache-mb "$CACHE_MB" ${TILER_ARGS:-} \
        >"$WORK/tiler.out" 2>"$WORK/tiler.err") &
    pids[tiler]=$!
    echo "${pids[tiler]}" >"$WORK/tiler.pid"
    ports[tiler]=$port
    parts[tiler]=0
    wait_for_port "$port" "${pids[tiler]}" || { tail -20 "$WORK/tiler.err" >&2; exit 1; }
}

start_nginx_cg() {
    local port
    port=$(free_port)
    write_nginx_conf "$port"
    sed -i 's/^worker_processes auto;/daemon off;\nmaster_process off;\nworker_processes 1;/' "$WORK/nginx.conf"
    mkdir -p "$WORK/nginx-prefix"
    (cd "$WORK" && exec "${CALLGRIND[@]}" --callgrind-out-file="$WORK/nginx.cg" \
        nginx -p "$WORK/nginx-prefix" -e "$WORK/nginx-error.log" -c "$WORK/nginx.conf" \
        >"$WORK/nginx.out" 2>"$WORK/nginx.err") &
    pids[nginx]=$!
    echo "${pids[nginx]}" >"$WORK/nginx-cg.pid"
    ports[nginx]=$port
    parts[nginx]=0
    wait_for_port "$port" "${pids[nginx]}" || { tail -20 "$WORK/nginx.err" "$WORK/nginx-error.log" >&2; exit 1; }
}

# count SERVER CASE CLIENT-ARGS…: zero the server's counters, run exactly REQUESTS requests, dump; the dump's file in
# $WORK/SERVER-CASE.cg and its Ir ÷ REQUESTS in costs[SERVER-CASE].
declare -A costs cache
# cache_counts PORT → "hits misses" from Tiler's /metrics (asked outside the counted window).
cache_counts() {
    curl -s "http://127.0.0.1:$1/metrics" |
        awk '$1 == "tiler_cache_hits_total" { h = $2 } $1 == "tiler_cache_misses_total" { m = $2 } END { printf "%d %d\n", h, m }'
}
count() {
    local server=$1 case=$2 pid=${pids[$1]} port=${ports[$1]} before=""
    shift 2
    [ "$server" != tiler ] || before=$(cache_counts "$port")
    callgrind_control --zero "$pid" >/dev/null 2>&1 || { echo "request-cost: callgrind_control --zero $pid failed" >&2; exit 1; }
    client "$port" "$REQUESTS" "$@"
    callgrind_control --dump "$pid" >/dev/null 2>&1 || { echo "request-cost: callgrind_control --dump $pid failed" >&2; exit 1; }
    parts[$server]=$(( ${parts[$server]} + 1 ))
    local file="$WORK/$server.cg.${parts[$server]}"
    for _ in $(seq 100); do [ -s "$file" ] && grep -q '^totals:' "$file" && break; sleep 0.1; done
    mv "$file" "$WORK/$server-$case.cg"
    local ir
    ir=$(callgrind_annotate "$WORK/$server-$case.cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
    [ -n "$ir" ] || { echo "request-cost: no PROGRAM TOTALS in $server's dump for case $case" >&2; exit 1; }
    costs[$server-$case]=$(( ir / REQUESTS ))
    if [ -n "$before" ]; then
        cache[$case]=$(paste -d' ' <(echo "$before") <(cache_counts "$port") | awk '{ printf "%d hits, %d misses", $3 - $1, $4 - $2 }')
    fi
    echo "  $server case $case: $ir Ir / $REQUESTS requests = ${costs[$server-$case]} Ir/request" >&2
}

# run_cases SERVER CASES: warm-up and count each case.
run_cases() {
    local server=$1 cases=$2 case port=${ports[$1]}
    for case in $cases; do
        case $case in
            1) client "$port" "$WARMUP" path "$HOT"
               count "$server" 1 path "$HOT" ;;
            2) client "$port" 0 every /images/img_files "$FITS_LEVEL" "$FITS_GRID" "$FITS_GRID"
               client "$port" "$WARMUP" random /images/img_files "$FITS_LEVEL" "$FITS_GRID" "$FITS_GRID" 2
               count "$server" 2 random /images/img_files "$FITS_LEVEL" "$FITS_GRID" "$FITS_GRID" 1 ;;
            3) client "$port" "$WARMUP" visible img "$SIZE" "$SIZE" 2
               count "$server" 3 visible img "$SIZE" "$SIZE" 1 ;;
            4) client "$port" "$WARMUP" random /images/img_files "$TOP" "$GRID" "$GRID" 2
               count "$server" 4 random /images/img_files "$TOP" "$GRID" "$GRID" 1 ;;
        esac
    done
}

started=$(date +%s)
echo "pyramid: ${SIZE}x${SIZE}, level $FITS_LEVEL = $(( $(level_bytes "$FITS_LEVEL") >> 20 )) MiB (fits the ${CACHE_MB} MiB cache)," \
    "level $TOP = $(( $(level_bytes "$TOP") >> 20 )) MiB (does not); $REQUESTS requests per case after a warm-up" >&2
start_tiler_cg
run_cases tiler "1 2 3 4"
start_nginx_cg
run_cases nginx "1 2 4"

label() {
    case $1 in
        1) echo "(1) one hot tile" ;;
        2) echo "(2) random tiles, level $FITS_LEVEL (fits the cache)" ;;
        3) echo "(3) visible-rect queries, random viewports" ;;
        4) echo "(4) random tiles, level $TOP (> cache)" ;;
    esac
}
echo "User-space instructions (callgrind Ir) per request, server process only; $REQUESTS keep-alive requests per case," \
    "one connection; ${SIZE}x${SIZE} pyramid, Tiler --cache-mb $CACHE_MB; $(valgrind --version), $(nginx -v 2>&1 | sed 's/^nginx version: //')"
echo "tiler: $TILER"
echo
echo "| case | Tiler Ir/request | nginx Ir/request | Tiler ÷ nginx |"
echo "|---|---|---|---|"
for case in 1 2 3 4; do
    t=${costs[tiler-$case]:-} n=${costs[nginx-$case]:-}
    [ -n "$t" ] || continue
    if [ -n "$n" ]; then ratio=$(awk -v t="$t" -v n="$n" 'BEGIN { printf "%.2fx", t / n }'); else n="—" ratio="—"; fi
    printf '| %s | %s | %s | %s |\n' "$(label $case)" "$t" "$n" "$ratio"
done
echo
echo "Tiler's tile cache over the counted requests: $(for case in 1 2 3 4; do [ -z "${cache[$case]:-}" ] || printf '(%s) %s; ' $case "${cache[$case]}"; done | sed 's/; $//')"

# The most expensive functions of Tiler's hot-tile case, Swift names demangled when swift-demangle is on PATH. Functions
# at ≥ 95 % are left out of both lists: the event-loop thread's entry frames (clone, start_thread, NIOThread's closures,
# MultiThreadedEventLoopGroup's thread setup) are still on the stack at the dump, and callgrind_annotate shows them
# with all of the dump's cost even as self cost.
demangle() { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; }
top_functions() {
    callgrind_annotate --inclusive="$1" --threshold=100 "$WORK/tiler-1.cg" 2>/dev/null |
        awk '/^-+$/ { dashes++; next } dashes == 6 && NF { print }' |
        awk -v n="$REQUESTS" -v top="$TOP_FUNCTIONS" '{
            ir = $1; gsub(",", "", ir); match($0, /\( *[0-9.]+%\)/); share = substr($0, RSTART + 1, RLENGTH - 2); sub(/^ +/, "", share)
            if (share + 0 >= 95 || shown++ >= top) next
            fn = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", fn); sub(/^\?\?\?:/, "", fn)
            if (match(fn, / \[[^]]*\]$/)) { lib = substr(fn, RSTART + 2, RLENGTH - 3); sub(/.*\//, "", lib); fn = substr(fn, 1, RSTART - 1) " [" lib "]" }
            printf "%d\t%s\t%s\n", ir / n, share, fn }' |
        demangle | awk -F'\t' '{ gsub(/\|/, "\\|", $3); printf "| %s | %s | %s |\n", $1, $2, $3 }'
}
echo
echo "Tiler, (1) one hot tile: the $TOP_FUNCTIONS most expensive functions by self cost (Ir per request, instructions in the function itself)"
echo
echo "| Ir/request | share | function |"
echo "|---|---|---|"
top_functions no
echo
echo "… and by inclusive cost (the function and everything it calls)"
echo "(functions at ≥ 95 % — the event-loop thread's entry frames, on the stack at the dump — left out of both lists)"
echo
echo "| Ir/request | share | function |"
echo "|---|---|---|"
top_functions yes
echo
echo "($(( $(date +%s) - started )) s under callgrind)"
