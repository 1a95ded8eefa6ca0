#!/usr/bin/env bash
# Varnish (Debian's varnishd 7.1) in front of two `tiler serve` replicas with deploy/varnish/tiler.vcl: one replica
# is stopped in the middle of a load and no client may see an error; a repeated pass must come from Varnish's cache.
# Installs varnish with apt-get (idempotently). Environment: TILER_BIN=path/to/tiler skips the build.
# Prints `N passed, M failed` last; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Support/with-tiler.sh
with_tiler varnish python3
exec /usr/bin/python3 Tests/Varnish/test_varnish.py
