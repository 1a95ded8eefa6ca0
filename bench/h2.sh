#!/usr/bin/env bash
# HTTP/2 and TLS: throughput, `tiler serve --tls-cert … --tls-key …` against nginx with `ssl` and `http2` on the same
# folder pyramid and the same certificate (made here by openssl), alternately, in one run, on 127.0.0.1; and the time
# a browser takes to a sharp view over HTTP/2 against HTTP/1.1 at 50 ms round trip (bench/h2-view.sh).
#
# Usage: bench/h2.sh [SECONDS] [ROUNDS]     (default 8 s per measurement, 5 rounds; medians of the rounds' ratios)
#        CASES="throughput view" by default; CASES=view runs only the browser's case, CASES=throughput the others.
# Cases, each Tiler ÷ nginx (what issue #49 asks: ≥ 0.9×):
#   (h2-fit)  h2load, HTTP/2 over TLS: random tiles of a level that fits the cache (-c 8 -m 16: eight connections,
#             sixteen streams each)
#   (h2-big)  the same over the finest level, larger than the cache
#   (h1-tls)  wrk -t2 -c64, HTTP/1.1 over TLS: (h2-fit)'s level
# The URL lists are drawn once (seeded) and given to both servers. The load generator shares the two cores.
# And (view): its row's columns mean HTTP/1.1 for "nginx", HTTP/2 for "tiler", both Tiler over TLS — the median
# milliseconds from navigation to the last tile drawn by headless Chromium, a 1920×1080 view of a 32768² image, and
# HTTP/2 ÷ HTTP/1.1 (issue #49 asks ≤ 0.5×); ROUNDS rounds, the two protocols alternating (see bench/h2-view.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-5}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}
CACHE_MB=${CACHE_MB:-64}
CONNECTIONS=${CONNECTIONS:-64}
CASES=${CASES:-throughput view}
# shellcheck source=bench/lib.sh
source bench/lib.sh
declare -A results
if [[ " $CASES " == *" throughput "* ]]; then
    scripts/setup nginx-light wrk nghttp2-client openssl
    prepare_serve_pyramid
    WORK=$(mktemp -d)
    trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 \
        -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
    NGINX_PORT=18443
    # nginx 1.22's syntax: `listen … ssl http2` (the `http2` directive came in 1.25.1); the same suites as Tiler's TLS 1.2.
    write_nginx_conf 18081 "server {
            listen 127.0.0.1:$NGINX_PORT ssl http2;
            ssl_certificate $WORK/cert.pem;
            ssl_certificate_key $WORK/key.pem;
            ssl_protocols TLSv1.2 TLSv1.3;
            ssl_ciphers ECDHE+AESGCM:ECDHE+CHACHA20;
            ssl_session_cache shared:SSL:10m;
            http2_max_concurrent_streams 100;
            location /images/ { alias $(cd "$ROOT" && pwd)/; }
        }"
    nginx -c "$WORK/nginx.conf"
    TILER_PORT=$(start_tiler tiler "$TILER" --cache-mb "$CACHE_MB" --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem")
    [ -n "$TILER_PORT" ] || { echo "h2: tiler did not start:" >&2; cat "$WORK/tiler.err" >&2; exit 1; }
    declare -A ports=([nginx]=$NGINX_PORT [tiler]=$TILER_PORT)
    GRID=$(( (SIZE + 255) / 256 ))
    FITS_LEVEL=$((TOP - 1)) FITS_GRID=$(( (SIZE / 2 + 255) / 256 ))
    # urls FILE PORT LEVEL GRID: 4,000 random tiles of LEVEL, seeded, as https URLs on PORT.
    urls() {
        /usr/bin/python3 - "$2" "$3" "$4" >"$1" <<'PY'
import random, sys
port, level, grid = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(2026)
for _ in range(4000):
    print(f"https://127.0.0.1:{port}/images/img_files/{level}/{rng.randrange(grid)}_{rng.randrange(grid)}.jpg")
PY
    }
    # h2 SERVER LEVEL GRID → req/s of h2load over that server's list
    h2() {
        local list="$WORK/$1-$2.urls"
        [ -s "$list" ] || urls "$list" "${ports[$1]}" "$2" "$3"
        h2load -D "$SECONDS_PER" --warm-up-time 1 -c 8 -m 16 -t 1 -i "$list" 2>/dev/null | awk '/^finished in/ { gsub(",", ""); print $4 }'
    }
    for round in $(seq "$ROUNDS"); do
        order=(nginx tiler)
        (( round % 2 )) || order=(tiler nginx)
        for server in "${order[@]}"; do
            # Warm both: the fitting level's tiles once, so (h2-fit) and (h1-tls) measure a warm cache on both sides.
            h2load -n 4000 -c 4 -m 16 -t 1 -i <(urls /dev/stdout "${ports[$server]}" "$FITS_LEVEL" "$FITS_GRID") >/dev/null 2>&1 || true
            results[$server-h2-fit]+="$(h2 "$server" "$FITS_LEVEL" "$FITS_GRID") "
            results[$server-h2-big]+="$(h2 "$server" "$TOP" "$GRID") "
            out=$(PREFIX=/images/img_files LEVEL=$FITS_LEVEL COLS=$FITS_GRID ROWS=$FITS_GRID \
                wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER}s" -s bench/wrk/random-tiles.lua "https://127.0.0.1:${ports[$server]}")
            results[$server-h1-tls]+="$(awk '/Requests\/sec/ { print $2 }' <<<"$out") "
        done
    done
    # Stopped before the browser's case, which has two cores to share as it is.
    kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true
fi
view=""
# A failed browser case (its reason on stderr) still leaves the throughput figures to print.
[[ " $CASES " != *" view "* ]] || view=$(bench/h2-view.sh "$ROUNDS") || view="| view (ms to sharp, 50 ms RTT) | failed | failed | — |"
if [[ " $CASES " == *" throughput "* ]]; then
    echo "h2load -c 8 -m 16 (HTTP/2 over TLS) and wrk -t2 -c$CONNECTIONS (HTTP/1.1 over TLS), ${SECONDS_PER}s per measurement, $ROUNDS rounds alternating; $(nproc) cores; $(nginx -v 2>&1)"
fi
[ -z "$view" ] || echo "view: headless $(chromium --version 2>/dev/null | awk '{ print $1, $2; exit }'), a new browser each run, $ROUNDS rounds alternating HTTP/1.1 and HTTP/2, both over TLS"
echo
echo "| case | nginx req/s | tiler req/s | tiler ÷ nginx, median of rounds (range) |"
echo "|---|---|---|---|"
for case in h2-fit h2-big h1-tls; do
    [ -n "${results[nginx-$case]:-}" ] || continue
    read -ra n <<<"${results[nginx-$case]}"
    read -ra t <<<"${results[tiler-$case]}"
    ratios=$(for i in "${!n[@]}"; do awk -v a="${t[$i]}" -v b="${n[$i]}" 'BEGIN { printf "%.3f\n", a / b }'; done)
    printf '| %s | %.0f | %.0f | %.2f× (%s–%s) |\n' "$case" "$(printf '%s\n' "${n[@]}" | median)" "$(printf '%s\n' "${t[@]}" | median)" \
        "$(median <<<"$ratios")" "$(sort -n <<<"$ratios" | head -1)" "$(sort -n <<<"$ratios" | tail -1)"
done
[ -z "$view" ] || echo "$view"
