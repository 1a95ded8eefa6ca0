#!/usr/bin/env bash
# Tests/IIIF/run-validator.sh — the official IIIF Image API validator against `tiler serve`.
#
# Installs iiif-validator (PyPI) into .build-iiif-venv/ with Debian's python3 (once; apt packages python3-venv and
# libmagic1 if missing), builds tiler, slices the validator's own test image (fixtures/, a copy of the 10×10 grid of
# coloured squares the tests check), serves it with `tiler serve --port 0`, and runs
#   iiif-validate.py -s 127.0.0.1:PORT -p iiif/3 -i ID --version=3.0 --level=2
# Every level-2 test must pass (exit status 1 otherwise). The optional (level 3) tests are run too and reported, but
# do not fail the run. The last line is "N passed, M failed" for level 2.
#
# Image ids are built from the request's Host header (no --public-url): with --port 0 the port is only known once the
# server listens, and the validator compares info.json's id with the URL it asked for.
#
# Environment: TILER=path/to/tiler skips the build; VALIDATOR_VERSION pins the PyPI release (default 1.0.5).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"

id=67352ccc-d1b0-11e1-89ae-279075081939
fixture="Tests/IIIF/fixtures/$id.png"
venv=.build-iiif-venv
version="${VALIDATOR_VERSION:-1.0.5}"

apt_install() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "run-validator: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# 1. The validator, in its own virtual environment (python-magic needs libmagic at import time).
if [ ! -x "$venv/bin/iiif-validate.py" ] || ! "$venv/bin/pip" show iiif-validator 2>/dev/null | grep -qx "Version: $version"; then
    apt_install python3 python3-venv libmagic1
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    # wheel first, so pip builds iiif-validator (an sdist) as a wheel instead of the deprecated setup.py install.
    "$venv/bin/pip" install --quiet wheel
    "$venv/bin/pip" install --quiet "iiif-validator==$version"
fi

# 2. tiler.
if [ -z "${TILER:-}" ]; then
    swift build --product tiler 2>&1 | tail -n 1
    TILER="$(swift build --show-bin-path)/tiler"
fi

# 3. The pyramid and the server.
work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
"$TILER" slice "$fixture" -o "$work/root" --quiet
"$TILER" serve "$work/root" --host 127.0.0.1 --port 0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's|^Tiler is serving .* at http://127.0.0.1:\([0-9]*\)/$|\1|p' "$work/serve.out")"
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "run-validator: tiler serve did not start" >&2
    cat "$work/serve.err" >&2
    exit 1
fi
echo "run-validator: serving $id at http://127.0.0.1:$port/iiif/3/$id"

validate() {
    "$venv/bin/python" "$venv/bin/iiif-validate.py" -s "127.0.0.1:$port" -p iiif/3 -i "$id" --version=3.0 "$@" 2>&1 |
        grep -v '^Importing'
}

# 4. Level 2: every test must pass.
echo "== level 2 (required)"
level2="$(validate --level=2 || true)"
echo "$level2"
passed=$(grep -c ' PASS$' <<<"$level2" || true)
failed=$(grep -c ' FAIL$' <<<"$level2" || true)

# 5. The optional tests (level 3): reported, not required.
optional=$("$venv/bin/python" -c '
from iiif_validator.validator import ValidationInfo, TestSuite
tests = TestSuite(ValidationInfo()).list_tests("3.0")
print(" ".join("--test=" + name for name, info in sorted(tests.items()) if info["level"] > 2))')
echo "== optional tests (level 3, not required)"
# shellcheck disable=SC2086
validate $optional | grep -E ' (PASS|FAIL)$' || true

if [ "$passed" -eq 0 ] || [ "$failed" -ne 0 ]; then
    echo "$passed passed, $failed failed"
    exit 1
fi
echo "$passed passed, $failed failed"
