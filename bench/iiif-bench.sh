#!/usr/bin/env bash
# IIIF benchmark (not a test): rendered regions and stored-tile IIIF requests against plain tile requests, with wrk
# on 127.0.0.1, against a release `tiler serve`.
#
# Usage: bench/iiif-bench.sh [SECONDS]      (default 10 s per measured run; 3 interleaved rounds, best kept)
# Env:   BENCH_DIR (default .bench-data), SIZE (16384): the side of the generated picture; CONNECTIONS (64) for the
#        tile runs; REGION_CONNECTIONS (8) for the rendered-region runs; IIIF_THREADS (tiler's default when unset).
#
# Builds tiler in release, makes a SIZE² photo-like JPEG with `tiler sample` and slices it (256-px JPEG tiles), both
# once and reused, serves it with a cache large enough for the full-resolution level, and measures:
#   regions  random 512×512 outputs of random square regions 512…8192 px wide (random scales 1–16×), rendered
#   iiif     random full-resolution tiles as OpenSeadragon asks for them: x,y,256,256/256,256/0/default.jpg
#   tiles    the same tiles as /images/NAME_files/LEVEL/COL_ROW.jpg
# Tile runs are warmed first (every tile in the cache) and interleaved; regions decode through the same cache.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${1:-10}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
CONNECTIONS=${CONNECTIONS:-64}
REGION_CONNECTIONS=${REGION_CONNECTIONS:-8}
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"

scripts/setup wrk
echo "building tiler (release)"
swift build -c release --product tiler 2>&1 | tail -n 1
TILER="$(swift build -c release --show-bin-path)/tiler"
mkdir -p "$BENCH_DIR/iiif"
picture="$BENCH_DIR/iiif/big-$SIZE.jpg"
root="$BENCH_DIR/iiif/root-$SIZE"
[ -s "$picture" ] || "$TILER" sample "$picture" --size "${SIZE}x${SIZE}" --quiet
[ -s "$root/big.dzi" ] || "$TILER" slice "$picture" -o "$root" --name big --quiet

level=$(awk -v n="$SIZE" 'BEGIN { l = 0; while (2 ^ l < n) l++; print l }')
columns=$(( (SIZE + 255) / 256 ))
cache_mb=$(( columns * columns * 40 / 1024 + 64 ))

work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
threads=()
[ -n "${IIIF_THREADS:-}" ] && threads=(--iiif-threads "$IIIF_THREADS")
"$TILER" serve "$root" --port 0 --cache-mb "$cache_mb" "${threads[@]}" >"$work/out" 2>"$work/err" &
server=$!
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's|^Tiler is serving .* at http://127.0.0.1:\([0-9]*\)/$|\1|p' "$work/out")"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$work/err" >&2; exit 1; }
base="http://127.0.0.1:$port"

# Each wrk thread draws its own random sequence (seeded by its number), the same in every run.
cat >"$work/common.lua" <<LUA
local counter = 0
function setup(thread) counter = counter + 1; thread:set("seed", counter) end
function init(args) math.randomseed(seed) end
columns = $columns
size = $SIZE
level = $level
LUA
cat "$work/common.lua" - >"$work/regions.lua" <<'LUA'
request = function()
    local side = math.floor(512 * 2 ^ (math.random() * 4))
    local x = math.random(0, size - side)
    local y = math.random(0, size - side)
    return wrk.format("GET", string.format("/iiif/3/big/%d,%d,%d,%d/512,512/0/default.jpg", x, y, side, side))
end
LUA
# Tile requests are formatted once, at start, so both runs cost wrk the same per request (the client shares the
# cores): a table of every tile's request, picked at random.
cat "$work/common.lua" - >"$work/iiif.lua" <<'LUA'
local requests = {}
function init(args)
    math.randomseed(seed)
    for c = 0, columns - 1 do
        for r = 0, columns - 1 do
            local w = math.min(256, size - c * 256)
            local h = math.min(256, size - r * 256)
            requests[#requests + 1] = wrk.format("GET", string.format("/iiif/3/big/%d,%d,%d,%d/%d,%d/0/default.jpg", c * 256, r * 256, w, h, w, h))
        end
    end
end
request = function() return requests[math.random(1, #requests)] end
LUA
cat "$work/common.lua" - >"$work/tiles.lua" <<'LUA'
local requests = {}
function init(args)
    math.randomseed(seed)
    for c = 0, columns - 1 do
        for r = 0, columns - 1 do
            requests[#requests + 1] = wrk.format("GET", string.format("/images/big_files/%d/%d_%d.jpg", level, c, r))
        end
    end
end
request = function() return requests[math.random(1, #requests)] end
LUA

# run NAME CONNECTIONS DURATION: one wrk run; prints "req/s p99-ms non2xx".
run() {
    wrk -t2 -c"$2" -d"$3"s --latency -s "$work/$1.lua" "$base" >"$work/$1.wrk" 2>&1
    awk '
        $1 == "Requests/sec:" { rps = $2 }
        $1 == "99%" { v = $2; u = v; gsub(/[0-9.]/, "", u); gsub(/[a-z]/, "", v); p99 = (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : v }
        /Non-2xx or 3xx responses:/ { bad = $NF }
        END { printf "%.0f %.2f %d\n", rps, p99, bad + 0 }' "$work/$1.wrk"
}

echo "warming the cache ($columns × $columns tiles at level $level)"
run tiles "$CONNECTIONS" 5 >/dev/null
run iiif "$CONNECTIONS" 3 >/dev/null
run regions "$REGION_CONNECTIONS" 3 >/dev/null

best() { sort -k1,1nr | head -n 1; }
: >"$work/tiles.runs"
: >"$work/iiif.runs"
: >"$work/regions.runs"
for round in 1 2 3; do
    echo "round $round"
    run tiles "$CONNECTIONS" "$SECONDS_PER_RUN" >>"$work/tiles.runs"
    run iiif "$CONNECTIONS" "$SECONDS_PER_RUN" >>"$work/iiif.runs"
    run regions "$REGION_CONNECTIONS" "$SECONDS_PER_RUN" >>"$work/regions.runs"
done

read -r tiles_rps tiles_p99 tiles_bad < <(best <"$work/tiles.runs")
read -r iiif_rps iiif_p99 iiif_bad < <(best <"$work/iiif.runs")
read -r regions_rps regions_p99 regions_bad < <(best <"$work/regions.runs")
echo
echo "IIIF benchmark: ${SIZE}×${SIZE} JPEG pyramid, 256-px tiles, wrk -t2 on 127.0.0.1, best of 3 × ${SECONDS_PER_RUN} s, $(nproc) cores"
printf '%-52s %10s %10s %8s\n' "run" "req/s" "p99 ms" "non-2xx"
printf '%-52s %10s %10s %8s\n' "plain tiles /images/…/$level/C_R.jpg (c$CONNECTIONS)" "$tiles_rps" "$tiles_p99" "$tiles_bad"
printf '%-52s %10s %10s %8s\n' "IIIF stored tiles x,y,256,256/256,256 (c$CONNECTIONS)" "$iiif_rps" "$iiif_p99" "$iiif_bad"
printf '%-52s %10s %10s %8s\n' "IIIF rendered 512×512 of 512…8192 px (c$REGION_CONNECTIONS)" "$regions_rps" "$regions_p99" "$regions_bad"
awk -v a="$iiif_rps" -v b="$tiles_rps" 'BEGIN { printf "IIIF stored tiles ÷ plain tiles: %.3f\n", a / b }'
echo "every run (req/s p99-ms non-2xx):"
paste -d' ' <(sed 's/^/tiles /' "$work/tiles.runs") <(sed 's/^/| iiif /' "$work/iiif.runs") <(sed 's/^/| regions /' "$work/regions.runs")
