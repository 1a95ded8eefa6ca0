#!/usr/bin/env bash
# Memory soak (issue 30, item 7): how much memory `tiler serve --cache-mb 64` holds under a minute of mixed load, run
# after run. Each run starts a fresh release server on a pyramid far larger than the cache and, for SECONDS_PER_RUN,
# drives it with three clients at once, all on 127.0.0.1 (sharing the machine's cores with the server):
#   - wrk -t2 -c256: random tiles of the finest level (bench/wrk/random-tiles.lua), far more tiles than the cache holds;
#   - wrk -t1 -c16: visible-rect queries for random viewports (bench/wrk/random-viewports.lua), which also warm tiles;
#   - junk: 4 Python clients in a loop sending malformed request lines, oversized heads, bodies, unknown and
#     traversing paths, half requests abandoned mid-head, and pipelined garbage (each on a new connection).
# The server's VmRSS (and RssAnon) is sampled from /proc every 0.5 s; at the end the kernel's own high-water mark
# (VmHWM) is the run's peak. One line per run, then a summary line judging every run against the goal
# "peak RSS ≤ cache budget + 100 MiB", and the server's /metrics memory gauges after the last run. Each run takes
# both cores for a minute: on a shared machine, run few.
#
# Usage: bench/memory-soak.sh [RUNS]              (default 3 runs of 60 s each; release build)
# Env:   SECONDS_PER_RUN (60)  CONNECTIONS (256)  CACHE_MB (64)  SIZE (32768: the picture is SIZE², its finest level
#        418 MiB of tiles)  BENCH_DIR (.bench-data/memory-soak)  TILER_BIN (a tiler binary to measure instead
#        of building this checkout's)  TILER_ENV (extra VAR=VALUE words for the server's environment, e.g.
#        TILER_ENV="MALLOC_ARENA_MAX=8" to try a setting without rebuilding)  TILER_ARGS (extra serve options)
#        KEEP_WORK=1 keeps the work folder (the server's output, the samples, wrk's reports)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
RUNS=${1:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-60}
CONNECTIONS=${CONNECTIONS:-256}
CACHE_MB=${CACHE_MB:-64}
SIZE=${SIZE:-32768}
BENCH_DIR=${BENCH_DIR:-.bench-data/memory-soak}
GOAL_MB=$((CACHE_MB + 100))

scripts/setup wrk
source bench/lib.sh
# This checkout's tiler (release) slices the pyramid once; TILER_BIN, when given, is the one served.
prepare_serve_pyramid
if [ -n "${TILER_BIN:-}" ]; then
    [ -x "$TILER_BIN" ] || { echo "memory-soak: TILER_BIN=$TILER_BIN is not an executable" >&2; exit 1; }
    TILER=$TILER_BIN
fi
GRID=$(((SIZE + 255) / 256))
LEVEL_MB=$(($(du -sb "$ROOT/img_files/$TOP" | cut -f1) >> 20))
echo "pyramid: ${SIZE}x${SIZE}, finest level $TOP: ${GRID}x${GRID} tiles, $LEVEL_MB MiB; --cache-mb $CACHE_MB; goal: peak RSS ≤ $GOAL_MB MiB"
echo "load per run: ${SECONDS_PER_RUN}s of wrk -t2 -c$CONNECTIONS random tiles + wrk -t1 -c16 visible-rect queries + 4 junk clients; $(nproc) cores"
echo "server: $TILER ${TILER_ENV:+(env $TILER_ENV)} ${TILER_ARGS:-}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/memory-soak.XXXXXX")
cleanup() {
    local f
    for f in "$WORK"/*.pid; do
        [ -e "$f" ] || continue
        kill "$(cat "$f")" 2>/dev/null || true
    done
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "memory-soak: a command failed at line $LINENO" >&2' ERR

# The junk clients: each loops until its deadline, one new connection per attempt, and reads whatever comes back.
cat >"$WORK/junk.py" <<'PY'
import random, socket, sys, threading, time
port, seconds, level, grid = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
end = time.monotonic() + seconds
sent = [0] * 4
def payloads(rng):
    tile = f"/images/img_files/{level}/{rng.randrange(grid)}_{rng.randrange(grid)}.jpg"
    return [
        b"GARBAGE\r\n\r\n",
        b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
        b"GET /images/img_files/../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /images/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /images/nope_files/3/0_0.jpg HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /api/images/img/visible?x=abc&y=0&width=-5&height=0&zoomScale=NaN HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET " + tile.encode() + b" HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * rng.randrange(1000, 200000) + b"\r\n\r\n",
        b"POST " + tile.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"b" * 100000,
        b"GET " + tile.encode() + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"GET " + tile.encode() + b" HTTP/1.1\r\nHo",  # abandoned mid-head
        (b"GET " + tile.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n") * 8 + b"\x00\x01\x02 junk\r\n\r\n",
        bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096))),
    ]
def client(index):
    rng = random.Random(index)
    while time.monotonic() < end:
        data = rng.choice(payloads(rng))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR) if rng.random() < 0.5 else None
                while s.recv(65536):
                    pass
        except OSError:
            pass
        sent[index] += 1
threads = [threading.Thread(target=client, args=(i,)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(sum(sent))
PY

# rss_kib PID FIELD: one field of /proc/PID/status, in KiB (empty once the process is gone).
rss_kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || true; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

peaks=()
for run in $(seq "$RUNS"); do
    # shellcheck disable=SC2086 # TILER_ENV and TILER_ARGS are lists of words
    env ${TILER_ENV:-} "$TILER" serve "$ROOT" --port 0 --cache-mb "$CACHE_MB" ${TILER_ARGS:-} >"$WORK/tiler.out" 2>"$WORK/tiler.err" &
    pid=$!
    echo $pid >"$WORK/tiler.pid"
    for _ in $(seq 300); do grep -q "is serving" "$WORK/tiler.out" 2>/dev/null && break; sleep 0.1; done
    port=$(grep -o '127.0.0.1:[0-9]*' "$WORK/tiler.out" | head -1 | cut -d: -f2 || true)
    if [ -z "$port" ] || ! curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; then
        echo "memory-soak: the server (pid $pid) did not start (port '${port:-}'); its output:" >&2
        cat "$WORK/tiler.out" "$WORK/tiler.err" >&2
        ps -o pid,stat,etime,args -p "$pid" >&2 || true
        exit 1
    fi
    start_kib=$(rss_kib $pid VmRSS)
    (
        while kill -0 $pid 2>/dev/null; do
            echo "$(rss_kib $pid VmRSS) $(rss_kib $pid RssAnon)"
            sleep 0.5
        done
    ) >"$WORK/samples" &
    echo $! >"$WORK/sampler.pid"
    PREFIX=/images/img_files LEVEL=$TOP COLS=$GRID ROWS=$GRID \
        wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" -s bench/wrk/random-tiles.lua "http://127.0.0.1:$port" >"$WORK/tiles.txt" &
    tiles_pid=$!
    NAME=img WIDTH=$SIZE HEIGHT=$SIZE \
        wrk -t1 -c16 -d"${SECONDS_PER_RUN}s" -s bench/wrk/random-viewports.lua "http://127.0.0.1:$port" >"$WORK/visible.txt" &
    visible_pid=$!
    junk=$(python3 "$WORK/junk.py" "$port" "$SECONDS_PER_RUN" "$TOP" "$GRID" || echo "failed")
    wait $tiles_pid && wait $visible_pid || { echo "memory-soak: wrk failed; the server said:" >&2; tail -20 "$WORK/tiler.err" >&2; exit 1; }
    sleep 1
    hwm_kib=$(rss_kib $pid VmHWM)
    end_kib=$(rss_kib $pid VmRSS)
    curl -s "http://127.0.0.1:$port/metrics" >"$WORK/metrics.txt" || true
    kill $pid
    wait $pid 2>/dev/null || true
    kill "$(cat "$WORK/sampler.pid")" 2>/dev/null || true
    wait "$(cat "$WORK/sampler.pid")" 2>/dev/null || true
    rm -f "$WORK/tiler.pid" "$WORK/sampler.pid"
    sampled_kib=$(awk '$1 > m { m = $1 } END { print m + 0 }' "$WORK/samples")
    anon_kib=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$WORK/samples")
    tiles_rps=$(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$WORK/tiles.txt")
    visible_rps=$(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$WORK/visible.txt")
    peak=$(mib "$hwm_kib")
    peaks+=("$peak")
    verdict=$([ "$peak" -le $GOAL_MB ] && echo ok || echo OVER)
    echo "run $run: peak RSS (VmHWM) $peak MiB = cache budget $CACHE_MB MiB + $((peak - CACHE_MB)) MiB [$verdict];" \
        "sampled max $(mib "$sampled_kib") MiB (anon $(mib "$anon_kib")), start $(mib "$start_kib"), end $(mib "$end_kib");" \
        "tiles $tiles_rps req/s, visible $visible_rps req/s, junk $junk connections"
done
over=0
for p in "${peaks[@]}"; do [ "$p" -le $GOAL_MB ] || over=$((over + 1)); done
sorted=$(printf '%s\n' "${peaks[@]}" | sort -n | tr '\n' ' ')
echo "peaks (MiB): ${peaks[*]} — min $(cut -d' ' -f1 <<<"$sorted"), max $(printf '%s\n' "${peaks[@]}" | sort -n | tail -1);" \
    "cache budget $CACHE_MB MiB; goal ≤ $GOAL_MB MiB: $([ $over = 0 ] && echo "met in every run" || echo "missed in $over of $RUNS runs")"
echo "last run's /metrics:"
grep -E "^tiler_(process|cache_bytes|cache_budget|malloc|iiif_render_bytes|open_connections)" "$WORK/metrics.txt" | sed 's/^/  /' || true
