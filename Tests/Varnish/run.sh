#!/usr/bin/env bash
# Varnish (Debian's varnishd 7.1) in front of `tiler serve` replicas with deploy/varnish/tiler.vcl: one replica
# is stopped in the middle of a load and no client may see an error; a repeated pass must come from Varnish's cache
# (test_varnish.py); the same with the replicas over one S3 bucket and no shared file system, as
# deploy/docker-compose.s3.yml runs them (test_bucket_varnish.py); private images' signed tile URLs are cached and
# shared, and unsigned or wrongly signed requests for a tile Varnish holds are refused (test_private_varnish.py).
# Installs varnish and boto3 with apt-get (idempotently). Environment: TILER_BIN=path/to/tiler skips the build;
# S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_REGION name a running test gateway (scripts/test's), else the
# bucket test starts its own with Tests/Support/s3/ceph-rgw.sh (which installs Ceph's packages).
# Prints `N passed, M failed` last; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
source Tests/Support/with-tiler.sh
with_tiler varnish python3 python3-boto3 || { echo "0 passed, 1 failed (setup)"; exit 1; }
passed=0
failed=0
status=0
for script in Tests/Varnish/test_varnish.py Tests/Varnish/test_bucket_varnish.py Tests/Varnish/test_private_varnish.py; do
    log="$(mktemp)"
    /usr/bin/python3 "$script" | tee "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    counts="$(tail -1 "$log" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')"
    rm -f "$log"
    if [ -z "$counts" ]; then
        failed=$((failed + 1))
        status=1
        continue
    fi
    passed=$((passed + ${counts% *}))
    failed=$((failed + ${counts#* }))
done
echo "varnish: $passed passed, $failed failed"
exit $status
