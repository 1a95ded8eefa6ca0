# Sourced by the suites' run.sh scripts: `with_tiler PACKAGE…` installs the Debian packages a suite needs
# (idempotently, through scripts/setup) and sets TILER_BIN, building tiler (debug) when TILER_BIN is not an
# executable already (scripts/test builds it once and passes it on).
with_tiler() {
    [ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
    scripts/setup "$@"
    if [ -z "${TILER_BIN:-}" ] || [ ! -x "$TILER_BIN" ]; then
        swift build --product tiler
        export TILER_BIN="$PWD/.build/debug/tiler"
    fi
}
