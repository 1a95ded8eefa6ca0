#!/usr/bin/env bash
# Catalog-scale benchmark: how `tiler serve` copes with many small pyramids. For each count (default 1,000, 10,000
# and 100,000) it makes a ROOT of that many copies of one small pyramid (600 × 400, 11 levels, 17 tiles; the tiles
# hard-linked, every `.dzi` a file of its own; 1,000 pyramids per folder), starts the release `tiler serve` on it and
# prints one row:
#   start        seconds from launch until /api/images reports every pyramid (X-Total-Count)
#   RSS          resident memory (VmRSS) once started, MiB
#   fds idle     descriptors held once started; fds busy: after 2,000 tile requests spread over the pyramids
#   idle CPU     user + system CPU over IDLE_SECONDS with no requests (rescans every second), % of one core; idle
#                CPU busy: the same after the tile requests (level folders held open, each re-checked at every rescan)
#   list page    /api/images?offset=…&limit=100, median of 20 curl runs (time_total), ms
#   tile         a tile of a pyramid not asked for before, median of 20 curl runs, ms
#   whole list   the first unpaged /api/images: ms, MiB
# Usage: bench/catalog-scale.sh [COUNT…]. Not a test: prints a table. The catalogs stay in $BENCH_DIR for reruns.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-.bench-data}
IDLE_SECONDS=${IDLE_SECONDS:-10}
if [ $# -gt 0 ]; then COUNTS=("$@"); else COUNTS=(1000 10000 100000); fi
# shellcheck source=bench/lib.sh
source bench/lib.sh

swift build -c release --product tiler >/dev/null
TILER="$(swift build -c release --show-bin-path)/tiler"
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
WORK=$(mktemp -d)
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT

MODEL="$BENCH_DIR/catalog-model"
if [ ! -s "$MODEL/small.dzi" ]; then
    "$TILER" sample "$BENCH_DIR/catalog-small.jpg" --size 600x400 --quiet
    "$TILER" slice "$BENCH_DIR/catalog-small.jpg" -o "$MODEL" --name small --quiet --force
fi

# make_catalog COUNT → ROOT: COUNT copies of the model in folders gNNN of 1,000 (kept once complete).
make_catalog() {
    ROOT="$BENCH_DIR/catalog-$1"
    [ -e "$ROOT/.complete" ] && return
    rm -rf "$ROOT"
    /usr/bin/python3 - "$MODEL" "$ROOT" "$1" <<'PY'
import os, shutil, sys
model, root, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
levels = sorted(os.listdir(f"{model}/small_files"), key=int)
tiles = {level: os.listdir(f"{model}/small_files/{level}") for level in levels}
for index in range(count):
    group = f"g{index // 1000:03d}"
    folder = f"{root}/{group}"
    # A file has at most 65,000 links on ext4: each folder links to its own copy (in a dot-folder, never served).
    source = f"{root}/.models/{group}"
    if index % 1000 == 0:
        shutil.copytree(f"{model}/small_files", source)
    files = f"{folder}/p{index:06d}_files"
    for level in levels:
        os.makedirs(f"{files}/{level}")
        for tile in tiles[level]:
            os.link(f"{source}/{level}/{tile}", f"{files}/{level}/{tile}")
    shutil.copyfile(f"{model}/small.dzi", f"{folder}/p{index:06d}.dzi")
PY
    touch "$ROOT/.complete"
}

# ms_median URL… → the median curl time_total of the URLs, in ms.
ms_median() {
    for url in "$@"; do curl -s -o /dev/null -w '%{time_total}\n' "$url"; done | awk '{ print $1 * 1000 }' | median
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

printf '| pyramids | start (s) | RSS (MiB) | fds idle | fds busy | idle CPU (%%) | idle CPU busy (%%) | list page (ms) | tile (ms) | whole list (ms, MiB) |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for COUNT in "${COUNTS[@]}"; do
    make_catalog "$COUNT"
    sync
    START=$(date +%s.%N)
    "$TILER" serve "$ROOT" --port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
    PID=$!
    echo $PID >"$WORK/serve.pid"
    PORT=""
    while [ -z "$PORT" ]; do
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/serve.err" >&2; exit 1; }
        PORT=$(grep -o '127.0.0.1:[0-9]*' "$WORK/serve.out" 2>/dev/null | head -1 | cut -d: -f2 || true)
        sleep 0.05
    done
    BASE="http://127.0.0.1:$PORT"
    until [ "$(curl -s -D - -o /dev/null "$BASE/api/images?limit=1" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-total-count" { print $2 }')" = "$COUNT" ]; do
        sleep 0.05
    done
    STARTED=$(awk -v a="$START" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    sleep 2
    RSS=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$PID/status")
    FDS_IDLE=$(ls "/proc/$PID/fd" | wc -l)
    BEFORE=$(cpu_ticks "$PID")
    sleep "$IDLE_SECONDS"
    AFTER=$(cpu_ticks "$PID")
    IDLE_CPU=$(awk -v t=$((AFTER - BEFORE)) -v hz="$(getconf CLK_TCK)" -v s="$IDLE_SECONDS" 'BEGIN { printf "%.1f", 100 * t / hz / s }')
    # 2,000 tiles over pyramids spread through the catalog (one connection, curl's URL globbing would not spread them).
    STEP=$(( COUNT / 2000 > 0 ? COUNT / 2000 : 1 ))
    for i in $(seq 0 1999); do
        p=$(( (i * STEP) % COUNT ))
        printf 'url = "%s/images/g%03d/p%06d_files/%d/0_0.jpg"\noutput = "/dev/null"\n' "$BASE" $((p / 1000)) "$p" $((i % 11))
    done >"$WORK/tiles.curl"
    curl -s -K "$WORK/tiles.curl"
    FDS_BUSY=$(ls "/proc/$PID/fd" | wc -l)
    BEFORE=$(cpu_ticks "$PID")
    sleep "$IDLE_SECONDS"
    AFTER=$(cpu_ticks "$PID")
    BUSY_IDLE_CPU=$(awk -v t=$((AFTER - BEFORE)) -v hz="$(getconf CLK_TCK)" -v s="$IDLE_SECONDS" 'BEGIN { printf "%.1f", 100 * t / hz / s }')
    PAGES=()
    TILES=()
    for i in $(seq 1 20); do
        PAGES+=("$BASE/api/images?offset=$(( (COUNT / 2 + i * 100) % COUNT ))&limit=100")
        p=$(( (COUNT - 1 - i * 37) % COUNT ))
        TILES+=("$BASE/images/g$(printf %03d $((p / 1000)))/p$(printf %06d "$p")_files/10/1_1.jpg")
    done
    PAGE_MS=$(ms_median "${PAGES[@]}")
    TILE_MS=$(ms_median "${TILES[@]}")
    WHOLE=$(curl -s -o "$WORK/whole.json" -w '%{time_total} %{size_download}' "$BASE/api/images" | awk '{ printf "%.0f, %.1f", $1 * 1000, $2 / 1048576 }')
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    rm -f "$WORK/serve.pid"
    printf '| %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s |\n' "$COUNT" "$STARTED" "$RSS" "$FDS_IDLE" "$FDS_BUSY" "$IDLE_CPU" "$BUSY_IDLE_CPU" "$PAGE_MS" "$TILE_MS" "$WHOLE"
done
