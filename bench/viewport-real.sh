#!/usr/bin/env bash
# The viewport loop with the real element (issue 33): a scripted ~65-s session of <tiler-viewer> in headless Chromium
# (bench/viewport-real.py: wheel zooms, slow drags, flicks, navigator jumps, zoom to 200 % and back) against a release
# `tiler serve --cache-mb 24 --access-log` on a SIZE² pyramid far larger than the cache, with the page cache dropped
# before every run. Two modes, alternating, RUNS rounds (who goes first alternates by round):
#   on       the element reports its viewport (and where it is going) to the visible-rect query;
#   blocked  Chromium blocks every /visible request (CDP Network.setBlockedURLs): the element as without reports;
#   nohold   (only with MODES="on nohold blocked") reports on, but tiles are requested at once instead of after the
#            report that names them: what ordering the wire is worth beside the server's join alone.
# Per run, from the server's access log: tile requests, the share served from the server's memory (hits; joins — a
# request that waited for a warming read or another request's read already under way — are counted apart, never as
# hits), tile p50/p95 (server time, µs), reports; from /metrics: warm reads, the share of them no request ever took
# (unrequested), the warming lag (visible-rect query → tile in the cache; p50/p95 as histogram bucket bounds) and
# the warming thread's CPU time over the session (its share of one core).
#
# Usage: bench/viewport-real.sh [RUNS]        (default 2 rounds: 4 sessions; release build)
# Env:   MODES ("on blocked")  SIZE (24000)  CACHE_MB (24)  BENCH_DIR (.bench-data/viewport-real)  TILER_BIN (a tiler to measure instead of
#        building this checkout's)  KEEP_WORK=1 keeps the work folder (access logs, metrics, session files)
#        STORE=s3: the pyramid is an SZI in an S3 bucket, served by `tiler serve s3://BUCKET/` (the gateway S3_* names,
#        else a one-node Ceph RADOS Gateway started for the run): what warming hides of the store's latency
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
RUNS=${1:-2}
SIZE=${SIZE:-24000}
CACHE_MB=${CACHE_MB:-24}
BENCH_DIR=${BENCH_DIR:-.bench-data/viewport-real}
MODES=${MODES:-on blocked}

scripts/setup chromium chromium-driver python3-selenium
source bench/lib.sh
prepare_serve_pyramid
if [ -n "${TILER_BIN:-}" ]; then
    [ -x "$TILER_BIN" ] || { echo "viewport-real: TILER_BIN=$TILER_BIN is not an executable" >&2; exit 1; }
    TILER=$TILER_BIN
fi
WORK=$(mktemp -d /tmp/viewport-real.XXXXXX)
cleanup() {
    for pidfile in "$WORK"/*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true; done
    [ -n "${KEEP_WORK:-}" ] && echo "work folder: $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

SERVED=$ROOT
if [ "${STORE:-}" = s3 ]; then
    scripts/setup python3-boto3
    SZI="$BENCH_DIR/img-$SIZE.szi"
    [ -s "$SZI" ] || "$TILER" slice "$SOURCE" -o "$SZI" --quiet --force
    if [ -z "${S3_ENDPOINT:-}" ]; then
        Tests/Support/s3/ceph-rgw.sh start "$WORK/gw" >/dev/null
        trap 'Tests/Support/s3/ceph-rgw.sh stop "$WORK/gw" >/dev/null 2>&1 || true; cleanup' EXIT
        set -a
        source "$WORK/gw/env"
        set +a
    fi
    export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY AWS_ENDPOINT_URL=$S3_ENDPOINT AWS_REGION=${S3_REGION:-us-east-1}
    BUCKET="viewport-$RANDOM$RANDOM"
    /usr/bin/python3 bench/object-store-prepare.py <(env | grep '^S3_') "$BUCKET" "$SZI" "$WORK/store" >/dev/null
    SERVED="s3://$BUCKET/"
fi
# start_tiler serves ROOT: the bucket instead when STORE=s3.
ROOT=$SERVED

PYRAMID_MB=$(($(du -sb "${SZI:-$ROOT/img_files}" | cut -f1) >> 20))
if (sync && echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then DROP=yes; else DROP="no (not allowed here: runs start with a warm page cache)"; fi
echo "pyramid ${SIZE}² ($PYRAMID_MB MiB of tiles), --cache-mb $CACHE_MB, page cache dropped before each run: $DROP; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# run MODE ROUND → one result line
run() {
    local mode=$1 round=$2 name="$1-$2" port
    [ "$DROP" = yes ] && { sync; echo 3 >/proc/sys/vm/drop_caches; }
    port=$(start_tiler "$name" "$TILER" --cache-mb "$CACHE_MB" --access-log --public Public)
    [ -n "$port" ] || { echo "viewport-real: tiler serve did not start:" >&2; cat "$WORK/$name.err" >&2; exit 1; }
    /usr/bin/python3 bench/viewport-real.py "http://127.0.0.1:$port" "$mode" "$WORK/$name.json" ||
        { echo "viewport-real: the session failed; the server said:" >&2; tail -5 "$WORK/$name.err" >&2; exit 1; }
    curl -sf "http://127.0.0.1:$port/metrics" >"$WORK/$name.metrics"
    kill "$(cat "$WORK/$name.pid")"
    wait "$(cat "$WORK/$name.pid")" 2>/dev/null || true
    rm -f "$WORK/$name.pid"
    /usr/bin/python3 - "$mode" "$round" "$WORK/$name.out" "$WORK/$name.metrics" "$WORK/$name.json" <<'EOF'
import json, re, sys
mode, round_, log, metrics, session = sys.argv[1:]
tiles, reports = [], 0
for line in open(log):
    m = re.search(r'"GET (\S+) HTTP/[\d.]+" (\d+) \d+ (\d+)us (\w+|-)', line)
    if not m:
        continue
    target, status, micros, cache = m.group(1), m.group(2), int(m.group(3)), m.group(4)
    if "/visible?" in target:
        reports += 1
    elif "_files/" in target and status == "200":
        tiles.append((micros, cache))
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else 0
n = len(tiles)
hits = sum(1 for _, c in tiles if c == "hit")
joins = sum(1 for _, c in tiles if c == "join")
text = open(metrics).read()
def value(name):
    m = re.search(rf"^{name} (\S+)$", text, re.M)
    return float(m.group(1)) if m else 0.0
warm = value("tiler_tile_warming_reads_total")
taken = value("tiler_tile_warming_reads_requested_total")
buckets = [(float(b) if b != "+Inf" else float("inf"), float(c)) for b, c in re.findall(r'^tiler_warming_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M)]
def lag(p):
    total = buckets[-1][1] if buckets else 0
    for bound, count in buckets:
        if total and count >= p * total:
            return "≤ " + (f"{bound * 1000:g} ms" if bound != float("inf") else "+Inf")
    return "-"
s = json.load(open(session))
shown_reports = f"{reports} ({s['predictedReports']} predicted)" if reports else "0"
print(f"| {mode} | {round_} | {s['seconds']:.0f} s | {n} | {hits / n if n else 0:.0%} | {joins} | {shown_reports} "
      f"| {pct([m for m, _ in tiles], 0.5)} / {pct([m for m, _ in tiles], 0.95)} µs | {int(warm)} | "
      f"{(warm - taken) / warm if warm else 0:.0%} | {lag(0.5)} / {lag(0.95)} | {value('tiler_warming_cpu_seconds_total') / s['seconds']:.2%} |")
EOF
}

echo
echo "| reports | round | session | tile requests | from the server's memory | joins | visible-rect reports | tile p50 / p95 | warm reads | unrequested | warming lag p50 / p95 | warming CPU |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$RUNS"); do
    if [ $((round % 2)) -eq 1 ]; then order=$MODES; else order=$(tr ' ' '\n' <<<"$MODES" | tac | tr '\n' ' '); fi
    for mode in $order; do run "$mode" "$round"; done
done
