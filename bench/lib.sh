# shellcheck shell=bash disable=SC2034  # it sets variables for the scripts that source it
# Shared by the benchmarks (sourced, not run): needs BENCH_DIR set.

# measure NAME OUTDIR COMMAND...: runs COMMAND under GNU time in an emptied OUTDIR, appends "wall cpu peakKiB" to
# $BENCH_DIR/NAME.times; on failure prints the command's stderr and exits.
# Before the run it waits SETTLE_SECONDS (6) after emptying OUTDIR: ext4 passes over inodes freed in the last 5 s
# when it allocates new ones, so a slice started right after deleting the last run's 21,853 tiles pays for that
# deletion in every file it creates (tiler's system time on the tiled TIFF: 2.3–4.0 s straight after, 1.2 s after a
# pause). Both tools get the same pause.
measure() {
    local name=$1 out=$2
    shift 2
    rm -rf "$out"
    mkdir -p "$out"
    sync
    sleep "${SETTLE_SECONDS:-6}"
    /usr/bin/time -f "%e %U %S %M" -o "$BENCH_DIR/.time" "$@" >/dev/null 2>"$BENCH_DIR/.stderr" || {
        cat "$BENCH_DIR/.stderr" >&2
        exit 1
    }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$BENCH_DIR/.time" >>"$BENCH_DIR/$name.times"
}

# median: the median of the numbers on stdin, one per line.
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# prepare_sample: builds tiler (release) and, once per BENCH_DIR, a SIZE² sample picture; sets TILER and SOURCE.
prepare_sample() {
    swift build -c release --product tiler >/dev/null
    TILER="$(swift build -c release --show-bin-path)/tiler"
    mkdir -p "$BENCH_DIR"
    SOURCE="$BENCH_DIR/serve-$SIZE.jpg"
    [ -s "$SOURCE" ] || "$TILER" sample "$SOURCE" --size "${SIZE}x${SIZE}" --quiet
}

# prepare_tiler: prepare_sample, or with TILER_BIN (a release tiler to measure instead of building this checkout's)
# that binary and the sample made by it; sets TILER and SOURCE.
prepare_tiler() {
    if [ -z "${TILER_BIN:-}" ]; then
        prepare_sample
        return
    fi
    [ -x "$TILER_BIN" ] || { echo "bench: TILER_BIN=$TILER_BIN is not an executable" >&2; exit 1; }
    [[ $TILER_BIN != */debug/* ]] || { echo "bench: TILER_BIN=$TILER_BIN is a debug build; measure a release one" >&2; exit 1; }
    TILER=$TILER_BIN
    mkdir -p "$BENCH_DIR"
    SOURCE="$BENCH_DIR/serve-$SIZE.jpg"
    [ -s "$SOURCE" ] || "$TILER" sample "$SOURCE" --size "${SIZE}x${SIZE}" --quiet
}

# use_gateway: the S3 store in $WORK/gw — the gateway S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_REGION name, else
# a one-node Ceph RADOS Gateway started now (OWN_GATEWAY=1; stop it with stop_gateway) — its variables exported, and
# the AWS ones Tiler reads.
use_gateway() {
    mkdir -p "$WORK/gw"
    if [ -n "${S3_ENDPOINT:-}" ]; then
        printf 'S3_ENDPOINT=%s\nS3_ACCESS_KEY=%s\nS3_SECRET_KEY=%s\nS3_REGION=%s\n' \
            "$S3_ENDPOINT" "$S3_ACCESS_KEY" "$S3_SECRET_KEY" "${S3_REGION:-us-east-1}" >"$WORK/gw/env"
    else
        OWN_GATEWAY=1
        Tests/Support/s3/ceph-rgw.sh start "$WORK/gw" >/dev/null
    fi
    set -a
    # shellcheck disable=SC1091
    source "$WORK/gw/env"
    set +a
    export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY AWS_ENDPOINT_URL=$S3_ENDPOINT AWS_REGION=$S3_REGION
}

# stop_gateway: stops the gateway use_gateway started, if it did.
stop_gateway() {
    [ -z "${OWN_GATEWAY:-}" ] || Tests/Support/s3/ceph-rgw.sh stop "$WORK/gw" >/dev/null 2>&1 || true
}

# prepare_serve_pyramid: prepare_tiler, and once per BENCH_DIR its pyramid `img`; sets TILER, SOURCE, ROOT and TOP (the
# pyramid's top level).
prepare_serve_pyramid() {
    prepare_tiler
    ROOT="$BENCH_DIR/serve-root"
    [ -s "$ROOT/img.dzi" ] || "$TILER" slice "$SOURCE" -o "$ROOT" --name img --quiet --force
    TOP=$("$TILER" info "$SOURCE" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["pyramid"]["maxLevel"])')
}

# prepare_containers: after prepare_serve_pyramid, the same picture sliced by TILER to a pyramidal TIFF (256-px JPEG
# tiles, which a Tiler passes through as stored) and to an SZI, once per BENCH_DIR, into BENCH_DIR/request-cost-containers
# (img-tiff.tif, img-szi.szi); sets CONTAINERS, that folder's absolute path. Served, each is checked by check_container.
prepare_containers() {
    local file
    CONTAINERS="$BENCH_DIR/request-cost-containers"
    for file in img-tiff.tif img-szi.szi; do
        [ -s "$CONTAINERS/$file" ] || "$TILER" slice "$SOURCE" -o "$CONTAINERS/$file" --quiet --force
    done
    CONTAINERS=$(cd "$CONTAINERS" && pwd)
}

# check_container PORT NAME [WHO]: the container NAME (img-tiff, img-szi) as the Tiler on PORT serves it has the
# folder pyramid's descriptor ROOT/img.dzi, byte for byte — the same levels and grid, so a request sequence for the
# folder's tiles is the same tiles — and a finest-level (TOP) tile of it answers 200, with the folder's bytes or at least
# its pixels (a TIFF's JPEG tile is passed through without the folder file's JFIF segment). Exits on a mismatch (but
# only warns when the pixels differ); says what it found on stderr (prefixed with WHO when given). Uses $WORK.
check_container() {
    local port=$1 name=$2 who=${3:+$3 } tile="$TOP/5_7.jpg" status me
    me=$(basename "$0" .sh)
    cmp -s <(curl -s "http://127.0.0.1:$port/images/$name.dzi") "$ROOT/img.dzi" || {
        echo "$me: /images/$name.dzi is not the folder's descriptor $ROOT/img.dzi:" >&2
        curl -s "http://127.0.0.1:$port/images/$name.dzi" >&2
        exit 1
    }
    status=$(curl -s -o "$WORK/$name-tile.jpg" -w '%{http_code}' "http://127.0.0.1:$port/images/${name}_files/$tile")
    [ "$status" = 200 ] || { echo "$me: /images/${name}_files/$tile answered $status" >&2; exit 1; }
    if cmp -s "$WORK/$name-tile.jpg" "$ROOT/img_files/$tile"; then
        echo "  $who$name: the folder's descriptor; tile $tile the folder's bytes" >&2
    elif /usr/bin/python3 -c 'import sys; from PIL import Image
a, b = (Image.open(f) for f in sys.argv[1:3]); sys.exit(a.size != b.size or a.tobytes() != b.tobytes())' \
        "$WORK/$name-tile.jpg" "$ROOT/img_files/$tile"; then
        echo "  $who$name: the folder's descriptor; tile $tile the folder's pixels ($(stat -c %s "$WORK/$name-tile.jpg") bytes" \
            "against $(stat -c %s "$ROOT/img_files/$tile"))" >&2
    else
        echo "  $me: warning: $who$name's tile $tile has other pixels than the folder's (sliced by another build?)" >&2
    fi
}

# cache_counts PORT → "hits misses" from the Tiler's /metrics on PORT, nothing when it has none.
cache_counts() {
    curl -s "http://127.0.0.1:$1/metrics" | awk '$1 == "tiler_cache_hits_total" { h = $2 } $1 == "tiler_cache_misses_total" { m = $2 }
        END { if (h != "" && m != "") printf "%d %d\n", h, m }'
}

# start_tiler NAME BINARY ARGS… → the port a `BINARY serve ROOT --port 0 ARGS…` listens on; its pid in $WORK/NAME.pid,
# its stdout (the access log, when on) in $WORK/NAME.out. `ROOT=… start_tiler …` serves another root.
start_tiler() {
    local name=$1 binary=$2
    shift 2
    "$binary" serve "$ROOT" --port 0 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    echo $! >"$WORK/$name.pid"
    for _ in $(seq 100); do grep -q "serving" "$WORK/$name.out" 2>/dev/null && break; sleep 0.1; done
    grep -o '127.0.0.1:[0-9]*' "$WORK/$name.out" | head -1 | cut -d: -f2
}

# wrk_run PORT LUA|PATH → "req/s p50ms p99ms errors"
# WRK_PREFIX (such as `taskset -c 1`) runs wrk under it.
wrk_run() {
    local port=$1 what=$2 out
    # shellcheck disable=SC2086
    if [[ $what == *.lua ]]; then
        out=$(${WRK_PREFIX:-} wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER}s" --latency -s "$what" "http://127.0.0.1:$port")
    else
        out=$(${WRK_PREFIX:-} wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER}s" --latency "http://127.0.0.1:$port$what")
    fi
    # ALLOW_ERRORS=1 (a comparator that refuses part of the load): errors are counted, not fatal; req/s counts 2xx only.
    if grep -q "Non-2xx" <<<"$out" && [ -z "${ALLOW_ERRORS:-}" ]; then echo "non-2xx answers: $out" >&2; exit 1; fi
    local result
    result=$(awk '/Requests\/sec/ { r = $2 } / 50%/ { p50 = $2 } / 99%/ { p99 = $2 } / requests in / { n = $1; t = $4 + 0 }
        /Non-2xx/ { e = $5 } /Socket errors/ { gsub(",", ""); e += $4 + $6 + $8 + $10 }
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        END { good = (e > 0 && t > 0) ? (n - e) / t : r; printf "%.0f %.3f %.3f %d\n", good, ms(p50), ms(p99), e }' <<<"$out")
    # VERBOSE=1: every measurement on stderr (req/s p50 p99), to see the spread behind the medians.
    [ -z "${VERBOSE:-}" ] || echo "  ${SERVER:-} ${LEVEL:+level $LEVEL }$what: $result" >&2
    echo "$result"
}

# write_nginx_conf PORT [SERVER-BLOCK…]: $WORK/nginx.conf for nginx serving ROOT's folder pyramids at /images/ on PORT as
# fast as it serves files (sendfile, tcp_nopush, open_file_cache, access log off), plus any further server blocks.
write_nginx_conf() {
    local port=$1
    shift
    cat >"$WORK/nginx.conf" <<CONF
worker_processes auto;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    open_file_cache max=100000 inactive=60s;
    open_file_cache_valid 60s;
    types { image/jpeg jpg; application/xml dzi; }
    server {
        listen 127.0.0.1:$port;
        location /images/ { alias $(cd "$ROOT" && pwd)/; }
    }
$(printf '    %s\n' "$@")
}
CONF
}

# stop_server NAME: stops the server start_tiler started as NAME ($WORK/NAME.pid): SIGTERM, up to 5 s, then SIGKILL.
stop_server() {
    local name=$1 pid
    pid=$(cat "$WORK/$name.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f "$WORK/$name.pid"
}

# choose_tiler NAME: sets TILER to TILER_BIN (an executable release build) or to this checkout's release build, made
# now; NAME prefixes the errors. Needs nothing from this file, so a script may call it before sourcing it.
choose_tiler() {
    if [ -n "${TILER_BIN:-}" ]; then
        [ -x "$TILER_BIN" ] || { echo "$1: TILER_BIN=$TILER_BIN is not an executable" >&2; exit 1; }
        [[ $TILER_BIN != */debug/* ]] || { echo "$1: TILER_BIN=$TILER_BIN is a debug build; measure a release one" >&2; exit 1; }
        TILER=$TILER_BIN
    else
        command -v swift >/dev/null || { echo "$1: swift is not on PATH (or set TILER_BIN)" >&2; exit 1; }
        echo "building tiler (release)" >&2
        swift build -c release --product tiler 2>&1 | tail -n 1 >&2
        TILER="$(swift build -c release --show-bin-path)/tiler"
    fi
}

# prepare_hostile_root: the WIDTH×HEIGHT picture and its pyramid `big` the hostile-client benches share, made once in
# $BENCH_DIR/hostile; sets SOURCE and ROOT.
prepare_hostile_root() {
    mkdir -p "$BENCH_DIR/hostile"
    SOURCE="$BENCH_DIR/hostile/picture-${WIDTH}x$HEIGHT.jpg"
    ROOT="$BENCH_DIR/hostile/root-${WIDTH}x$HEIGHT"
    [ -s "$SOURCE" ] || "$TILER" sample "$SOURCE" --size "${WIDTH}x$HEIGHT" --quiet
    [ -s "$ROOT/big.dzi" ] || "$TILER" slice "$SOURCE" -o "$ROOT" --name big --quiet --force
}
