#!/usr/bin/env bash
# nginx (Debian's nginx-light 1.22) in front of `tiler serve --trust-proxy` with deploy/nginx/tiler.conf as shipped
# (but for its ports and cache folder): the cache cannot be poisoned through Host or forwarding headers, unknown hosts
# are refused, tiles are cached. Installs nginx-light with apt-get (idempotently). Environment: TILER_BIN=path/to/tiler
# skips the build. Prints `N passed, M failed` last; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Support/with-tiler.sh
with_tiler nginx-light python3
exec /usr/bin/python3 Tests/Nginx/test_nginx.py
