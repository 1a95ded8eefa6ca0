#!/usr/bin/env bash
# Serving a pyramidal TIFF in place, against the same SIZE² picture served every other way, in one run, alternating:
#   tiler-tiff    `tiler serve` on `vips tiffsave --tile --pyramid --compression jpeg --Q 85` of the picture (in place)
#   tiler-folder  `tiler serve` on `tiler slice`'s folder pyramid of the picture
#   nginx         nginx (sendfile, open_file_cache) on that folder
#   iipimage      Debian's IIPImage (iipsrv, two FastCGI processes behind nginx, DeepZoom protocol) on the TIFF
# Cases (wrk -t2 -c$CONNECTIONS): (a) one hot tile; (b) random tiles of the finest level (pass-through for tiler-tiff);
# (c) random tiles of the finest level of a 512-pixel-tile TIFF of the same picture, which no 256-pixel Deep Zoom
# tile matches, so every tile is made (tiler-tiff-512 with a 16 MiB cache: nearly every request a first one, cold)
# against IIPImage on the same file. Then each server's peak RSS, and the start of `tiler serve` over a folder of
# COPIES (10,000) of a small pyramidal TIFF: time to its first /api/images listing them all, and its RSS.
# ONLY_START=1 runs that part alone.
#
# Usage: bench/tiff-serve.sh [SECONDS] [ROUNDS]      (default 8 s, 3 rounds; medians and every round's ratio)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data/tiff-serve}  # its own: prepare_serve_pyramid keeps one pyramid per folder
SIZE=${SIZE:-32768}
CONNECTIONS=${CONNECTIONS:-64}
COPIES=${COPIES:-10000}

scripts/setup nginx-light wrk libvips-tools iipimage-server libfcgi-bin
source bench/lib.sh
prepare_serve_pyramid
DATA="$(cd "$BENCH_DIR" && pwd)"
TIFF_ROOT="$DATA/tiff-root"
mkdir -p "$TIFF_ROOT/512"
[ -s "$TIFF_ROOT/img.tif" ] || vips tiffsave "$SOURCE" "$TIFF_ROOT/img.tif" --tile --tile-width 256 --tile-height 256 --pyramid \
    --compression jpeg --Q 85 --bigtiff
[ -s "$TIFF_ROOT/512/img.tif" ] || vips tiffsave "$SOURCE" "$TIFF_ROOT/512/img.tif" --tile --tile-width 512 --tile-height 512 --pyramid \
    --compression jpeg --Q 85 --bigtiff
GRID=$(( (SIZE + 255) / 256 ))

WORK=$(mktemp -d)
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; pkill -f "iipsrv.fcgi" 2>/dev/null || true; rm -rf "$WORK"' EXIT
NGINX_PORT=18091
IIP_PORT=18092
write_nginx_conf "$NGINX_PORT" \
    "server { listen 127.0.0.1:$IIP_PORT; location /fcgi-bin/iipsrv.fcgi { fastcgi_pass 127.0.0.1:9089; include /etc/nginx/fastcgi_params; } }"
VERBOSITY=0 JPEG_QUALITY=85 MAX_IMAGE_CACHE_SIZE=256 cgi-fcgi -start -connect 127.0.0.1:9089 /usr/lib/iipimage-server/iipsrv.fcgi 2
nginx -c "$WORK/nginx.conf"
declare -A ports=([nginx]=$NGINX_PORT [iipimage]=$IIP_PORT)
ports[tiler-folder]=$(start_tiler tiler-folder "$TILER")
ROOT_SAVED=$ROOT
ROOT=$TIFF_ROOT
ports[tiler-tiff]=$(start_tiler tiler-tiff "$TILER")
ports[tiler-tiff-512]=$(start_tiler tiler-tiff-512 "$TILER" --cache-mb 16)
ROOT=$ROOT_SAVED
curl -fsS "http://127.0.0.1:${ports[tiler-tiff]}/api/images" | grep -q '"name":"img"' || { echo "tiler does not serve img.tif in place" >&2; exit 1; }

iip() { echo "/fcgi-bin/iipsrv.fcgi?DeepZoom=$1"; }
declare -A hot=([nginx]="/images/img_files/$TOP/3_3.jpg" [tiler-folder]="/images/img_files/$TOP/3_3.jpg"
    [tiler-tiff]="/images/img_files/$TOP/3_3.jpg" [iipimage]="$(iip "$TIFF_ROOT/img.tif")_files/$TOP/3_3.jpg")
declare -A prefix=([nginx]=/images/img_files [tiler-folder]=/images/img_files [tiler-tiff]=/images/img_files
    [iipimage]="$(iip "$TIFF_ROOT/img.tif")_files" [tiler-tiff-512]="/images/512/img_files")
declare -A iip512=([iipimage]="$(iip "$TIFF_ROOT/512/img.tif")_files")

# IIPImage refuses part of a 64-connection load (its two FastCGI processes' queue fills: 502s): counted, not fatal.
run() { if [ "$1" = "$IIP_PORT" ]; then ALLOW_ERRORS=1 wrk_run "$@"; else wrk_run "$@"; fi; }

declare -A results
for round in $( [ -n "${ONLY_START:-}" ] || seq "$ROUNDS"); do
    for server in tiler-tiff tiler-folder nginx iipimage; do
        results[$server-a]+="$(run "${ports[$server]}" "${hot[$server]}")"$'\n'
    done
    for server in tiler-tiff tiler-folder nginx iipimage; do
        results[$server-b]+="$(PREFIX=${prefix[$server]} LEVEL=$TOP COLS=$GRID ROWS=$GRID run "${ports[$server]}" bench/wrk/random-tiles.lua)"$'\n'
    done
    results[tiler-tiff-512-c]+="$(PREFIX=${prefix[tiler-tiff-512]} LEVEL=$TOP COLS=$GRID ROWS=$GRID run "${ports[tiler-tiff-512]}" bench/wrk/random-tiles.lua)"$'\n'
    results[iipimage-c]+="$(PREFIX=${iip512[iipimage]} LEVEL=$TOP COLS=$GRID ROWS=$GRID run $IIP_PORT bench/wrk/random-tiles.lua)"$'\n'
done

rss() { awk '/VmHWM/ { s += $2 } END { printf "%.0f", s / 1024 }' $(for p in "$@"; do echo "/proc/$p/status"; done) 2>/dev/null; }
if [ -z "${ONLY_START:-}" ]; then
echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, servers back to back; medians. $(nproc) cores; ${SIZE}² picture"
echo
echo "| case | server | req/s (2xx) | p50 ms | p99 ms | errors | ÷ nginx | ÷ IIPImage |"
echo "|---|---|---|---|---|---|---|---|"
for case in a b c; do
    label=$(case $case in a) echo "(a) one hot tile" ;; b) echo "(b) random finest-level tiles" ;; c) echo "(c) made tiles (512-px TIFF), cold" ;; esac)
    nginx_rps=$(cut -d' ' -f1 <<<"${results[nginx-$case]:-0}" | median)
    iip_rps=$(cut -d' ' -f1 <<<"${results[iipimage-$case]%$'\n'}" | median)
    for server in tiler-tiff tiler-tiff-512 tiler-folder nginx iipimage; do
        data=${results[$server-$case]:-}
        [ -n "$data" ] || continue
        rps=$(cut -d' ' -f1 <<<"${data%$'\n'}" | median)
        p50=$(cut -d' ' -f2 <<<"${data%$'\n'}" | median)
        p99=$(cut -d' ' -f3 <<<"${data%$'\n'}" | median)
        errors=$(cut -d' ' -f4 <<<"${data%$'\n'}" | awk '{ s += $1 } END { print s + 0 }')
        vs_nginx=$([ "$case" != c ] && [ "$server" != nginx ] && awk -v t="$rps" -v n="$nginx_rps" 'BEGIN { printf "%.2fx", t / n }' || true)
        vs_iip=$([ "$server" != iipimage ] && awk -v t="$rps" -v n="$iip_rps" 'BEGIN { printf "%.1fx", t / n }' || true)
        printf '| %s | %s | %.0f | %s | %s | %s | %s | %s |\n' "$label" "$server" "$rps" "$p50" "$p99" "$errors" "$vs_nginx" "$vs_iip"
    done
done
echo
echo "(b) tiler-tiff ÷ nginx by round: $(paste -d' ' <(cut -d' ' -f1 <<<"${results[tiler-tiff-b]%$'\n'}") <(cut -d' ' -f1 <<<"${results[nginx-b]%$'\n'}") | awk '{ printf "%.2f ", $1 / $2 }')"
echo "(c) tiler-tiff-512 ÷ IIPImage by round: $(paste -d' ' <(cut -d' ' -f1 <<<"${results[tiler-tiff-512-c]%$'\n'}") <(cut -d' ' -f1 <<<"${results[iipimage-c]%$'\n'}") | awk '{ printf "%.2f ", $1 / $2 }')"
echo
echo "peak RSS: tiler-tiff $(rss "$(cat "$WORK/tiler-tiff.pid")") MiB, tiler-tiff-512 $(rss "$(cat "$WORK/tiler-tiff-512.pid")") MiB," \
    "tiler-folder $(rss "$(cat "$WORK/tiler-folder.pid")") MiB, nginx $(rss $(pgrep -f "nginx: worker") $(cat "$WORK/nginx.pid")) MiB," \
    "iipimage $(rss $(pgrep -f iipsrv.fcgi)) MiB"
fi

# Start over COPIES pyramidal TIFFs (hard links of one small file: the catalog opens each as its own file).
MANY="$DATA/many-tiffs"
if [ ! -s "$MANY/$((COPIES - 1)).tif" ]; then
    rm -rf "$MANY" && mkdir -p "$MANY"
    # Small (600², two levels, about 60 KB) so that 10,000 copies fit a disk; the catalog's work per file is the same.
    "$TILER" sample "$WORK/small.jpg" --size 600x600 --quiet
    vips tiffsave "$WORK/small.jpg" "$MANY/0.tif" --tile --tile-width 256 --tile-height 256 --pyramid --compression jpeg --Q 85
    for i in $(seq 1 $((COPIES - 1))); do cp "$MANY/0.tif" "$MANY/$i.tif"; done
fi
ROOT=$MANY
started=$(date +%s.%N)
port=$(start_tiler many "$TILER")
while [ "$(curl -fsS "http://127.0.0.1:$port/api/images?limit=1" -o /dev/null -D - | awk -F': ' 'tolower($1) == "x-total-count" { print $2 + 0 }')" != "$COPIES" ]; do
    sleep 0.2
done
echo "start over $COPIES pyramidal TIFFs: $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s to list them all;" \
    "RSS $(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$(cat "$WORK/many.pid")/status") MiB"
