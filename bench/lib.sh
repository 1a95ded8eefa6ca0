# Shared by the slicing benchmarks (sourced, not run): needs BENCH_DIR set.

# measure NAME OUTDIR COMMAND...: runs COMMAND under GNU time in an emptied OUTDIR, appends "wall cpu peakKiB" to
# $BENCH_DIR/NAME.times; on failure prints the command's stderr and exits.
measure() {
    local name=$1 out=$2
    shift 2
    rm -rf "$out"
    mkdir -p "$out"
    sync
    /usr/bin/time -f "%e %U %S %M" -o "$BENCH_DIR/.time" "$@" >/dev/null 2>"$BENCH_DIR/.stderr" || {
        cat "$BENCH_DIR/.stderr" >&2
        exit 1
    }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$BENCH_DIR/.time" >>"$BENCH_DIR/$name.times"
}

# median: the median of the numbers on stdin, one per line.
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
