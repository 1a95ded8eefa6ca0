#!/usr/bin/env bash
# Time to a sharp view at 50 ms round trip (issue #49's first goal, HTTP/2 ≤ 0.5× HTTP/1.1): headless Chromium opens
# the viewer Tiler serves over TLS at a 1920×1080 view of a 32768² image (60 tiles of the finest level), once with
# HTTP/2 and once with HTTP/1.1 (--disable-http2), alternating; bench/h2-view.py drives it and times, in the page,
# navigation start → the frame that drew the last tile. Run by bench/h2.sh (`CASES=view bench/h2.sh` runs only this).
#
# Usage: bench/h2-view.sh [ROUNDS]    (default 5; prints h2.sh's table row on stdout, each run on stderr; as root)
#
# The network: two network namespaces made here (and removed on exit), the server in one, the browser in the other,
# 10.249.49.1 and .2 on a link that delays every packet 25 ms each way — nothing touches the host's interfaces.
# The link is a veth pair with `tc qdisc … netem delay 25ms` on each end where the kernel has netem; where it has not
# (CONFIG_NET_SCH_NETEM unset: the Firecracker kernels this was written on), a pair of TUN devices joined by
# bench/h2-delay.py, which holds each packet 25 ms in user space (measured: a TCP connect takes 50.5 ms). Neither
# limits the rate. The MTU stays 1500, so TCP's slow start is the internet's: each of HTTP/1.1's six connections
# starts from a 10-segment window (and a handshake of its own), HTTP/2's one connection once.
#
# VIEW_SIZE (32768) sizes the sample; the picture (made by TILER_BIN or a release build, see bench/lib.sh) and its
# folder pyramid are kept in BENCH_DIR. VIEW_CC (reno) is TCP's congestion control in both namespaces (see below).
# VIEW_QUERY (empty) is added to the page's query string, e.g. `inflight=24` to see what the viewer would do with more
# tile requests in flight (Public/js/options.js) — not the shipped viewer, whose default is 6.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${VIEW_SIZE:-32768}
DELAY_MS=25
scripts/setup chromium chromium-driver python3-selenium openssl iproute2 curl >&2
# shellcheck source=bench/lib.sh
source bench/lib.sh
prepare_tiler
ROOT="$BENCH_DIR/h2-view-$SIZE"
[ -s "$ROOT/img.dzi" ] || "$TILER" slice "$SOURCE" -o "$ROOT" --name img --quiet --force
ROOT=$(cd "$ROOT" && pwd)

WORK=$(mktemp -d)
SNS=tiler-h2s-$$ CNS=tiler-h2c-$$ SDEV=h2s$$ CDEV=h2c$$
SERVER=10.249.49.1 CLIENT=10.249.49.2
cleanup() {
    # Everything still inside the namespaces was started here (the server, a Chromium left by a failed run), then
    # the delay process; deleting the namespaces deletes the veth pair or the TUN devices with them.
    local ns pids
    for ns in "$SNS" "$CNS"; do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -z "$pids" ] || kill $pids 2>/dev/null || true
    done
    [ ! -s "$WORK/delay.pid" ] || kill "$(cat "$WORK/delay.pid")" 2>/dev/null || true
    sleep 0.5
    ip netns del "$SNS" 2>/dev/null || true
    ip netns del "$CNS" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$SNS"
ip netns add "$CNS"
ip -n "$SNS" link set lo up
ip -n "$CNS" link set lo up
# TCP's congestion control, the same on both sides whatever the host's: reno by default, which without loss grows its
# window as cubic (Linux's default) does — slow start, then a segment per round trip — since a namespace may only
# choose one of net.ipv4.tcp_allowed_congestion_control (here "reno bbr"). bbr (VIEW_CC=bbr; this host's default)
# paces each new connection at what it has measured so far: a warm connection took 68 ms for an 18 KB answer at a
# 50 ms round trip, against 51 ms with reno.
for ns in "$SNS" "$CNS"; do ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="${VIEW_CC:-reno}"; done

# netem_link: the veth pair with netem on each end; fails (leaving nothing) where the kernel has no netem.
netem_link() {
    ip link add "$SDEV" type veth peer name "$CDEV" 2>/dev/null || return 1
    ip link set "$SDEV" netns "$SNS"
    ip link set "$CDEV" netns "$CNS"
    ip netns exec "$SNS" tc qdisc add dev "$SDEV" root netem delay "${DELAY_MS}ms" limit 10000 2>/dev/null &&
        ip netns exec "$CNS" tc qdisc add dev "$CDEV" root netem delay "${DELAY_MS}ms" limit 10000 2>/dev/null && return 0
    ip -n "$SNS" link del "$SDEV" 2>/dev/null || true
    return 1
}
if netem_link; then
    LINK="veth + netem delay ${DELAY_MS}ms each way"
else
    /usr/bin/python3 bench/h2-delay.py "$SNS" "$SDEV" "$CNS" "$CDEV" "$DELAY_MS" >"$WORK/delay.out" 2>"$WORK/delay.err" &
    echo $! >"$WORK/delay.pid"
    for _ in $(seq 50); do grep -q ready "$WORK/delay.out" 2>/dev/null && break; sleep 0.1; done
    grep -q ready "$WORK/delay.out" || { echo "h2-view: no netem, and bench/h2-delay.py did not start:" >&2; cat "$WORK/delay.err" >&2; exit 1; }
    LINK="TUN pair + bench/h2-delay.py, ${DELAY_MS} ms each way (this kernel has no netem)"
fi
for side in "$SNS $SDEV $SERVER" "$CNS $CDEV $CLIENT"; do
    read -r ns dev address <<<"$side"
    ip -n "$ns" addr add "$address/30" dev "$dev"
    # A long queue: a burst the delay process has not read yet waits instead of being dropped (netem: `limit`).
    ip -n "$ns" link set "$dev" up txqueuelen 10000
done

# The certificate for the server's address; Chromium trusts its key by hash (the SPKI list), nothing else.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 \
    -subj "/CN=$SERVER" -addext "subjectAltName=IP:$SERVER" 2>/dev/null
SPKI=$(openssl x509 -in "$WORK/cert.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
# `ip netns exec` execs the command: the pid is the server's. The viewer from this checkout's Public/.
ip netns exec "$SNS" "$TILER" serve "$ROOT" --host "$SERVER" --port 8443 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" \
    --public "$PWD/Public" >"$WORK/tiler.out" 2>"$WORK/tiler.err" &
for _ in $(seq 100); do grep -q serving "$WORK/tiler.out" 2>/dev/null && break; sleep 0.1; done
grep -q serving "$WORK/tiler.out" || { echo "h2-view: tiler did not start:" >&2; cat "$WORK/tiler.err" >&2; exit 1; }
connect=$(ip netns exec "$CNS" curl -sk -o /dev/null -w '%{time_connect}' "https://$SERVER:8443/healthz")
echo "h2-view: $LINK; ${VIEW_CC:-reno}; TCP connect from the client's namespace $(awk -v s="$connect" 'BEGIN { printf "%.1f", s * 1000 }') ms" >&2

# The deep link (Public/js/deep-link.js: contentOffset x, y in points and zoomScale): zoom 0.75 shows the finest
# level, each 256-px tile 192 points across, so 1920×1080 is 10 columns by 6 rows when x falls on a tile's edge —
# 60 tiles, centred on the image.
X=$((SIZE * 3 / 8 - 960)) Y=$((SIZE * 3 / 8 - 540))
URL="https://$SERVER:8443/${VIEW_QUERY:+?$VIEW_QUERY}#image=img&x=$X&y=$Y&zoom=0.75"
ip netns exec "$CNS" /usr/bin/python3 bench/h2-view.py "$URL" "$SPKI" "$ROUNDS"
