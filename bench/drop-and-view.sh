#!/usr/bin/env bash
# Drop and view (#27): how soon an uploaded image can be seen, how long until its final pyramid, and what a slicing job
# costs the requests being served. Release build, one run, on 127.0.0.1 (curl and wrk share the machine's cores).
#
# Usage: bench/drop-and-view.sh [SECONDS]     (wrk seconds per serving measurement, default 8; CASES="1 2 3" runs only
#        those cases; JPEG_ROUNDS, default 3, rounds of case (1), medians and every round reported)
# Cases:
#   (1) the DROP_SIZE² JPEG (default 32768², `tiler sample` at DROP_QUALITY 90 and DROP_SUBSAMPLING 444 as containers.sh
#       makes it, 616 MiB; DROP_QUALITY=60 DROP_SUBSAMPLING=420 gives 205 MiB, near the issue's 181 MB file): from the upload's end (curl's 202, sent once the
#       last byte is on disk) to (a) every tile of the first level at least 2048 px across answering 200 under the job's
#       `dzi`, (b) the final pyramid published (job `done`); and `tiler slice` of the same file, for the ratio.
#   (2) the PNG_SIZE² PNG (default 16384²): from the upload's end to the top quarter of that level answering 200.
#   (3) serving (serve-vs-nginx's (a) one hot tile, (b) random tiles of a level that fits the cache), alternately with
#       no job and while an upload of the JPEG is being sliced — from when its full build has decoded rows (past the
#       coarse step: the encoder threads at work); the ratio of the rates, and the job's progress before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
DROP_SIZE=${DROP_SIZE:-32768}
PNG_SIZE=${PNG_SIZE:-16384}
CACHE_MB=${CACHE_MB:-64}
CONNECTIONS=${CONNECTIONS:-64}
CASES=${CASES:-1 2 3}
JPEG_ROUNDS=${JPEG_ROUNDS:-3}

scripts/setup wrk curl
source bench/lib.sh
prepare_serve_pyramid
DROP_QUALITY=${DROP_QUALITY:-90}
DROP_SUBSAMPLING=${DROP_SUBSAMPLING:-444}
JPEG="$BENCH_DIR/drop-$DROP_SIZE-q$DROP_QUALITY-$DROP_SUBSAMPLING.jpg"
PNG="$BENCH_DIR/drop-$PNG_SIZE.png"
[ -s "$JPEG" ] || "$TILER" sample "$JPEG" --size "${DROP_SIZE}x${DROP_SIZE}" --quality "$DROP_QUALITY" --subsampling "$DROP_SUBSAMPLING" --quiet
[ -s "$PNG" ] || "$TILER" sample "$PNG" --size "${PNG_SIZE}x${PNG_SIZE}" --quiet

WORK=$(mktemp -d)
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
# A ROOT of its own (a copy of the serve pyramid: the server serves nothing whose real path is outside ROOT), an access
# policy with one key, a write token.
DROP_ROOT="$WORK/root"
mkdir -p "$DROP_ROOT" "$WORK/keys"
cp -r "$ROOT/img.dzi" "$ROOT/img_files" "$DROP_ROOT/"
head -c 32 /dev/urandom | base64 >"$WORK/keys/k1.key"
echo '{"default": "public", "keys": [{"id": "k1", "file": "keys/k1.key"}]}' >"$WORK/access.json"
TOKEN=$("$TILER" token --access "$WORK/access.json" --images '*' --expires 2h --scope write)
ROOT=$DROP_ROOT
PORT=$(start_tiler tiler "$TILER" --cache-mb "$CACHE_MB" --access "$WORK/access.json")

# upload NAME FILE → the job id; prints nothing else. The 202 comes once the body is on disk.
upload() {
    curl -sS -f -T "$2" -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/images/$1" |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}

# watch JOB ROWS_FRACTION: seconds from now until every tile of the first level ≥ 2048 px across (its top
# ROWS_FRACTION of rows) answers 200 under the job's dzi, then until the job is done: "view final".
watch() {
    /usr/bin/python3 - "$PORT" "$1" "$2" <<'PY'
import json, math, sys, time, urllib.request, urllib.error
port, job, share = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
base = f"http://127.0.0.1:{port}"
start = time.monotonic()
def get(path):
    try:
        with urllib.request.urlopen(base + path, timeout=10) as r: return r.status, r.read()
    except urllib.error.HTTPError as e: return e.code, b""
view = None
pending = None
while True:
    state = json.loads(get(f"/api/jobs/{job}")[1])
    if state["state"] in ("failed", "cancelled", "interrupted"): sys.exit(f"job {state['state']}: {state['error']}")
    if view is None and state["dzi"]:
        if pending is None:
            _, xml = get(state["dzi"])
            text = xml.decode()
            w = int(text.split('Width="')[1].split('"')[0]); h = int(text.split('Height="')[1].split('"')[0])
            top = math.ceil(math.log2(max(w, h)))
            level = next(l for l in range(top + 1) if math.ceil(max(w, h) / 2 ** (top - l)) >= 2048)
            lw, lh = math.ceil(w / 2 ** (top - level)), math.ceil(h / 2 ** (top - level))
            cols, rows = math.ceil(lw / 256), math.ceil(math.ceil(lh / 256) * share)
            prefix = state["dzi"][:-4] + f"_files/{level}/"
            pending = [f"{prefix}{c}_{r}.jpg" for r in range(rows) for c in range(cols)]
        pending = [p for p in pending if get(p)[0] != 200]
        if not pending: view = time.monotonic() - start
    if state["state"] == "done":
        if view is None: view = time.monotonic() - start
        print(f"{view:.2f} {time.monotonic() - start:.2f}")
        break
    time.sleep(0.05)
PY
}

# drop_round ROUND → "VIEW FINAL SLICE": one upload of the JPEG watched to its final pyramid, and one `tiler slice` of
# it, in an order that alternates with the round; each starts with nothing left to write back from earlier work (as
# lib.sh's measure does before `tiler slice`), and each writes a new tree: nothing is deleted during the rounds (ext4
# frees a deleted tree's inodes lazily, and the next slice pays for it — `tiler slice` took 4.8, 7.8, 11.9 s in three
# rounds into one emptied folder, against the job's 5.6, 6.1, 6.0 s into new names).
drop_round() {
    local view final slice
    if (( $1 % 2 == 0 )); then
        measure slice "$WORK/slice-out-$1" "$TILER" slice "$JPEG" -o "$WORK/slice-out-$1" --name big --quiet
    fi
    sync
    sleep "${SETTLE_SECONDS:-6}"
    read -r view final < <(watch "$(upload "big-$1" "$JPEG")" 1)
    if (( $1 % 2 == 1 )); then
        measure slice "$WORK/slice-out-$1" "$TILER" slice "$JPEG" -o "$WORK/slice-out-$1" --name big --quiet
    fi
    slice=$(tail -1 "$BENCH_DIR/slice.times" | cut -d' ' -f1)
    rm -f "$BENCH_DIR/slice.times"
    echo "$view $final $slice"
}

if [[ " $CASES " == *" 1 "* ]]; then
    echo "(1) ${DROP_SIZE}² JPEG, $(( $(stat -c %s "$JPEG") >> 20 )) MiB, $JPEG_ROUNDS rounds (the upload first in odd rounds, tiler slice first in even ones)"
    rounds=()
    for round in $(seq "$JPEG_ROUNDS"); do
        rounds+=("$(drop_round "$round")")
        read -r view final slice <<<"${rounds[-1]}"
        echo "  round $round: coarse view $view s, final pyramid $final s, tiler slice $slice s, ratio $(awk -v a="$final" -v b="$slice" 'BEGIN { printf "%.2f", a / b }')"
    done
    column_of() { printf '%s\n' "${rounds[@]}" | awk -v f="$1" '{ print $f }'; }
    echo "  upload end → every tile of the level ≥ 2048 px across: median $(column_of 1 | median) s (rounds $(column_of 1 | paste -sd' ')) (goal ≤ 3 s)"
    echo "  upload end → final pyramid ÷ tiler slice: median $(printf '%s\n' "${rounds[@]}" | awk '{ printf "%.2f\n", $2 / $3 }' | median) (rounds $(printf '%s\n' "${rounds[@]}" | awk '{ printf "%.2f ", $2 / $3 }')) (goal ≤ 1.15)"
fi

if [[ " $CASES " == *" 2 "* ]]; then
    echo "(2) ${PNG_SIZE}² PNG, $(( $(stat -c %s "$PNG") >> 20 )) MiB"
    JOB=$(upload png "$PNG")
    read -r VIEW FINAL < <(watch "$JOB" 0.25)
    echo "  upload end → top quarter of the level ≥ 2048 px across: $VIEW s (goal ≤ 2 s); final $FINAL s"
fi

[[ " $CASES " == *" 3 "* ]] || exit 0
echo "(3) serving while a job runs vs none (wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s each)"
TOP_FITS=$((TOP - 1)) FITS_GRID=$(( (SIZE / 2 + 255) / 256 ))
HOT="/images/img_files/$TOP_FITS/3_3.jpg"
serve_case() {
    case $1 in
        hot) wrk_run "$PORT" "$HOT" ;;
        random) PREFIX=/images/img_files LEVEL=$TOP_FITS COLS=$FITS_GRID ROWS=$FITS_GRID wrk_run "$PORT" bench/wrk/random-tiles.lua ;;
    esac
}
# job_state JOB → "STATE FRACTION ROWS_DECODED"
job_state() {
    curl -s "http://127.0.0.1:$PORT/api/jobs/$1" |
        /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["state"], round(j["fraction"], 3), j["rowsDecoded"])'
}
for case in hot random; do
    idle=$(serve_case $case | cut -d' ' -f1)
    JOB=$(upload "busy-$case" "$JPEG")
    # Measured once the full build is under way (rows decoded, the encoder threads busy), past the coarse step.
    for _ in $(seq 300); do
        read -r state _ rows < <(job_state "$JOB")
        [ "$state" = slicing ] && [ "$rows" -gt 0 ] && break
        sleep 0.1
    done
    before=$(job_state "$JOB")
    busy=$(serve_case $case | cut -d' ' -f1)
    after=$(job_state "$JOB")
    idle2=$(serve_case $case | cut -d' ' -f1)
    echo "  $case: no job $idle, $idle2 req/s; slicing $busy req/s (job state, fraction, rows decoded: $before → $after); ratio $(awk -v a="$busy" -v b="$idle" -v c="$idle2" 'BEGIN { printf "%.2f", a / ((b + c) / 2) }') (goal ≥ 0.8)"
    curl -s -X DELETE -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/jobs/$JOB" >/dev/null
    sleep 2
done
