#!/usr/bin/env bash
# Private images through Varnish (issue 26's second measure): VIEWERS (10) viewers, each with its own token, browse one
# private image through Debian's varnishd on deploy/varnish/tiler.vcl in front of three `tiler serve --access` replicas
# (scale-out.sh's topology, on 127.0.0.1); the same viewers browse the same image public through a second, identical
# deployment without --access, for comparison. Each viewer sends its visible-rect queries with its bearer (Varnish
# passes them to a replica) and fetches the tiles of each answer by the signed URLs it hands out
# (bench/private-viewers.py: one guided tour of the image, the same for everyone, viewers starting a little apart).
# Signed URLs name no viewer and are the same for everyone in a window, so Varnish keeps one copy of each tile for all
# of them. Two passes per deployment: cold (Varnish empty; with 10 viewers at most 9 of 10 tile requests can hit), then
# warm (10 more viewers with 10 new tokens, the tiles in Varnish already); the issue's goal is a warm hit ratio ≥ 0.9.
#
# Usage: bench/private-through-varnish.sh       (VIEWERS, SIZE (16384), CACHE_MB (64 per replica) from the environment)
# Not a test: prints a table. A window boundary (the policy's window is an hour) crossed during a run changes the
# signed URLs and shows as a second distinct query.
set -euo pipefail
cd "$(dirname "$0")/.."
VIEWERS=${VIEWERS:-10}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
CACHE_MB=${CACHE_MB:-64}

scripts/setup varnish python3
source bench/lib.sh
prepare_serve_pyramid

WORK=$(mktemp -d)
chmod 755 "$WORK"  # varnishd reads the VCL as its own user
cleanup() {
    for d in "$WORK"/varnish-*; do [ -s "$d/pid" ] && kill "$(cat "$d/pid")" 2>/dev/null; done
    for f in "$WORK"/*.pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
    sleep 0.5
    rm -rf "$WORK"
}
trap cleanup EXIT
head -c 48 /dev/urandom | base64 >"$WORK/k1.key"
echo '{"default": "private", "keys": [{"id": "k1", "file": "k1.key"}]}' >"$WORK/policy.json"
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# deploy KIND [OPTIONS…]: three replicas started with OPTIONS and a varnishd on the shipped VCL in front of them; prints
# Varnish's port.
deploy() {
    local kind=$1 ports=() i port
    shift
    for i in 1 2 3; do
        ports+=("$(start_tiler "$kind-$i" "$TILER" --cache-mb "$CACHE_MB" --trust-proxy --max-connections-per-address 0 "$@")")
    done
    sed -e "s/\"8081\"/\"${ports[0]}\"/" -e "s/\"8082\"/\"${ports[1]}\"/" -e "s/\"8083\"/\"${ports[2]}\"/" \
        deploy/varnish/tiler.vcl >"$WORK/$kind.vcl"
    for i in 0 1 2; do grep -q "\"${ports[$i]}\"" "$WORK/$kind.vcl" || { echo "the VCL lost backend $i" >&2; exit 1; }; done
    port=$(free_port)
    mkdir -p "$WORK/varnish-$kind"
    varnishd -f "$WORK/$kind.vcl" -a "127.0.0.1:$port" -n "$WORK/varnish-$kind" -P "$WORK/varnish-$kind/pid" -s malloc,512m \
        >"$WORK/varnishd-$kind.log" 2>&1 || { cat "$WORK/varnishd-$kind.log" >&2; exit 1; }
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    sleep 3  # the probes mark every replica healthy
    echo "$port"
}
declare -A varnish
varnish[private]=$(deploy private --access "$WORK/policy.json")
varnish[public]=$(deploy public)
# The private deployment hands out nothing without a credential, also through Varnish.
status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${varnish[private]}/images/img_files/0/0_0.jpg")
[ "$status" = 401 ] || { echo "an unsigned tile through the private deployment answered $status, not 401" >&2; exit 1; }

# tokens N FIRST: N tokens for the image, each different (expiring FIRST, FIRST + 1, … minutes from now).
tokens() {
    local i
    for i in $(seq 0 $(($1 - 1))); do
        "$TILER" token --access "$WORK/policy.json" --images img --expires "$(($2 + i))m"
    done
}

echo "topology: two deployments, each varnishd $(varnishd -V 2>&1 | head -1 | grep -o '[0-9]\.[0-9.]*' | head -1) on" \
    "deploy/varnish/tiler.vcl in front of three replicas (--cache-mb $CACHE_MB); one ${SIZE}² image; $VIEWERS viewers at" \
    "once per pass, 1920×1080 screens, each on its own connection; $(nproc) cores, shared with other work"
echo
printf '| %-8s | %-4s | %13s | %6s | %6s | %5s | %9s | %21s | %16s | %6s | %7s |\n' image pass "tile requests" HIT MISS PASS \
    "hit ratio" "tile URLs (all / one)" "signed queries" errors seconds
echo "|---|---|---|---|---|---|---|---|---|---|---|"
declare -A warm_ratio
for pass in cold warm; do
    for image in private public; do
        args=()
        # shellcheck disable=SC2207  # tokens are base64url and dots: no spaces
        [ "$image" = private ] && args=($(tokens "$VIEWERS" "$([ "$pass" = cold ] && echo 60 || echo 120)"))
        result=$(/usr/bin/python3 bench/private-viewers.py "${varnish[$image]}" img "$SIZE" "$SIZE" "$VIEWERS" "${args[@]}")
        /usr/bin/python3 - "$image" "$pass" "$result" <<'PY'
import json, sys
image, run, r = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
v = r["verdicts"]
queries = r["distinct_queries"] if image == "private" else "-"
errors = sum(r["errors"].values()) + (r["viewers"] - r["finished"])
print(f"| {image:8} | {run:4} | {r['tile_requests']:13} | {v.get('HIT', 0):6} | {v.get('MISS', 0):6} | {v.get('PASS', 0):5} | "
      f"{r['hit_ratio']:9.3f} | {str(r['distinct_urls']) + ' / ' + str(r['urls_per_viewer']):>21} | {queries!s:>16} | {errors:6} | {r['seconds']:7} |")
PY
        warm_ratio[$image]=$(/usr/bin/python3 -c 'import json, sys; print(json.loads(sys.argv[1])["hit_ratio"])' "$result")
    done
done
echo
echo "$VIEWERS viewers with $VIEWERS tokens, warm: hit ratio ${warm_ratio[private]} (public: ${warm_ratio[public]});" \
    "goal ≥ 0.9: $(awk -v r="${warm_ratio[private]}" 'BEGIN { print (r >= 0.9) ? "met" : "NOT met" }')"
