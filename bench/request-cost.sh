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
#        CACHE_MB=64     Tiler's --cache-mb (but case 9's, which is 0); TILER_ARGS adds arguments to every Tiler
#        WARMUP=300      requests before each counted case (case 2 first requests every tile of its level once)
#        BUCKET=1        also case 9, from an S3 bucket: the gateway S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and
#                        S3_REGION name, else a one-node Ceph RADOS Gateway started for the run and stopped after it
#                        (bench/lib.sh's use_gateway); BUCKET_SIZE=8192 is its SZI's size, the one bench/object-store.sh
#                        makes (BENCH_DIR/object-store-BUCKET_SIZE.szi, made here too when missing)
#        KEEP_DUMPS=DIR  keeps the callgrind dumps (SERVER-CASE.cg) in DIR, for callgrind_annotate or kcachegrind
#        TOP_FUNCTIONS=10  how many of the most expensive Tiler functions to print (self and inclusive) for case 1,
#                        and for case 9 when it runs
# Cases (Tiler; nginx where it serves the same files):
#   (1) one hot tile, /images/img_files/L/3_3.jpg of a level L that fits the cache;
#   (2) random tiles of that level L (every tile of it requested once before, so all are in the cache);
#   (3) visible-rect queries for random 1920×1080 viewports (Tiler only);
#   (4) random tiles of the finest level, larger than the cache, from a Tiler of its own whose cache was first offered
#       every tile of that level once, in order (so it is full, of that level's tiles only: the steady state of a
#       level larger than the cache, whatever REQUESTS is);
#   (5) the same random tiles of the same picture sliced to a pyramidal TIFF (256-px JPEG tiles, passed through as
#       stored), (6) sliced to an SZI: both sliced once per BENCH_DIR into BENCH_DIR/request-cost-containers; each
#       case from a Tiler of its own whose ROOT holds only them, its cache filled as in (4), so (4), (5) and (6) see
#       about the same hits and misses (printed below the table). Their Deep Zoom descriptors must equal the
#       folder's (same levels, same grid) and a tile of each is checked against the folder's file (bytes, else
#       pixels), so (4)'s sequence applies; nginx's figure for them is (4)'s, the same tiles as files (bench/lib.sh's
#       prepare_containers and check_container, which bench/serve-vs-nginx.sh's (e) and (f) use too);
#   (7) one hot private tile under its signed URL (IMG@VERSION_files/L/3_3.jpg?sig=…, the tileQuery /api/images
#       answers a `tiler token`), from a Tiler with `--access` (a policy with one key, every image private);
#       against (1) and (8). No nginx;
#   (8) the hot tile of (1) under its versioned URL (img@VERSION_files/…, VERSION from /api/images); nginx's figure
#       is (1)'s, the same file;
#   (9) BUCKET=1 only: random tiles of the finest level of an SZI in an S3 bucket (uploaded by
#       bench/object-store-prepare.py, which lists their paths), served by a Tiler on s3://BUCKET/ with
#       --cache-mb 0, so each request is one ranged GET of the store (signed): the cold-tile path. Only Tiler's
#       instructions are counted, not the gateway's. No nginx.
# Both servers get the same request sequences (fixed seeds). nginx runs single-process in the foreground
# (daemon off, master_process off, worker_processes 1) with the configuration bench/serve-vs-nginx.sh gives it
# (sendfile, open_file_cache, access log off): what sendfile does in the kernel is not counted, as no system call's
# kernel work is for either server. Tiler runs with `--cache-mb CACHE_MB` (64) and nothing else (TILER_ARGS adds).
# Each server runs alone, one after the other (a Tiler under valgrind takes a few seconds to start): the first Tiler
# serves (1)–(3) and (8); (4), (5), (6), (7) and (9) each get their own; then nginx (1), (2) and (4).
# The table's last column sets a Tiler figure beside another's: (5) and (6) beside the folder's (4), (7) and (8)
# beside the unversioned public (1), (9) beside the local SZI's (6) (another picture's tiles, the cache off).
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
ON_BUCKET=""
[ "${BUCKET:-}" != 1 ] || ON_BUCKET=1
BUCKET_SIZE=${BUCKET_SIZE:-8192}
PYTHON=/usr/bin/python3

# shellcheck disable=SC2086  # no argument when there is no bucket
scripts/setup valgrind nginx-light ${ON_BUCKET:+python3-boto3} >/dev/null
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
# Cases 5 and 6: the same picture as a pyramidal TIFF and as an SZI, in a folder of their own (CONTAINERS).
prepare_containers
# Case 9: bench/object-store.sh's SZI, made the same way when missing.
if [ -n "$ON_BUCKET" ]; then
    SZI="$BENCH_DIR/object-store-$BUCKET_SIZE.szi"
    if [ ! -s "$SZI" ]; then
        [ -s "$BENCH_DIR/serve-$BUCKET_SIZE.jpg" ] ||
            "$TILER" sample "$BENCH_DIR/serve-$BUCKET_SIZE.jpg" --size "${BUCKET_SIZE}x${BUCKET_SIZE}" --quiet
        "$TILER" slice "$BENCH_DIR/serve-$BUCKET_SIZE.jpg" -o "$SZI" --quiet --force
    fi
fi

WORK=$(mktemp -d)
cleanup() {
    local pid pids_to_stop=()
    while read -r pid; do pids_to_stop+=("$pid"); done < <(cat "$WORK"/*.pid 2>/dev/null)
    for pid in "${pids_to_stop[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids_to_stop[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    stop_gateway
    if [ -n "${KEEP_DUMPS:-}" ]; then mkdir -p "$KEEP_DUMPS"; cp "$WORK"/*-?.cg "$KEEP_DUMPS"/ 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The client: COUNT requests over one keep-alive connection, one after another, every answer read whole and checked
# to be a 200. Modes: path PATH | random PREFIX LEVEL COLS ROWS SEED | every PREFIX LEVEL COLS ROWS |
# visible NAME WIDTH HEIGHT SEED (viewports as bench/wrk/random-viewports.lua draws them) | list FILE SEED (random
# lines of FILE, one path a line).
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
elif mode == "list":
    with open(args[0]) as f:
        lines = [line.strip() for line in f if line.strip()]
    rng = random.Random(int(args[1]))
    paths = [rng.choice(lines) for _ in range(count)]
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
# json_field PORT PATH NAME FIELD [CURL-ARGS…]: FIELD of the image NAME in the JSON list PATH answers.
json_field() {
    local port=$1 path=$2 name=$3 field=$4
    shift 4
    curl -s "$@" "http://127.0.0.1:$port$path" |
        "$PYTHON" -c 'import json, sys; print(next(i[sys.argv[2]] for i in json.load(sys.stdin) if i["name"] == sys.argv[1]))' \
            "$name" "$field"
}

# The debug-stripped copy of the binary (see above).
objcopy --strip-debug "$TILER" "$WORK/tiler"

declare -A parts pids ports
CALLGRIND=(valgrind --tool=callgrind --dump-instr=no --collect-jumps=no)

# start_tiler_cg NAME ROOT CACHE-MB [ARGS…]: `tiler serve ROOT --cache-mb CACHE-MB ARGS… TILER_ARGS` under callgrind,
# its dumps $WORK/NAME.cg.N.
start_tiler_cg() {
    local name=$1 root=$2 cache_mb=$3 port
    shift 3
    port=$(free_port)
    # shellcheck disable=SC2086
    (cd "$WORK" && exec "${CALLGRIND[@]}" --callgrind-out-file="$WORK/$name.cg" \
        "$WORK/tiler" serve "$root" --port "$port" --cache-mb "$cache_mb" "$@" ${TILER_ARGS:-} \
        >"$WORK/$name.out" 2>"$WORK/$name.err") &
    pids[$name]=$!
    echo "${pids[$name]}" >"$WORK/$name.pid"
    ports[$name]=$port
    parts[$name]=0
    wait_for_port "$port" "${pids[$name]}" || { tail -20 "$WORK/$name.err" >&2; exit 1; }
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

# stop_cg NAME: stops that server (its dumps stay), so that only one runs at a time.
stop_cg() {
    local pid=${pids[$1]}
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$WORK/$1.pid"
}

# count SERVER CASE CLIENT-ARGS…: zero the server's counters, run exactly REQUESTS requests, dump; the dump's file in
# $WORK/SERVER-CASE.cg and its Ir ÷ REQUESTS in costs[SERVER-CASE]. Every server but nginx is a Tiler; each case is
# counted on one Tiler only, so costs[tiler-CASE] is Tiler's figure for it, whichever Tiler served it.
declare -A costs cache metrics_ports
# Tiler's cache hits and misses over a case: bench/lib.sh's cache_counts, asked outside the counted window. A Tiler
# with --access answers /metrics on its --metrics-port only: metrics_ports[SERVER].
count() {
    local server=$1 case=$2 pid=${pids[$1]} port=${ports[$1]} before="" key=nginx
    shift 2
    [ "$server" = nginx ] || { key=tiler; before=$(cache_counts "${metrics_ports[$server]:-$port}"); }
    callgrind_control --zero "$pid" >/dev/null 2>&1 || { echo "request-cost: callgrind_control --zero $pid failed" >&2; exit 1; }
    client "$port" "$REQUESTS" "$@"
    callgrind_control --dump "$pid" >/dev/null 2>&1 || { echo "request-cost: callgrind_control --dump $pid failed" >&2; exit 1; }
    parts[$server]=$(( ${parts[$server]} + 1 ))
    local file="$WORK/$server.cg.${parts[$server]}"
    for _ in $(seq 100); do [ -s "$file" ] && grep -q '^totals:' "$file" && break; sleep 0.1; done
    mv "$file" "$WORK/$key-$case.cg"
    local ir
    ir=$(callgrind_annotate "$WORK/$key-$case.cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
    [ -n "$ir" ] || { echo "request-cost: no PROGRAM TOTALS in $server's dump for case $case" >&2; exit 1; }
    costs[$key-$case]=$(( ir / REQUESTS ))
    if [ -n "$before" ]; then
        cache[$case]=$(paste -d' ' <(echo "$before") <(cache_counts "${metrics_ports[$server]:-$port}") | awk '{ printf "%d hits, %d misses", $3 - $1, $4 - $2 }')
    fi
    echo "  $server case $case: $ir Ir / $REQUESTS requests = ${costs[$key-$case]} Ir/request" >&2
}

# run_cases SERVER CASES: warm-up and count each case.
declare -A pyramid=([4]=img [5]=img-tiff [6]=img-szi)
run_cases() {
    local server=$1 cases=$2 case port=${ports[$1]} name
    for case in $cases; do
        case $case in
            1) client "$port" "$WARMUP" path "$HOT"
               count "$server" 1 path "$HOT" ;;
            2) client "$port" 0 every /images/img_files "$FITS_LEVEL" "$FITS_GRID" "$FITS_GRID"
               client "$port" "$WARMUP" random /images/img_files "$FITS_LEVEL" "$FITS_GRID" "$FITS_GRID" 2
               count "$server" 2 random /images/img_files "$FITS_LEVEL" "$FITS_GRID" "$FITS_GRID" 1 ;;
            3) client "$port" "$WARMUP" visible img "$SIZE" "$SIZE" 2
               count "$server" 3 visible img "$SIZE" "$SIZE" 1 ;;
            4 | 5 | 6)
               name=${pyramid[$case]}
               # Tiler: every tile of the level offered to the cache once, in order, so that it is full of this
               # level's tiles (TinyLFU admission: a cache full of another level's, more popular tiles would refuse
               # them). nginx has no cache of tiles.
               [ "$server" = nginx ] || client "$port" 0 every "/images/${name}_files" "$TOP" "$GRID" "$GRID"
               client "$port" "$WARMUP" random "/images/${name}_files" "$TOP" "$GRID" "$GRID" 2
               count "$server" "$case" random "/images/${name}_files" "$TOP" "$GRID" "$GRID" 1 ;;
            7) client "$port" "$WARMUP" path "$SIGNED_HOT"
               count "$server" 7 path "$SIGNED_HOT" ;;
            8) client "$port" "$WARMUP" path "$VERSIONED_HOT"
               count "$server" 8 path "$VERSIONED_HOT" ;;
            9) client "$port" "$WARMUP" list "$WORK/img.tiles" 2
               count "$server" 9 list "$WORK/img.tiles" 1 ;;
        esac
    done
}

started=$(date +%s)
echo "pyramid: ${SIZE}x${SIZE}, level $FITS_LEVEL = $(( $(level_bytes "$FITS_LEVEL") >> 20 )) MiB (fits the ${CACHE_MB} MiB cache)," \
    "level $TOP = $(( $(level_bytes "$TOP") >> 20 )) MiB (does not); $REQUESTS requests per case after a warm-up" >&2

# Cases 1–3 and 8: the folder, public.
start_tiler_cg tiler "$ROOT" "$CACHE_MB"
VERSION=$(json_field "${ports[tiler]}" /api/images img version)
VERSIONED_HOT="/images/img@${VERSION}_files/$FITS_LEVEL/3_3.jpg"
run_cases tiler "1 2 3 8"
stop_cg tiler

# Cases 4–6: the folder, the TIFF and the SZI, each in a Tiler of its own, so that each starts from the same cache —
# empty, then filled with its level's tiles (see run_cases) — and the three see about the same hits and misses.
for case in 4 5 6; do
    if [ "$case" = 4 ]; then
        start_tiler_cg beyond-4 "$ROOT" "$CACHE_MB"
    else
        start_tiler_cg "beyond-$case" "$CONTAINERS" "$CACHE_MB"
        check_container "${ports[beyond-$case]}" "${pyramid[$case]}"
    fi
    run_cases "beyond-$case" "$case"
    stop_cg "beyond-$case"
done

# Case 7: every image private, a tile by its signed URL.
head -c 48 /dev/urandom | base64 >"$WORK/k1.key"
echo '{"default": "private", "keys": [{"id": "k1", "file": "k1.key"}]}' >"$WORK/policy.json"
metrics_ports[private]=$(free_port)
start_tiler_cg private "$ROOT" "$CACHE_MB" --access "$WORK/policy.json" --metrics-port "${metrics_ports[private]}"
TOKEN=$("$TILER" token --access "$WORK/policy.json" --images img --expires 2h)
PRIVATE_VERSION=$(json_field "${ports[private]}" /api/images img version -H "Authorization: Bearer $TOKEN")
TILE_QUERY=$(json_field "${ports[private]}" /api/images img tileQuery -H "Authorization: Bearer $TOKEN")
SIGNED_HOT="/images/img@${PRIVATE_VERSION}_files/$FITS_LEVEL/3_3.jpg?$TILE_QUERY"
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${ports[private]}$HOT")
[ "$status" = 401 ] || { echo "request-cost: the private Tiler answered $status to an unsigned tile, not 401" >&2; exit 1; }
run_cases private 7
stop_cg private

# Case 9: the SZI in a bucket, Tiler's cache off.
if [ -n "$ON_BUCKET" ]; then
    use_gateway
    BUCKET_NAME="request-cost-$RANDOM$RANDOM"
    BUCKET_TOP=$("$PYTHON" bench/object-store-prepare.py "$WORK/gw" "$BUCKET_NAME" "$SZI" "$WORK/img")
    start_tiler_cg bucket "s3://$BUCKET_NAME/" 0
    run_cases bucket 9
    stop_cg bucket
    stop_gateway
    OWN_GATEWAY=""
fi

start_nginx_cg
run_cases nginx "1 2 4"
stop_cg nginx

label() {
    case $1 in
        1) echo "(1) one hot tile" ;;
        2) echo "(2) random tiles, level $FITS_LEVEL (fits the cache)" ;;
        3) echo "(3) visible-rect queries, random viewports" ;;
        4) echo "(4) random tiles, level $TOP (> cache)" ;;
        5) echo "(5) as (4), passed through from a pyramidal TIFF" ;;
        6) echo "(6) as (4), from an SZI" ;;
        7) echo "(7) one hot tile, private, signed versioned URL (?sig=…)" ;;
        8) echo "(8) one hot tile, versioned URL (img@VERSION_files/…)" ;;
        9) echo "(9) random finest-level tiles${BUCKET_TOP:+ (level $BUCKET_TOP)} of an SZI (${BUCKET_SIZE}²) in an S3" \
               "bucket, --cache-mb 0" ;;
    esac
}
# What Tiler's figure for a case is set beside (the last column): the same request to a public folder, or the same
# picture from a local file.
declare -A against=([5]=4 [6]=4 [7]=1 [8]=1 [9]=6)
# nginx's figure for a case it does not serve itself, from the case with the same files.
declare -A nginx_as=([5]=4 [6]=4 [8]=1)
declare -A nginx_note=([5]="the same tiles as files" [6]="the same tiles as files" [8]="the same file")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
echo "User-space instructions (callgrind Ir) per request, server process only; $REQUESTS keep-alive requests per case," \
    "one connection; ${SIZE}x${SIZE} pyramid, Tiler --cache-mb $CACHE_MB; $(valgrind --version), $(nginx -v 2>&1 | sed 's/^nginx version: //')"
echo "tiler: $TILER"
[ -z "$ON_BUCKET" ] || echo "(9): $SZI ($(( $(stat -c %s "$SZI") >> 20 )) MiB) in a bucket at $S3_ENDPOINT"
echo
echo "| case | Tiler Ir/request | nginx Ir/request | Tiler ÷ nginx | Tiler ÷ Tiler's (case) |"
echo "|---|---|---|---|---|"
for case in 1 2 3 4 5 6 7 8 9; do
    t=${costs[tiler-$case]:-} n=${costs[nginx-${nginx_as[$case]:-$case}]:-} vs="—" ratio="—"
    if [ -z "$t" ]; then
        t="—"
        [ "$case" != 9 ] || t="not run (BUCKET=1 runs it)"
        printf '| %s | %s | — | — | — |\n' "$(label "$case")" "$t"
        continue
    fi
    if [ -n "$n" ]; then
        ratio=$(ratio "$t" "$n")
        [ -z "${nginx_as[$case]:-}" ] || n="$n (as (${nginx_as[$case]}): ${nginx_note[$case]})"
    else
        n="—"
    fi
    a=${against[$case]:-}
    [ -z "$a" ] || [ -z "${costs[tiler-$a]:-}" ] || vs="$(ratio "$t" "${costs[tiler-$a]}") ($a)"
    printf '| %s | %s | %s | %s | %s |\n' "$(label "$case")" "$t" "$n" "$ratio" "$vs"
done
echo
echo "Tiler's tile cache over the counted requests: $(for case in 1 2 3 4 5 6 7 8 9; do [ -z "${cache[$case]:-}" ] || printf '(%s) %s; ' $case "${cache[$case]}"; done | sed 's/; $//')"

# The most expensive functions of a Tiler case, Swift names demangled when swift-demangle is on PATH. Functions
# at ≥ 95 % are left out of both lists: the event-loop thread's entry frames (clone, start_thread, NIOThread's closures,
# MultiThreadedEventLoopGroup's thread setup) are still on the stack at the dump, and callgrind_annotate shows them
# with all of the dump's cost even as self cost.
demangle() { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; }
# top_functions CASE yes|no: by inclusive or self cost.
top_functions() {
    callgrind_annotate --inclusive="$2" --threshold=100 "$WORK/tiler-$1.cg" 2>/dev/null |
        awk '/^-+$/ { dashes++; next } dashes == 6 && NF { print }' |
        awk -v n="$REQUESTS" -v top="$TOP_FUNCTIONS" '{
            ir = $1; gsub(",", "", ir); match($0, /\( *[0-9.]+%\)/); share = substr($0, RSTART + 1, RLENGTH - 2); sub(/^ +/, "", share)
            if (share + 0 >= 95 || shown++ >= top) next
            fn = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", fn); sub(/^\?\?\?:/, "", fn)
            if (match(fn, / \[[^]]*\]$/)) { lib = substr(fn, RSTART + 2, RLENGTH - 3); sub(/.*\//, "", lib); fn = substr(fn, 1, RSTART - 1) " [" lib "]" }
            printf "%d\t%s\t%s\n", ir / n, share, fn }' |
        demangle | awk -F'\t' '{ gsub(/\|/, "\\|", $3); printf "| %s | %s | %s |\n", $1, $2, $3 }'
}
for case in 1 9; do
    [ -s "$WORK/tiler-$case.cg" ] || continue
    echo
    echo "Tiler, $(label $case): the $TOP_FUNCTIONS most expensive functions by self cost (Ir per request, instructions in the function itself)"
    echo
    echo "| Ir/request | share | function |"
    echo "|---|---|---|"
    top_functions "$case" no
    echo
    echo "… and by inclusive cost (the function and everything it calls)"
    echo "(functions at ≥ 95 % — the event-loop thread's entry frames, on the stack at the dump — left out of both lists)"
    echo
    echo "| Ir/request | share | function |"
    echo "|---|---|---|"
    top_functions "$case" yes
done
echo
echo "($(( $(date +%s) - started )) s under callgrind)"
