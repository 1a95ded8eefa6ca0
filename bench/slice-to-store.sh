#!/usr/bin/env bash
# Slicing into a bucket against slicing to local disk: `tiler slice SAMPLE -o s3://BUCKET/img.szi` (and `.tif`) — the
# container sent with a multipart upload while it is built — against the same slice to a local file, alternately, in
# one run; wall time and peak resident memory (GNU time's %M) of each.
#
# Usage: bench/slice-to-store.sh [ROUNDS]      (default 3; medians and each round's ratio)
# Env:   SIZE (16384: the SIZE² `tiler sample` picture)  BENCH_DIR (.bench-data)  TILER_BIN (a release tiler to measure
#        instead of building this checkout's)
# The store: the gateway S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_REGION name, else a one-node Ceph RADOS
# Gateway started for the run (Tests/Support/s3/ceph-rgw.sh) and stopped after it. Goal (issue 47): memory bounded as
# a local slice's — the store's slice within a local slice's peak plus the four 16 MiB parts in flight.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}

scripts/setup time python3-boto3
source bench/lib.sh
prepare_tiler

WORK=$(mktemp -d)
cleanup() {
    stop_gateway
    rm -rf "$WORK"
}
trap cleanup EXIT
use_gateway
BUCKET="slice-$RANDOM$RANDOM"
/usr/bin/python3 -c "
import sys; sys.path.insert(0, 'Tests/Support/s3'); import s3_client
s3_client.create_bucket(s3_client.client('$WORK/gw'), '$BUCKET')"

# One slice: "SECONDS PEAK_MiB" on stdout.
run() {
    local output=$1
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$TILER" slice "$SOURCE" -o "$output" --quiet --force
    awk '{ printf "%s %.0f\n", $1, $2 / 1024 }' "$WORK/time"
}
declare -A results
for round in $(seq "$ROUNDS"); do
    for container in szi tif; do
        if ((round % 2)); then order=(local store); else order=(store local); fi
        for where in "${order[@]}"; do
            if [ "$where" = local ]; then output="$WORK/local/img.$container"; else output="s3://$BUCKET/img.$container"; fi
            results[$where-$container]+="$(run "$output")"$'\n'
            [ "$where" = local ] && rm -f "$output"
        done
    done
done

column() { cut -d' ' -f"$1" <<<"${results[$2]%$'\n'}" | median; }
echo "$(nproc) cores; ${SIZE}x${SIZE} sample ($(($(stat -c %s "$SOURCE") >> 20)) MiB JPEG); $ROUNDS rounds, alternating; medians."
echo "store: Ceph RADOS Gateway at $S3_ENDPOINT (memstore)"
echo
echo "| container | to | seconds | peak RSS MiB |"
echo "|---|---|---|---|"
for container in szi tif; do
    for where in local store; do
        printf '| %s | %s | %s | %s |\n' "$container" "$where" "$(column 1 "$where-$container")" "$(column 2 "$where-$container")"
    done
done
echo
for container in szi tif; do
    for field in "1 time" "2 memory"; do
        read -r index label <<<"$field"
        ratios=$(paste -d' ' <(cut -d' ' -f"$index" <<<"${results[store-$container]%$'\n'}") \
            <(cut -d' ' -f"$index" <<<"${results[local-$container]%$'\n'}") | awk '{ printf "%.2f\n", $1 / $2 }')
        echo "$container $label store ÷ local by round: $(tr '\n' ' ' <<<"$ratios")(median $(median <<<"$ratios"))"
    done
done
