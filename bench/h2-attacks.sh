#!/usr/bin/env bash
# HTTP/2 attacks (issue #49, its third goal): each attack of the issue's item 3 — Rapid Reset (CVE-2023-44487),
# CONTINUATION floods (CVE-2024-27316 and kin), PING and SETTINGS floods, HPACK bombs, stream windows held at zero, a
# client that never reads — kept up against a release `tiler serve --tls-cert … --tls-key …` on 127.0.0.1 while a
# served client asks for random tiles over HTTP/2, one row per attack: the server's RSS before → peak → after, its CPU
# during the attack, the served client's requests ok/failed and p50/p99, what became of the attack's connections, and
# PASS/FAIL against "served clients' p99 stays under 50 ms, memory within the documented bound".
#
# Usage: bench/h2-attacks.sh              (release build; about 3 minutes with the defaults)
# Env:   SECONDS_PER_ATTACK (15)  how long each attack (and the served client's measurement) runs; more than
#                                 --send-timeout's 10 s, so a held stream or connection is given up within it
#        ATTACKS (all)            a comma list of: none, rapid-reset, continuation, ping-flood, settings-flood,
#                                 hpack-bomb, zero-window, no-read
#        CONNECTIONS              the attack's connections at once, for every attack (default: as below, per attack)
#        TILER_BIN                a release tiler binary to measure instead of building this checkout's
#        CACHE_MB (128)           the server's --cache-mb; RENDER_MB (256) its --iiif-render-mb
#        BUDGET_MB                the RSS budget rows are judged against: CACHE_MB + RENDER_MB + 100 MB base, as
#                                 bench/hostile-clients.sh judges
#        WIDTH, HEIGHT (8000, 6000) the picture (bench/hostile-clients.sh's, shared); BENCH_DIR (.bench-data)
#        SETTLE (3)               seconds after an attack before the "after" sample and a health check
#        RESULTS_DIR              where to keep each attack's JSON (every latency, every attack connection's end)
# Each attack gets a fresh server (one attack's leftovers do not land on the next), warmed by the served client asking
# every tile it will ask for once. The attacks (bench/h2-attackers.py, one process, a thread per connection) come
# from 127.0.0.1, several connections at once, each replaced as soon as the server closes it: 4 for Rapid Reset (a
# GET and its RST_STREAM, 100 streams a write), CONTINUATION (endless header blocks, half with 16-byte frames, half
# empty), the PING and SETTINGS floods (never reading the answers) and the HPACK bomb (a 4,000-byte header named 20
# times a stream); 10 connections of 100 streams whose window is held at zero; 20 connections asking 100 tiles each
# and never reading. The served client (bench/h2-client.py, its own process) verifies the certificate and speaks from
# 127.0.0.2: 3 random tiles at once every 10 ms on a kept-alive connection, and a new connection (TLS handshake
# included in its latency) for one tile every 100 ms; a request slower than 2 s counts as failed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
SECONDS_PER_ATTACK=${SECONDS_PER_ATTACK:-15}
ATTACKS=${ATTACKS:-none,rapid-reset,continuation,ping-flood,settings-flood,hpack-bomb,zero-window,no-read}
CACHE_MB=${CACHE_MB:-128}
RENDER_MB=${RENDER_MB:-256}
BUDGET_MB=${BUDGET_MB:-$((CACHE_MB + RENDER_MB + 100))}
WIDTH=${WIDTH:-8000}
HEIGHT=${HEIGHT:-6000}
SETTLE=${SETTLE:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data}
PYTHON=/usr/bin/python3  # Debian's, where python3-h2 is

"$PYTHON" -c 'import h2, hpack, hyperframe' 2>/dev/null ||
    { echo "h2-attacks: $PYTHON with python3-h2 is required (scripts/setup installs it)" >&2; exit 1; }
command -v openssl >/dev/null || { echo "h2-attacks: openssl is required" >&2; exit 1; }
[ -r /proc/self/status ] || { echo "h2-attacks: needs Linux /proc" >&2; exit 1; }
# shellcheck source=bench/lib.sh
source bench/lib.sh

choose_tiler h2-attacks
prepare_hostile_root

WORK=$(mktemp -d "${TMPDIR:-/tmp}/h2-attacks.XXXXXX")
cleanup() {
    local f
    for f in "$WORK"/*.pid; do [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
    sleep 0.2
    for f in "$WORK"/*.pid; do [ -e "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 \
    -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
SERVER_ARGS=(--cache-mb "$CACHE_MB" --iiif-render-mb "$RENDER_MB" --shutdown-grace 1 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem")
BUDGET_NOTE="--cache-mb $CACHE_MB + --iiif-render-mb $RENDER_MB + 100 MB base"

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); tiler: $TILER" >&2
echo "server: tiler serve --cache-mb $CACHE_MB --iiif-render-mb $RENDER_MB over TLS; picture ${WIDTH}×$HEIGHT;" \
    "${SECONDS_PER_ATTACK} s per attack" >&2
results=()
IFS=, read -ra attack_list <<<"$ATTACKS"
for attack in "${attack_list[@]}"; do
    echo "== $attack" >&2
    port=$(start_tiler "server-$attack" "$TILER" "${SERVER_ARGS[@]}")
    pid=$(cat "$WORK/server-$attack.pid")
    if [ -z "$port" ]; then
        echo "h2-attacks: tiler serve did not start:" >&2
        cat "$WORK/server-$attack.err" >&2
        exit 1
    fi
    "$PYTHON" bench/h2-attacks.py run "$attack" --port "$port" --pid "$pid" --dzi "$ROOT/big.dzi" \
        --cafile "$WORK/cert.pem" --seconds "$SECONDS_PER_ATTACK" --settle "$SETTLE" --out "$WORK/$attack.json" \
        ${CONNECTIONS:+--connections "$CONNECTIONS"} &
    echo $! >"$WORK/client.pid"
    wait "$(cat "$WORK/client.pid")" || { echo "h2-attacks: the $attack run failed" >&2; exit 1; }
    rm -f "$WORK/client.pid"
    stop_server "server-$attack"
    results+=("$WORK/$attack.json")
done

echo
echo "bench/h2-attacks.sh: $(nproc) cores (load average $(cut -d' ' -f1-3 /proc/loadavg) at the end)," \
    "${SECONDS_PER_ATTACK} s per attack, a fresh \`tiler serve --cache-mb $CACHE_MB --iiif-render-mb $RENDER_MB\`" \
    "over TLS (HTTP/2 by ALPN) for each, a ${WIDTH}×$HEIGHT picture"
echo
"$PYTHON" bench/h2-attacks.py report --budget-mb "$BUDGET_MB" --budget-note "$BUDGET_NOTE" "${results[@]}"
if [ -n "${RESULTS_DIR:-}" ]; then
    mkdir -p "$RESULTS_DIR"
    cp "$WORK"/*.json "$RESULTS_DIR"/
    echo "every measurement: $RESULTS_DIR/ATTACK{,.served,.attack}.json" >&2
fi
