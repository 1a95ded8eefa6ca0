#!/usr/bin/env bash
# The viewer's tests: node unit tests of Public/js's pure modules (one of them runs `tiler visible`) and
# headless-Chromium tests against a live `tiler serve` (one of them over HTTPS with a test certificate authority that
# Chromium trusts through an NSS database) and a plain static file server (python3 -m http.server).
# Installs what they need on Debian 12 (idempotently), builds tiler (debug), runs both suites and prints
# `N passed, M failed` last; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"

# Debian's python3 has selenium and PIL from apt; a pyenv python3 earlier on PATH would not. libnss3-tools' certutil
# puts test_tls.py's certificate authority in the NSS database Chromium reads; scripts/setup brings openssl.
extras=(chromium chromium-driver python3-selenium python3-pil fonts-dejavu-core libnss3-tools)
command -v node >/dev/null 2>&1 || extras+=(nodejs)
scripts/setup "${extras[@]}" || { echo "0 passed, 1 failed (setup)"; exit 1; }
# axe-core for the accessibility checks (test_accessibility.py): PyPI's axe-selenium-python ships axe.min.js. Installed
# once, without dependencies (selenium stays Debian's), where Debian's /usr/bin/python3 imports it. Its 3.0.0 says it
# wants Python 3.12 but is plain code that Debian 12's 3.11 runs (its older releases ship an older axe-core).
if ! /usr/bin/python3 -c 'import axe_selenium_python' 2>/dev/null; then
    /usr/bin/python3 -m pip install --quiet --break-system-packages --no-deps --ignore-requires-python axe-selenium-python==3.0.0 ||
        { echo "0 passed, 1 failed (setup: axe-selenium-python)"; exit 1; }
fi

# scripts/test has built tiler already and says where (TILER_BIN); run alone, this builds it.
if [ -z "${TILER_BIN:-}" ] || [ ! -x "$TILER_BIN" ]; then
    echo "== swift build --product tiler"
    swift build --product tiler || { echo "0 passed, 1 failed (build)"; exit 1; }
    export TILER_BIN="$PWD/.build/debug/tiler"
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "== node --test Tests/Viewer/unit"
node --test --test-reporter=tap Tests/Viewer/unit/*.test.mjs | tee "$log" | grep -E '^(not )?ok |^# (tests|pass|fail)'
node_status=${PIPESTATUS[0]}
node_pass=$(sed -n 's/^# pass //p' "$log" | tail -1)
node_fail=$(sed -n 's/^# fail //p' "$log" | tail -1)
[ "$node_status" -eq 0 ] || grep -A30 '^not ok' "$log" | head -80

echo "== browser tests (headless Chromium)"
/usr/bin/python3 Tests/Viewer/browser/run.py 2>&1 | tee "$log"
browser_status=${PIPESTATUS[0]}
browser_pass=$(sed -n 's/^browser tests: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p' "$log" | tail -1)
browser_fail=$(sed -n 's/^browser tests: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$log" | tail -1)

passed=$(( ${node_pass:-0} + ${browser_pass:-0} ))
failed=$(( ${node_fail:-0} + ${browser_fail:-0} ))
# A suite that crashed before counting still counts as a failure.
[ "$node_status" -ne 0 ] && [ "${node_fail:-0}" -eq 0 ] && failed=$(( failed + 1 ))
[ "$browser_status" -ne 0 ] && [ "${browser_fail:-0}" -eq 0 ] && failed=$(( failed + 1 ))
echo "viewer tests: ${node_pass:-0} unit + ${browser_pass:-0} browser passed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
