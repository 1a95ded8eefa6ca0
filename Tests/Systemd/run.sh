#!/usr/bin/env bash
# deploy/systemd as systemd would run it: `systemd-analyze verify` on the unit, then its ExecStart expanded from
# tiler.env and the instance name (as systemd does) and run against a real pyramid folder.
# Environment: TILER_BIN=path/to/tiler skips the build. Prints `N passed, M failed` last; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Support/with-tiler.sh
with_tiler systemd python3
exec /usr/bin/python3 Tests/Systemd/test_systemd.py
