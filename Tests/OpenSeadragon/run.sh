#!/usr/bin/env bash
# OpenSeadragon (the real library) as a client of `tiler serve`, through both its DZI and its IIIF tile sources, in
# headless Chromium. OpenSeadragon comes from PyPI: the openslide-python source distribution ships it in its deep-zoom
# example; it is downloaded once into .build-osd/ (ignored by git) and never committed.
# Environment: TILER_BIN=path/to/tiler skips the build. Prints `N passed, M failed` last.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/setup chromium chromium-driver python3-selenium python3-pil fonts-dejavu-core python3-pip libvips-tools
OSD=.build-osd/openseadragon.js
if [ ! -s "$OSD" ]; then
    rm -rf .build-osd && mkdir -p .build-osd/download
    /usr/bin/python3 -m pip download --quiet --no-deps --no-binary :all: -d .build-osd/download "openslide-python==1.4.7"
    tar -xzf .build-osd/download/openslide_python-1.4.7.tar.gz -C .build-osd --strip-components=4 \
        openslide_python-1.4.7/examples/deepzoom/static/openseadragon.js
fi
if [ -z "${TILER_BIN:-}" ] || [ ! -x "$TILER_BIN" ]; then
    swift build --product tiler
    export TILER_BIN="$PWD/.build/debug/tiler"
fi
exec /usr/bin/python3 Tests/OpenSeadragon/test_openseadragon.py "$OSD"
