#!/usr/bin/env bash
# The test gateway's own test: Tests/Support/s3/selftest.sh [PORT]. Starts ceph-rgw.sh in a temporary folder (on PORT,
# or a free port), then through s3_client.py creates a bucket, uploads a 1 MiB file, reads a byte range back and
# compares, lists, deletes the bucket; checks that a second start of a running gateway changes nothing, that stop
# leaves no daemon or folder, and that failed starts (a port in use; a gateway that cannot bind) say where they failed
# and leave no daemon behind.
# Prints how long the start took and the median of 50 ranged 20 KB GETs (for the record, not asserted), and
# `N passed, M failed` last; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../../.."
harness=Tests/Support/s3/ceph-rgw.sh
port="${1:-0}"
tmp="$(mktemp -d)"
dir="$tmp/gw"
passed=0
failed=0

check() {
    local name="$1"
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name"
    fi
}

# Ceph processes whose command line names FOLDER/ceph.conf (the harness gives it to every daemon with -c).
daemons_of() {
    local p
    for p in $(grep -lzxF -- "$1/ceph.conf" /proc/[0-9]*/cmdline 2>/dev/null); do
        case "$(cat "${p%/cmdline}/comm" 2>/dev/null)" in
            ceph* | rados*) echo "${p%/cmdline}" ;;
        esac
    done
}
none_left() { [ -z "$(daemons_of "$1")" ]; }

cleanup() {
    "$harness" stop "$dir" >/dev/null 2>&1
    "$harness" stop "$tmp/busy" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

started=$(date +%s.%N)
"$harness" start "$dir" "$port" >"$tmp/start.out" 2>"$tmp/start.err"
status=$?
elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check "the gateway starts (exit $status)" [ $status -eq 0 ]
[ $status -eq 0 ] || cat "$tmp/start.err"
echo "     start took $elapsed s; the harness: $(grep -o 'started in .*from the start)' "$tmp/start.err")"
check "DIR/env names the endpoint on 127.0.0.1" \
    grep -q "^S3_ENDPOINT=http://127.0.0.1:[0-9]*$" "$dir/env"
check "DIR/env has all four settings, and start printed them" \
    bash -c '[ "$(grep -c "^S3_\(ENDPOINT\|ACCESS_KEY\|SECRET_KEY\|REGION\)=." "$1/env")" = 4 ] && cmp -s "$1/env" "$2"' _ "$dir" "$tmp/start.out"
if [ "$port" != 0 ]; then
    check "the gateway listens on the port given ($port)" grep -q "^S3_ENDPOINT=http://127.0.0.1:$port$" "$dir/env"
fi
check "status: the gateway answers" "$harness" status "$dir"

if [ $status -eq 0 ]; then
    pids_before="$(cat "$dir"/pids/* | sort | tr '\n' ' ')"
    "$harness" start "$dir" >"$tmp/again.out" 2>&1
    again=$?
    check "a second start of a running gateway is a no-op (exit $again, same daemons)" \
        bash -c '[ $1 -eq 0 ] && [ "$(cat "$2"/pids/* | sort | tr "\n" " ")" = "$3" ]' _ "$again" "$dir" "$pids_before"

    head -c 1048576 /dev/urandom >"$tmp/one-mib.bin"
    /usr/bin/python3 - "$dir" "$tmp/one-mib.bin" <<'EOF' >"$tmp/python.out" 2>&1
import statistics, sys, time
sys.path.insert(0, "Tests/Support/s3")
import s3_client

folder, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
def check(name, condition):
    print(("ok   " if condition else "FAIL ") + name, flush=True)

try:
    s3 = s3_client.client(folder)
    bucket = "tiler-selftest"
    s3_client.create_bucket(s3, bucket)
    check("create a bucket", bucket in [b["Name"] for b in s3.list_buckets()["Buckets"]])
    etag = s3_client.put_file(s3, bucket, "dir/one-mib.bin", path)
    check("upload a 1 MiB file", len(etag) > 2)
    head = s3.head_object(Bucket=bucket, Key="dir/one-mib.bin")
    check("its size is 1 MiB", head["ContentLength"] == len(data))
    got = s3_client.get_range(s3, bucket, "dir/one-mib.bin", 300_000, 320_479)
    check("a ranged GET (bytes 300000-320479) returns exactly those bytes", got == data[300_000:320_480])
    tail = s3_client.get_range(s3, bucket, "dir/one-mib.bin", len(data) - 100, len(data) - 1)
    check("a ranged GET of the last 100 bytes", tail == data[-100:])
    check("list the bucket", s3_client.list_keys(s3, bucket) == ["dir/one-mib.bin"])
    times = []
    for i in range(50):
        start = (i * 20_480) % (len(data) - 20_480)
        t = time.perf_counter()
        body = s3_client.get_range(s3, bucket, "dir/one-mib.bin", start, start + 20_479)
        times.append(time.perf_counter() - t)
        if body != data[start:start + 20_480]:
            check(f"ranged GET {i} returns its bytes", False)
    times.sort()
    print(f"     50 ranged 20 KB GETs (boto3, one connection): median {statistics.median(times) * 1000:.1f} ms, "
          f"min {times[0] * 1000:.1f} ms, p90 {times[44] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")
    s3_client.delete_bucket(s3, bucket)
    check("delete the bucket with its objects", bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]])
except Exception as error:
    check(f"the S3 operations ran without an error ({type(error).__name__}: {error})", False)
EOF
    cat "$tmp/python.out"
    passed=$((passed + $(grep -c '^ok ' "$tmp/python.out")))
    failed=$((failed + $(grep -c '^FAIL ' "$tmp/python.out")))
    [ -s "$tmp/python.out" ] || { failed=$((failed + 1)); echo "FAIL the Python checks printed nothing"; }
fi

"$harness" stop "$dir"
stop_status=$?
check "stop (exit $stop_status)" [ $stop_status -eq 0 ]
check "stop removes DIR" [ ! -e "$dir" ]
check "no daemon of DIR is left" none_left "$dir"

# Failures: a port in use is refused before anything starts; a gateway that cannot bind (a second, busy port in its
# frontend options) fails after the monitor and OSD are up, and they must not be left behind.
/usr/bin/python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(300)' >"$tmp/busy.port" &
holder=$!
for _ in $(seq 50); do [ -s "$tmp/busy.port" ] && break; sleep 0.1; done
busy="$(cat "$tmp/busy.port")"
"$harness" start "$tmp/busy" "$busy" >/dev/null 2>"$tmp/busy.err"
busy_status=$?
check "a start on a port in use fails (exit $busy_status) with one line naming the step and port" \
    bash -c '[ $1 -ne 0 ] && head -1 "$2" | grep -q "FAILED at step .port: 127.0.0.1:$3 is in use"' _ "$busy_status" "$tmp/busy.err" "$busy"
check "and leaves no daemon behind" none_left "$tmp/busy"
"$harness" stop "$tmp/busy"
CEPH_RGW_FRONTEND_OPTIONS="port=$busy" "$harness" start "$tmp/busy" >/dev/null 2>"$tmp/busy.err"
busy_status=$?
echo "     (the expected failure:) $(head -1 "$tmp/busy.err")"
check "a gateway that cannot bind fails the start (exit $busy_status), naming the gateway step and showing its log" \
    bash -c '[ $1 -ne 0 ] && head -1 "$2" | grep -q "FAILED at step .gateway answering.*exited" &&
        grep -q "^--- last errors in .*client.rgw.a.log" "$2" && grep -q "failed to bind" "$2"' _ "$busy_status" "$tmp/busy.err"
check "and the monitor and OSD it started are not left behind" none_left "$tmp/busy"
"$harness" stop "$tmp/busy"
check "stop after a failed start removes its folder" [ ! -e "$tmp/busy" ]
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

echo "ceph-rgw selftest: $passed passed, $failed failed"
[ $failed -eq 0 ]
