#!/usr/bin/env bash
# nginx (Debian's nginx-light 1.22) in front of `tiler serve --trust-proxy` with deploy/nginx/tiler.conf as shipped
# (but for its ports and cache folder): the cache cannot be poisoned through Host or forwarding headers, unknown hosts
# are refused, tiles are cached. Then deploy/nginx/tiler-tls.conf (but for its ports, certificate paths, cache folder
# and ACME webroot) with a test certificate authority made by openssl: HTTP/2 by ALPN, TLS 1.2/1.3 and ECDHE-AEAD
# suites only (checked with openssl s_client), HSTS, the port-80 redirect, https IIIF ids. Installs nginx-light (and
# scripts/setup's openssl and curl) with apt-get (idempotently). Environment: TILER_BIN=path/to/tiler skips the build.
# Prints `N passed, M failed` last; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Support/with-tiler.sh
with_tiler nginx-light python3
exec /usr/bin/python3 Tests/Nginx/test_nginx.py
