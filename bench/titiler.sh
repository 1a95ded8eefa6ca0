#!/usr/bin/env bash
# Tiler against TiTiler, the COG server people use, on the same COG-layout TIFF in the same S3 bucket (issue 47's goal):
# random tiles of the finest level, cold, both servers alternately in one run, wrk -t2 -c$CONNECTIONS on 127.0.0.1
# (the gateway, the servers and wrk share the machine's cores).
#
# Usage: bench/titiler.sh [SECONDS] [ROUNDS]      (default 8 s per measurement, 5 rounds; medians, each round's ratio
#        and their spread; VERBOSE=1 prints every measurement on stderr)
# Env:   SIZE (16384: the SIZE² `tiler sample` picture)  ZOOM (14: the WebMercatorQuad zoom whose tiles are the COG's
#        pixels)  CONNECTIONS (16)  BENCH_DIR (.bench-data)  TILER_BIN (a release tiler to measure instead of building
#        this checkout's)  TILER_SOURCE (tif: Tiler serves the COG itself; szi: Tiler serves an SZI sliced from the
#        COG, uploaded beside it — for a build that does not serve a TIFF from a bucket)
# The store: the gateway S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_REGION name, else a one-node Ceph RADOS
# Gateway started for the run (Tests/Support/s3/ceph-rgw.sh) and stopped after it. A fresh bucket either way, deleted
# at the end.
#
# The image: the sample picture made a georeferenced COG once per BENCH_DIR (gdal_translate -a_srs EPSG:3857 -a_ullr
# … -of COG -co COMPRESS=JPEG -co QUALITY=85 -co BLOCKSIZE=256; Debian's gdal-bin), placed by bench/titiler-prepare.py
# so that its pixels are exactly the tiles of WebMercatorQuad zoom ZOOM: a tile of that zoom is one stored block of
# the COG, read by one ranged GET — TiTiler's best case — and TiTiler's finest zoom (its tilejson's maxzoom) is ZOOM.
# Tiler's finest Deep Zoom level is the same 256-px grid, so tile (c, r) of one is tile (X0 + c, Y0 + r) of the other:
# both servers are asked for the same pixels (checked: one tile of each, compared).
#
# The servers:
#   tiler    `tiler serve s3://BUCKET/cog/ --cache-mb 0` (release; AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
#            AWS_ENDPOINT_URL, AWS_REGION): no tile kept, every request one ranged GET of the object, the stored JPEG
#            passed through; the TIFF's index (read at open) kept, as any server keeps it.
#   titiler  PyPI titiler.application 2.4.0 (rasterio 1.4.4's wheel, with GDAL 3.10), uvicorn 0.54.0 --workers 2, in a
#            venv under BENCH_DIR; GDAL reads the object through /vsis3/ (AWS_S3_ENDPOINT, AWS_HTTPS, AWS_VIRTUAL_HOSTING=
#            FALSE and the keys) with TiTiler's recommended settings (its "performance tuning" page: no directory
#            listing on open, merged consecutive ranges, the VSI cache, the first 32 KB read at open); access log off.
#            /cog/tiles/WebMercatorQuad/ZOOM/X/Y.jpg?url=s3://BUCKET/cog/img.tif: it reads the block, decodes it and
#            encodes a new JPEG (rio-tiler's JPEG profile: quality 85, as the COG's blocks; answered as image/jpg).
# Cold: Tiler keeps no tile. GDAL keeps what it downloaded in a 16 MB cache per process (CPL_VSIL_CURL_CACHE_SIZE,
# left at its default: the COG's header stays there): so that a tile asked for once is not asked for again in a later
# round, the whole tiles of the picture are put in one seeded random order and cut into ROUNDS disjoint parts, round i
# asking both servers for part i only. At TiTiler's rate a measurement asks for fewer tiles than its part holds (a
# note is printed when it did not), but the two wrk threads shuffle the part each in their own order, so a few tiles
# are asked for twice within a round (measured: 40 tiles asked for over and over ran 10–25 % faster than fresh ones, on
# a loaded machine). Tiler's /metrics is printed: no cache hit. Before the rounds, each server gets 2 s of the zoom
# (level) below: files opened, connections made, no measured tile read.
# Goals (issue 47): Tiler's rate ≥ 2× TiTiler's; Tiler's p99 below TiTiler's p50 (both from the medians of the rounds).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-5}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
ZOOM=${ZOOM:-14}
CONNECTIONS=${CONNECTIONS:-16}
TILER_SOURCE=${TILER_SOURCE:-tif}
TITILER_PINS=(titiler.application==2.4.0 uvicorn==0.54.0 rasterio==1.4.4 rio-tiler==9.4.12)
case $TILER_SOURCE in tif | szi) ;; *) echo "titiler: TILER_SOURCE is tif or szi, not $TILER_SOURCE" >&2; exit 2 ;; esac

scripts/setup wrk python3-boto3 python3-venv gdal-bin
# shellcheck source=SCRIPTDIR/lib.sh disable=SC1091
source bench/lib.sh
prepare_tiler

# TiTiler, once per BENCH_DIR and set of pins (the marker is written only after a complete install).
VENV="$BENCH_DIR/titiler-venv"
if [ "$(cat "$VENV/.pins" 2>/dev/null)" != "${TITILER_PINS[*]}" ]; then
    echo "titiler: installing ${TITILER_PINS[*]} into $VENV" >&2
    rm -rf "$VENV"
    /usr/bin/python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${TITILER_PINS[@]}" >&2
    echo "${TITILER_PINS[*]}" >"$VENV/.pins"
fi
VERSIONS=$("$VENV/bin/python" -c 'import importlib.metadata as m, rasterio
print("titiler.application", m.version("titiler.application"), "(rasterio", rasterio.__version__ + ", GDAL",
      rasterio.__gdal_version__ + "), uvicorn", m.version("uvicorn"))')

# What is measured: TILER_BIN and its date, or this checkout's commit ("+": its sources differ from it; git diff-index
# only reads the index).
if [ -n "${TILER_BIN:-}" ]; then
    BUILT="$TILER_BIN of $(date -r "$TILER_BIN" '+%Y-%m-%d %H:%M')"
else
    BUILT="checkout $(git rev-parse --short HEAD 2>/dev/null || echo "?")"
    git diff-index --quiet HEAD -- Sources Package.swift 2>/dev/null || BUILT+="+"
fi
TILER_VERSION="$("$TILER" --version 2>/dev/null || true) ($BUILT)"

# The COG, once per BENCH_DIR, SIZE and ZOOM.
read -r ULX ULY LRX LRY X0 Y0 <<<"$(/usr/bin/python3 bench/titiler-prepare.py georef "$SIZE" "$SIZE" "$ZOOM")"
COG="$BENCH_DIR/titiler-$SIZE-z$ZOOM.tif"
if [ ! -s "$COG" ]; then
    echo "titiler: making $COG" >&2
    gdal_translate -q -a_srs EPSG:3857 -a_ullr "$ULX" "$ULY" "$LRX" "$LRY" -of COG -co COMPRESS=JPEG -co QUALITY=85 \
        -co BLOCKSIZE=256 "$SOURCE" "$COG.part"
    mv "$COG.part" "$COG"
fi
if [ "$TILER_SOURCE" = szi ]; then
    SZI="$BENCH_DIR/titiler-$SIZE-z$ZOOM.szi"
    [ -s "$SZI" ] || "$TILER" slice "$COG" -o "$SZI" --quiet --force
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/titiler-bench.XXXXXX")
cleanup() {
    set +e  # every step runs, whatever failed before it
    local pid left
    # The servers (uvicorn's parent stops its workers on SIGTERM; their pids were written too, in case it cannot).
    while read -r pid; do kill "$pid" 2>/dev/null; done < <(cat "$WORK"/*.pid 2>/dev/null)
    for _ in $(seq 50); do
        left=$(while read -r pid; do kill -0 "$pid" 2>/dev/null && echo "$pid"; done < <(cat "$WORK"/*.pid 2>/dev/null))
        [ -z "$left" ] && break
        sleep 0.1
    done
    for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
    if [ -n "${BUCKET:-}" ] && [ -f "$WORK/gw/env" ]; then
        /usr/bin/python3 Tests/Support/s3/s3_client.py "$WORK/gw" rb "$BUCKET" >/dev/null 2>&1
    fi
    stop_gateway
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "titiler: $*" >&2; exit 1; }

use_gateway
BUCKET="titiler-$RANDOM$RANDOM"
s3() { /usr/bin/python3 Tests/Support/s3/s3_client.py "$WORK/gw" "$@" >/dev/null; }
s3 mb "$BUCKET"
s3 put "$BUCKET" cog/img.tif "$COG"
[ "$TILER_SOURCE" = tif ] || s3 put "$BUCKET" szi/img.szi "$SZI"

# Tiler.
if [ "$TILER_SOURCE" = tif ]; then TILER_ROOT="s3://$BUCKET/cog/"; else TILER_ROOT="s3://$BUCKET/szi/"; fi
declare -A ports checked results
ports[tiler]=$(ROOT=$TILER_ROOT AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY \
    AWS_ENDPOINT_URL=$S3_ENDPOINT AWS_REGION=$S3_REGION start_tiler tiler "$TILER" --cache-mb 0)
[ -n "${ports[tiler]}" ] || fail "tiler serve $TILER_ROOT did not start: $(cat "$WORK/tiler.err")"
IMAGE=""
for _ in $(seq 50); do
    IMAGE=$(curl -sf "http://127.0.0.1:${ports[tiler]}/api/images" | /usr/bin/python3 -c 'import json, sys
images = json.load(sys.stdin)
if images:
    i = images[0]
    print(i["name"], i["width"], i["height"], i["maxLevel"], i["tileSize"], i["overlap"], i["format"])') || true
    [ -n "$IMAGE" ] && break
    sleep 0.2
done
if [ -z "$IMAGE" ]; then
    [ "$TILER_SOURCE" = tif ] && fail "tiler serve $TILER_ROOT lists no image: this build does not serve a TIFF from a" \
        "bucket (TILER_SOURCE=szi measures an SZI sliced from the same COG)"
    fail "tiler serve $TILER_ROOT lists no image"
fi
read -r NAME WIDTH HEIGHT TOP TILE_SIZE OVERLAP FORMAT <<<"$IMAGE"
[ "$WIDTH $HEIGHT $TILE_SIZE $OVERLAP" = "$SIZE $SIZE 256 0" ] ||
    fail "Tiler serves $NAME as $WIDTH x $HEIGHT, tiles $TILE_SIZE + $OVERLAP: expected $SIZE x $SIZE, 256 + 0"

# TiTiler.
(
    export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY AWS_REGION=$S3_REGION
    endpoint=${S3_ENDPOINT#*://}
    export AWS_S3_ENDPOINT=${endpoint%/} AWS_VIRTUAL_HOSTING=FALSE
    if [[ $S3_ENDPOINT == https://* ]]; then export AWS_HTTPS=YES; else export AWS_HTTPS=NO; fi
    export GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR GDAL_HTTP_MERGE_CONSECUTIVE_RANGES=YES GDAL_HTTP_MULTIPLEX=YES \
        VSI_CACHE=TRUE VSI_CACHE_SIZE=5000000 CPL_VSIL_CURL_ALLOWED_EXTENSIONS=.tif GDAL_INGESTED_BYTES_AT_OPEN=32768 \
        PYTHONWARNINGS=ignore
    exec "$VENV/bin/uvicorn" titiler.application.main:app --host 127.0.0.1 --port 0 --workers 2 --no-access-log \
        >"$WORK/titiler.out" 2>"$WORK/titiler.err"
) &
echo $! >"$WORK/titiler.pid"
for _ in $(seq 600); do
    [ "$(grep -c "Application startup complete" "$WORK/titiler.err")" -ge 2 ] && break
    kill -0 "$(cat "$WORK/titiler.pid")" 2>/dev/null || fail "uvicorn stopped: $(tail -20 "$WORK/titiler.err")"
    sleep 0.1
done
pgrep -P "$(cat "$WORK/titiler.pid")" >"$WORK/titiler-children.pid" || true
ports[titiler]=$(grep -o 'Uvicorn running on http://127.0.0.1:[0-9]*' "$WORK/titiler.err" | head -1 | cut -d: -f3)
if [ -z "${ports[titiler]}" ] || [ "$(grep -c "Application startup complete" "$WORK/titiler.err")" -lt 2 ]; then
    fail "TiTiler did not start: $(tail -20 "$WORK/titiler.err")"
fi
URL="s3://$BUCKET/cog/img.tif"
MAXZOOM=$(curl -sf "http://127.0.0.1:${ports[titiler]}/cog/WebMercatorQuad/tilejson.json?url=$URL" |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["maxzoom"])') || fail "TiTiler's tilejson failed"
[ "$MAXZOOM" = "$ZOOM" ] || fail "TiTiler's finest zoom of the COG is $MAXZOOM, not $ZOOM"

# The URLs, and one tile of each server checked: 200, a JPEG, the same pixels.
COLS=$((SIZE / 256))
PART=$(/usr/bin/python3 bench/titiler-prepare.py lists "$WORK" "$ROUNDS" "$COLS" "$COLS" 47 "$ZOOM" "$X0" "$Y0" \
    "url=$URL" "/images/${NAME}_files" "$TOP" "$FORMAT")
for who in tiler titiler; do
    read -r status type bytes < <(curl -s -o "$WORK/check-$who.jpg" -w '%{http_code} %{content_type} %{size_download}\n' \
        "http://127.0.0.1:${ports[$who]}$(head -1 "$WORK/$who.1")")
    if [ "$status" != 200 ] || [[ $type != image/jpeg* && $type != image/jpg* ]]; then
        fail "$who answered $(head -1 "$WORK/$who.1") with $status $type: $(head -c 300 "$WORK/check-$who.jpg")"
    fi
    checked[$who]="$type, $bytes bytes"
done
curl -sf -o "$WORK/check-other.jpg" "http://127.0.0.1:${ports[tiler]}$(sed -n 2p "$WORK/tiler.1")"
DIFFERENCE=$(/usr/bin/python3 bench/titiler-prepare.py compare "$WORK/check-tiler.jpg" "$WORK/check-titiler.jpg")
OTHER=$(/usr/bin/python3 bench/titiler-prepare.py compare "$WORK/check-other.jpg" "$WORK/check-titiler.jpg")
awk -v d="$DIFFERENCE" 'BEGIN { exit !(d < 8) }' ||
    fail "the two servers' tiles of one position differ by $DIFFERENCE on average: not the same pixels"

warm() {
    local out
    out=$(URLS="$WORK/$1.warm" wrk -t2 -c"$CONNECTIONS" -d2s -s bench/wrk/url-list.lua "http://127.0.0.1:${ports[$1]}")
    ! grep -q "^status \|Non-2xx" <<<"$out" || fail "$1's warm-up tiles: $out"
}
warm tiler
warm titiler

for round in $(seq "$ROUNDS"); do
    # Back to back, who goes first alternating by round: the machine's speed drifts over seconds.
    if ((round % 2)); then order=(tiler titiler); else order=(titiler tiler); fi
    for who in "${order[@]}"; do
        results[$who]+="$(SERVER=$who URLS="$WORK/$who.$round" wrk_run "${ports[$who]}" bench/wrk/url-list.lua)"$'\n'
    done
done

column() { cut -d' ' -f"$1" <<<"${results[$2]%$'\n'}" | median; }
by_round() { paste -d' ' <(cut -d' ' -f"$2" <<<"${results[$1]%$'\n'}") <(cut -d' ' -f"$4" <<<"${results[$3]%$'\n'}") |
    awk '{ printf "%.2f\n", $1 / $2 }'; }
spread() { sort -n | awk '{ a[NR] = $1 } END { printf "%s–%s", a[1], a[NR] }'; }
echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, back to back (who goes first alternating); medians."
echo "$(nproc) cores; store: Ceph RADOS Gateway at $S3_ENDPOINT$([ -n "${OWN_GATEWAY:-}" ] || echo " (given)")"
echo "image: ${SIZE}x$SIZE COG ($(($(stat -c %s "$COG") >> 20)) MiB, JPEG Q85 256² blocks, EPSG:3857 on zoom $ZOOM's grid)" \
    "at s3://$BUCKET/cog/img.tif"
if [ "$TILER_SOURCE" = tif ]; then
    echo "tiler: $TILER_VERSION serve $TILER_ROOT --cache-mb 0: the COG, level $TOP"
else
    echo "tiler: $TILER_VERSION serve $TILER_ROOT --cache-mb 0: an SZI sliced from" \
        "the COG ($(($(stat -c %s "$SZI") >> 20)) MiB), level $TOP — NOT the COG itself (TILER_SOURCE=szi)"
fi
echo "titiler: $VERSIONS --workers 2: zoom $ZOOM"
echo "each round: $PART tiles not asked for before, the same for both; one tile checked: tiler ${checked[tiler]}," \
    "titiler ${checked[titiler]}, mean pixel difference $DIFFERENCE (another position's: $OTHER)"
echo
echo "| server | tiles/s | p50 ms | p99 ms | errors |"
echo "|---|---|---|---|---|"
for who in tiler titiler; do
    printf '| %s | %.0f | %s | %s | %s |\n' "$who" "$(column 1 "$who")" "$(column 2 "$who")" "$(column 3 "$who")" \
        "$(cut -d' ' -f4 <<<"${results[$who]%$'\n'}" | awk '{ s += $1 } END { print s }')"
done
echo
rates=$(by_round tiler 1 titiler 1)
tails=$(by_round tiler 3 titiler 2)
echo "rate tiler ÷ titiler by round: $(tr '\n' ' ' <<<"$rates")(median $(median <<<"$rates"), spread $(spread <<<"$rates"))"
echo "tiler p99 ÷ titiler p50 by round: $(tr '\n' ' ' <<<"$tails")(median $(median <<<"$tails"), spread $(spread <<<"$tails"))"
rate_ratio=$(awk -v a="$(column 1 tiler)" -v b="$(column 1 titiler)" 'BEGIN { printf "%.2f", a / b }')
# A round asked TiTiler for more tiles than its part holds: some were asked twice, and may have come from GDAL's cache.
most=$(cut -d' ' -f1 <<<"${results[titiler]%$'\n'}" | sort -n | tail -1)
if ((most * SECONDS_PER > PART)); then
    echo "note: titiler answered up to $((most * SECONDS_PER)) tiles in a round of $PART: some tiles were asked for" \
        "twice in a round (fewer ROUNDS or a larger SIZE avoid it)"
fi
echo "tiler's /metrics (no tile kept: every request a read from the store):" \
    "$(curl -s "http://127.0.0.1:${ports[tiler]}/metrics" | grep -E '^tiler_cache_(hits|misses)_total|^tiler_tile_joins_total' |
        tr '\n' ' ')"
goal() { awk "BEGIN { exit !($1) }" && echo "met" || echo "not met"; }
echo "goal: Tiler ≥ 2× TiTiler cold: $(goal "$rate_ratio >= 2") ($rate_ratio× from the medians)"
echo "goal: Tiler p99 < TiTiler p50: $(goal "$(column 3 tiler) < $(column 2 titiler)") ($(column 3 tiler) ms against" \
    "$(column 2 titiler) ms)"
