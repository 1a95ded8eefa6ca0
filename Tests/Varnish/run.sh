#!/usr/bin/env bash
# Varnish (Debian's varnishd 7.1) in front of two `tiler serve` replicas with deploy/varnish/tiler.vcl: one replica
# is stopped in the middle of a load and no client may see an error; a repeated pass must come from Varnish's cache.
# Installs varnish with apt-get (idempotently). Environment: TILER_BIN=path/to/tiler skips the build.
# Prints `N passed, M failed` last; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/setup varnish python3
if [ -z "${TILER_BIN:-}" ] || [ ! -x "$TILER_BIN" ]; then
    swift build --product tiler
    export TILER_BIN="$PWD/.build/debug/tiler"
fi
exec /usr/bin/python3 Tests/Varnish/test_varnish.py
