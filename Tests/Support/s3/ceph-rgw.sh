#!/usr/bin/env bash
# A real S3 for the tests and benchmarks: a one-node Ceph cluster (Debian 12's ceph-mon, ceph-osd and radosgw, 16.2)
# with a RADOS Gateway on 127.0.0.1, every data, run and log path under one folder, nothing in /etc or /var.
#
#   Tests/Support/s3/ceph-rgw.sh start DIR [PORT]   sets up and starts it (PORT 0 or absent: a free port); prints
#                                                    and writes DIR/env (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY,
#                                                    S3_REGION); a DIR whose gateway already answers is left running
#   Tests/Support/s3/ceph-rgw.sh stop DIR            kills the daemons it started (by their pid files), removes DIR
#   Tests/Support/s3/ceph-rgw.sh status DIR          exit 0 when DIR's gateway answers
#
# The steps of `start`, and why:
#  1. Packages through scripts/setup (idempotent): ceph-mon ceph-osd radosgw, and python3-boto3 for the Python tests.
#  2. DIR/ceph.conf (the gateway's PORT given or free; the monitor's always a free one, so clusters can coexist).
#     `auth … required = none`: no cephx keyrings to make and hand to each daemon (the gateway still checks S3
#     signatures: that is RGW's own user database, not cephx). `ms bind msgr2 = false` and a `v1:` mon
#     address: one messenger protocol on one port, no v2 handshake to configure. `osd objectstore = memstore`: the
#     OSD keeps objects in memory — no block device, no BlueStore mkfs of a file, no root-only kernel feature, and it
#     starts in a second; everything is gone when it stops, which is what a test wants. Pool size 1 (one OSD), 8
#     placement groups a pool (the gateway makes 7 pools; without a ceph-mgr nothing would shrink them).
#     `paxos propose interval = 0.05`: the monitor commits each change at once instead of batching for 1 s; the
#     gateway's first start makes ~20 changes (pools, their settings), so it starts in ~4 s instead of ~15 s.
#     beast's `tcp_nodelay=1`: without it each response's last segment waits for the client's delayed ACK, a fixed
#     ~40 ms per request that is TCP's, not the store's (a 20 KB ranged GET: ~45 ms without, ~4 ms with;
#     CEPH_RGW_FRONTEND_OPTIONS="" brings it back).
#  3. The monitor: monmaptool writes a one-monitor map, `ceph-mon --mkfs` its store, then it starts (on a free port).
#  4. The OSD: `ceph osd create UUID` gives id 0, `ceph-osd --mkfs --osd-uuid UUID` writes its folder, it is placed in
#     the CRUSH map (root=default host=localhost) and started; we wait until the monitor marks it up.
#  5. The gateway: `radosgw -n client.rgw.a` with the beast frontend on 127.0.0.1:PORT; it creates its pools on
#     first start, so the wait ends when it answers HTTP.
#  6. A test user with a fixed access key and secret (radosgw-admin user create), written to DIR/env.
# One race of Ceph 16 with auth none: a client's first command can leave before the monitor map has reached it, with
# a zero fsid, and the monitor refuses it ('wrong fsid', EPERM) — one start in six with three starting at once on two
# cores. The `ceph` steps retry it (ceph_step); the gateway and radosgw-admin are run again if the monitor logged
# such a refusal; the OSD is told not to send its own boot-time commands (`osd crush update on start` and
# `osd class update on start` = false: it is placed by step 4), for the refusal made it exit.
# No ceph-mgr: nothing here needs it. The OSD's capacity: CEPH_RGW_MEMSTORE_BYTES (4 GiB; what is stored takes RAM).
# Each wait shares one deadline (CEPH_RGW_TIMEOUT, 90 s, not counting a package install); a step that fails
# names itself on one line, then shows the last lines of its daemon's log, and every daemon started so far is
# killed (DIR is kept for its logs; `stop DIR` removes it). `stop` uses SIGKILL (see stop_daemons).
set -euo pipefail

ACCESS_KEY="TILERTESTACCESSKEY01"
SECRET_KEY="tiler-test-secret-key-for-the-test-gateway-only"
REGION="us-east-1"
USER_ID="tiler-test"
PY=/usr/bin/python3                                  # Debian's python3 with python3-boto3, not a pyenv on PATH
DAEMONS=(client.rgw.a osd.0 mon.a)
TIMEOUT="${CEPH_RGW_TIMEOUT:-90}"
MEMSTORE_BYTES="${CEPH_RGW_MEMSTORE_BYTES:-4294967296}"    # the OSD's capacity (objects live in RAM)
# beast's frontend options after its endpoint (see step 2)
FRONTEND_OPTIONS="${CEPH_RGW_FRONTEND_OPTIONS-tcp_nodelay=1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"

say() { echo "ceph-rgw: $*" >&2; }
usage() { say "usage: $0 start DIR [PORT] | stop DIR | status DIR"; exit 2; }

# The pid of daemon NAME in DIR, if it is running and is ours (its command line names DIR/ceph.conf).
daemon_pid() {
    local dir="$1" name="$2" pid
    for f in "$dir/run/$name.pid" "$dir/pids/$name"; do
        [ -s "$f" ] || continue
        pid="$(tr -dc 0-9 <"$f")"
        [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || continue
        if tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$dir/ceph.conf"; then
            echo "$pid"
            return 0
        fi
    done
    return 1
}

# Stops every daemon of DIR with SIGKILL: the cluster is thrown away with DIR, and a graceful stop only costs time (the
# OSD waits for the monitor to mark it down; memstore writes every object it holds into DIR on the way out). Besides
# the pid files, any process whose command line names DIR/ceph.conf (a daemon whose pid file was not yet written, a
# hung radosgw-admin) is ours and is stopped too.
stop_daemons() {
    local dir="$1" pids pid name p pass
    # Again until none is found: a daemon caught while it forks can leave a child the first look missed.
    for pass in 1 2 3 4 5; do
        pids=()
        for name in "${DAEMONS[@]}"; do
            pid="$(daemon_pid "$dir" "$name")" && pids+=("$pid")
        done
        if [ -f "$dir/.ceph-rgw" ]; then
            for p in $(grep -lzxF -- "$dir/ceph.conf" /proc/[0-9]*/cmdline 2>/dev/null); do
                p="${p%/cmdline}"
                case "$(cat "$p/comm" 2>/dev/null)" in
                    ceph-mon | ceph-osd | radosgw | radosgw-admin | ceph | monmaptool) pids+=("${p#/proc/}") ;;
                esac
            done
        fi
        [ ${#pids[@]} -gt 0 ] || return 0
        kill -KILL "${pids[@]}" 2>/dev/null || true
        local deadline=$((SECONDS + 5))
        for pid in "${pids[@]}"; do
            while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
        done
        sleep 0.2
    done
    say "daemons ${pids[*]} still running after SIGKILL"
    return 1
}

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Whether PORT on 127.0.0.1 can be listened on (SO_REUSEADDR, as beast binds: a closing connection does not count).
port_free() {
    "$PY" -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1])))' \
        "$1" 2>/dev/null
}

# HTTP status of GET / on the gateway, or nothing if it does not answer.
probe() {
    "$PY" - "$1" 2>/dev/null <<'EOF' || true
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=3)
c.request("GET", "/")
print(c.getresponse().status)
EOF
}

# fail STEP LOG…: the one line, the last lines of the logs, then the EXIT trap stops what was started.
fail() {
    local step="$1"
    shift
    say "FAILED at step '$step' (after $(since_start) s; logs in $DIR/log)"
    for log in "$@"; do
        [ -s "$log" ] || continue
        if grep -q -- " -1 \|ERROR" "$log"; then
            echo "--- last errors in $log" >&2
            grep -- " -1 \|ERROR" "$log" | tail -n 5 >&2
        fi
        echo "--- last lines of $log" >&2
        tail -n 15 "$log" >&2
    done
    exit 1
}

# run STEP LOG COMMAND…: runs COMMAND with its output in LOG (appended); a failure is that step's failure.
run() {
    local step="$1" log="$2"
    shift 2
    echo "+ $*" >>"$log"
    timeout "$(remaining)" "$@" >>"$log" 2>&1 || fail "$step" "$log"
}

since_start() { awk -v a="${START:-$EPOCHREALTIME}" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

remaining() {
    local left=$((DEADLINE - SECONDS))
    [ $left -gt 0 ] || left=1
    echo "$left"
}

ceph_cli() { ceph -c "$DIR/ceph.conf" --connect-timeout "$(remaining)" "$@"; }

# How many commands the monitor has refused for a zero fsid (see ceph_step).
zero_fsid_refusals() {
    grep -c "handle_command on fsid 00000000-0000-0000-0000-000000000000" "$DIR/log/mon.a.log" || true
}

# ceph_step LOG ARGS…: `ceph ARGS…`, its output on stdout, its errors in LOG. A client's first command can reach the
# monitor before the monitor map has reached the client, and is refused ('wrong fsid': the command carries a zero
# fsid; seen about once in six starts on a loaded machine): that is retried, up to 5 times.
ceph_step() {
    local log="$1" attempt out
    shift
    out="$(mktemp "$DIR/tmp/ceph.XXXXXX")"
    for attempt in 1 2 3 4 5; do
        echo "+ ceph $* (attempt $attempt)" >>"$log"
        if ceph_cli "$@" >"$out" 2>>"$log"; then
            cat "$out"
            rm -f "$out"
            return 0
        fi
        tail -n 3 "$log" | grep -q "EPERM: problem getting command descriptions\|wrong fsid" || break
        [ $SECONDS -lt $DEADLINE ] || break
        sleep 0.2
    done
    rm -f "$out"
    return 1
}

# wait_for STEP NAME LOG CONDITION…: until CONDITION succeeds, while daemon NAME is alive, before the deadline.
wait_for() {
    local step="$1" name="$2" log="$3"
    shift 3
    while ! "$@" >/dev/null 2>&1; do
        daemon_pid "$DIR" "$name" >/dev/null || fail "$step: $name exited" "$DIR/log/$name.log" "$log"
        [ $SECONDS -lt $DEADLINE ] || fail "$step: not within ${TIMEOUT} s" "$DIR/log/$name.log" "$log"
        sleep 0.3
    done
}

# start_daemon STEP NAME COMMAND…: COMMAND daemonizes (Ceph's daemons fork once initialised and write
# DIR/run/NAME.pid); the pid is copied to DIR/pids so that `stop` finds it even after the daemon removed its own file.
start_daemon() {
    local step="$1" name="$2"
    shift 2
    echo "+ $*" >>"$DIR/log/$name.out"
    timeout "$(remaining)" "$@" >>"$DIR/log/$name.out" 2>&1 || fail "$step" "$DIR/log/$name.log" "$DIR/log/$name.out"
    local pid=""
    local deadline=$((SECONDS + 10))
    while [ $SECONDS -lt $deadline ]; do
        pid="$(daemon_pid "$DIR" "$name")" && break
        sleep 0.1
    done
    [ -n "$pid" ] || fail "$step: $name did not stay up" "$DIR/log/$name.log" "$DIR/log/$name.out"
    echo "$pid" >"$DIR/pids/$name"
}

env_file() {
    cat <<EOF
S3_ENDPOINT=http://127.0.0.1:$1
S3_ACCESS_KEY=$ACCESS_KEY
S3_SECRET_KEY=$SECRET_KEY
S3_REGION=$REGION
EOF
}

gateway_up() {
    local port
    [ -f "$DIR/env" ] || return 1
    port="$(sed -n 's|^S3_ENDPOINT=http://127.0.0.1:||p' "$DIR/env")"
    for name in "${DAEMONS[@]}"; do daemon_pid "$DIR" "$name" >/dev/null || return 1; done
    [ -n "$(probe "$port")" ]
}

cmd_start() {
    local port="${1:-0}"
    [[ "$port" =~ ^[0-9]+$ ]] || usage
    if [ -d "$DIR" ] && gateway_up; then
        say "already running in $DIR"
        cat "$DIR/env"
        return 0
    fi
    if [ -d "$DIR" ] && [ -n "$(ls -A "$DIR")" ]; then
        # Leftovers of an earlier cluster of ours are replaced; anything else is not ours to delete.
        [ -f "$DIR/.ceph-rgw" ] ||
            { say "FAILED at step 'folder': $DIR is not empty and is not a gateway's folder"; exit 1; }
        stop_daemons "$DIR"
        find "$DIR" -mindepth 1 -delete
    fi
    START="$EPOCHREALTIME"
    DEADLINE=$((SECONDS + TIMEOUT))
    mkdir -p "$DIR"/{log,run,pids,mon,osd,rgw,crash,tmp}
    echo "a test gateway's folder (Tests/Support/s3/ceph-rgw.sh): \`ceph-rgw.sh stop\` removes it" >"$DIR/.ceph-rgw"
    trap 'status=$?; [ $status -eq 0 ] || stop_daemons "$DIR"; exit $status' EXIT
    trap 'exit 130' INT TERM

    # 1. packages
    [ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
    "$ROOT/scripts/setup" ceph-mon ceph-osd radosgw python3-boto3 >"$DIR/log/setup.log" 2>&1 ||
        fail "setup (scripts/setup ceph-mon ceph-osd radosgw python3-boto3)" "$DIR/log/setup.log"
    DEADLINE=$((SECONDS + TIMEOUT))   # the packages' install is not the cluster's time
    local t_setup
    t_setup="$(since_start)"

    # 2. configuration
    if [ "$port" = 0 ]; then
        port="$(free_port)"
    else
        port_free "$port" || fail "port: 127.0.0.1:$port is in use"
    fi
    local mon_port fsid
    mon_port="$(free_port)"
    while [ "$mon_port" = "$port" ]; do mon_port="$(free_port)"; done
    fsid="$(cat /proc/sys/kernel/random/uuid)"
    cat >"$DIR/ceph.conf" <<EOF
[global]
fsid = $fsid
mon initial members = a
mon host = v1:127.0.0.1:$mon_port
public addr = 127.0.0.1
ms bind msgr2 = false
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
paxos propose interval = 0.05
paxos min wait = 0.01
run dir = $DIR/run
crash dir = $DIR/crash
tmp dir = $DIR/tmp
admin socket = $DIR/run/\$name.\$pid.asok
log file = $DIR/log/\$name.log
log to stderr = false
err to stderr = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd crush chooseleaf type = 0
mon data avail warn = 1
mon data avail crit = 0

[mon]
mon data = $DIR/mon/\$name
pid file = $DIR/run/\$name.pid

[osd]
osd data = $DIR/osd/\$name
pid file = $DIR/run/\$name.pid
osd objectstore = memstore
memstore device bytes = $MEMSTORE_BYTES
osd crush update on start = false
osd class update on start = false

[client.rgw.a]
pid file = $DIR/run/\$name.pid
rgw data = $DIR/rgw
rgw frontends = beast endpoint=127.0.0.1:$port $FRONTEND_OPTIONS
rgw enable usage log = false
EOF

    # 3. monitor
    local log="$DIR/log/steps.log"
    run "monitor map (monmaptool)" "$log" monmaptool --create --clobber --fsid "$fsid" \
        --addv a "[v1:127.0.0.1:$mon_port]" "$DIR/monmap"
    run "monitor store (ceph-mon --mkfs)" "$log" ceph-mon -c "$DIR/ceph.conf" -i a --mkfs --monmap "$DIR/monmap"
    start_daemon "monitor start (ceph-mon)" mon.a ceph-mon -c "$DIR/ceph.conf" -i a
    wait_for "monitor quorum (ceph mon stat)" mon.a "$log" ceph_cli mon stat
    local t_mon
    t_mon="$(since_start)"

    # 4. OSD
    local id osd_uuid
    osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
    id="$(ceph_step "$log" osd create "$osd_uuid")" || fail "OSD id (ceph osd create)" "$log" "$DIR/log/mon.a.log"
    [ "$id" = 0 ] || fail "OSD id (ceph osd create gave '$id', not 0)" "$log"
    mkdir -p "$DIR/osd/osd.0"
    run "OSD store (ceph-osd --mkfs)" "$DIR/log/osd.0.out" \
        ceph-osd -c "$DIR/ceph.conf" -i 0 --mkfs --osd-uuid "$osd_uuid"
    ceph_step "$log" osd crush add osd.0 1 root=default host=localhost >>"$log" ||
        fail "OSD placement (ceph osd crush add)" "$log" "$DIR/log/mon.a.log"
    start_daemon "OSD start (ceph-osd)" osd.0 ceph-osd -c "$DIR/ceph.conf" -i 0
    osd_up() { ceph_cli osd dump 2>/dev/null | grep -q '^osd\.0 up '; }
    wait_for "OSD up (ceph osd dump)" osd.0 "$log" osd_up
    local t_osd
    t_osd="$(since_start)"

    # 5. gateway
    # (restarted, up to twice, if it exits after the monitor refused one of its commands for a zero fsid; see ceph_step)
    local attempt refusals step="gateway answering on 127.0.0.1:$port"
    for attempt in 1 2 3; do
        refusals="$(zero_fsid_refusals)"
        start_daemon "gateway start (radosgw)" client.rgw.a radosgw -c "$DIR/ceph.conf" -n client.rgw.a
        until [ -n "$(probe "$port")" ]; do
            if ! daemon_pid "$DIR" client.rgw.a >/dev/null; then
                if [ $attempt -lt 3 ] && [ "$(zero_fsid_refusals)" -gt "$refusals" ]; then
                    echo "radosgw exited after a 'wrong fsid' refusal; starting it again" >>"$log"
                    continue 2
                fi
                fail "$step: client.rgw.a exited" "$DIR/log/client.rgw.a.log" "$DIR/log/client.rgw.a.out"
            fi
            [ $SECONDS -lt $DEADLINE ] || fail "$step: not within ${TIMEOUT} s" "$DIR/log/client.rgw.a.log"
            sleep 0.3
        done
        break
    done
    local t_rgw
    t_rgw="$(since_start)"

    # 6. user
    for attempt in 1 2 3; do
        refusals="$(zero_fsid_refusals)"
        echo "+ radosgw-admin user create --uid $USER_ID (attempt $attempt)" >>"$log"
        timeout "$(remaining)" radosgw-admin -c "$DIR/ceph.conf" user create --uid "$USER_ID" \
            --display-name "Tiler tests" --access-key "$ACCESS_KEY" --secret-key "$SECRET_KEY" >>"$log" 2>&1 && break
        [ $attempt -lt 3 ] && [ "$(zero_fsid_refusals)" -gt "$refusals" ] && [ $SECONDS -lt $DEADLINE ] ||
            fail "test user (radosgw-admin user create)" "$log"
        timeout "$(remaining)" radosgw-admin -c "$DIR/ceph.conf" user rm --uid "$USER_ID" >>"$log" 2>&1 || true
    done
    env_file "$port" >"$DIR/env.tmp" && mv "$DIR/env.tmp" "$DIR/env"
    say "started in $(since_start) s (packages checked ${t_setup} s, monitor ${t_mon} s, OSD ${t_osd} s," \
        "gateway ${t_rgw} s, from the start); env in $DIR/env"
    cat "$DIR/env"
}

cmd_stop() {
    [ -d "$DIR" ] || return 0
    stop_daemons "$DIR"
    for name in "${DAEMONS[@]}"; do
        ! daemon_pid "$DIR" "$name" >/dev/null || { say "FAILED at step 'stop': $name still running"; exit 1; }
    done
    if [ -f "$DIR/.ceph-rgw" ] || [ -z "$(ls -A "$DIR")" ]; then
        rm -rf "$DIR"
    else
        say "FAILED at step 'stop': $DIR is not a gateway's folder; not removed"
        exit 1
    fi
}

[ $# -ge 2 ] || usage
command="$1"
DIR="$2"
mkdir -p "$(dirname "$DIR")"
DIR="$(cd "$(dirname "$DIR")" && pwd)/$(basename "$DIR")"
shift 2
case "$command" in
    start) [ $# -le 1 ] || usage; cmd_start "$@" ;;
    stop) [ $# -eq 0 ] || usage; cmd_stop ;;
    status) [ $# -eq 0 ] || usage; gateway_up ;;
    *) usage ;;
esac
