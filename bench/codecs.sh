#!/usr/bin/env bash
# bench/codecs.sh — Tiler's codecs next to libjpeg-turbo's own tools, in one run, on one core.
#
# Builds codec-bench in release, installs libjpeg-turbo-progs (tjbench, djpeg, cjpeg) if missing,
# runs codec-bench on an N×N procedural photo-like image (N = first argument, default 8192), then
# times the same work with the libjpeg-turbo tools and prints ours ÷ theirs. Quote the ratios, not
# the absolute figures: the machines are shared and noisy. Takes about a minute at 8192.
#
#   ours                                   theirs
#   stream-decode the Q90 4:4:4 JPEG        djpeg to /dev/null (file in, PPM out) and tjbench (in memory)
#   whole-image encode Q85 4:2:0 (±opt)     cjpeg -quality 85 -sample 2x2 [-optimize] from the PPM
#   256×256 tiles of the 2048² crop         tjbench -tile on the same crop, 256×256 row (tjCompress2 per tile)
#   peak memory streaming each file         djpeg's peak memory on the same JPEG
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:-8192}"
out="${TMPDIR:-/tmp}/tiler-codec-bench"
mkdir -p "$out"

if ! command -v tjbench >/dev/null || ! command -v djpeg >/dev/null || ! command -v cjpeg >/dev/null; then
    echo "installing libjpeg-turbo-progs"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq libjpeg-turbo-progs >/dev/null
fi

echo "building codec-bench (release)"
swift build -c release --product codec-bench 2>&1 | tail -n 1
ours="$out/codec-bench.txt"
.build/release/codec-bench --size "$size" --out "$out" | tee "$ours"

jpeg="$out/image-$size.jpg"
png="$out/image-$size.png"
ppm="$out/image-$size.ppm"
crop="$out/crop-2048.ppm"
megapixels=$(awk -v n="$size" 'BEGIN { print n * n / 1e6 }')

result() { awk -v k="$1" '$1 == "RESULT" && $2 == k { print $3 }' "$ours"; }
# The fastest of three runs of a command, in seconds.
best_seconds() {
    local best=""
    for _ in 1 2 3; do
        local start end
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s.%N)
        best=$(awk -v s="$start" -v e="$end" -v b="$best" 'BEGIN { t = e - s; print (b == "" || t < b) ? t : b }')
    done
    echo "$best"
}
rate() { awk -v mp="$1" -v s="$2" 'BEGIN { printf "%.1f", mp / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() { printf '%-44s ours %7s   %-30s %7s   ratio %s\n' "$1" "$2" "$3" "$4" "$(ratio "$2" "$4")"; }

echo
echo "-- ours and libjpeg-turbo's tools, interleaved in 3 rounds (best of each), so both see the same load"
bench=.build/release/codec-bench
key() { awk -v k="$1" '$1 == "RESULT" && $2 == k { print $3 }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }'; }
our_decode="" djpeg_rate="" our_encode="" our_encode_opt="" cjpeg_rate="" cjpeg_opt_rate=""
for round in 1 2 3; do
    our_decode=$(max "$our_decode" "$($bench --decode "$jpeg" | key decode)")
    djpeg_rate=$(max "$djpeg_rate" "$(rate "$megapixels" "$(best_seconds djpeg -outfile /dev/null "$jpeg")")")
    encoded=$($bench --encode-ppm "$ppm")
    our_encode=$(max "$our_encode" "$(echo "$encoded" | key ppm_encode_q85_420)")
    our_encode_opt=$(max "$our_encode_opt" "$(echo "$encoded" | key ppm_encode_q85_420_opt)")
    cjpeg_rate=$(max "$cjpeg_rate" "$(rate "$megapixels" "$(best_seconds cjpeg -quality 85 -sample 2x2 -outfile /dev/null "$ppm")")")
    cjpeg_opt_rate=$(max "$cjpeg_opt_rate" "$(rate "$megapixels" "$(best_seconds cjpeg -quality 85 -sample 2x2 -optimize -outfile /dev/null "$ppm")")")
    echo "round $round: decode ours $our_decode djpeg $djpeg_rate; encode ours $our_encode cjpeg $cjpeg_rate; optimised ours $our_encode_opt cjpeg $cjpeg_opt_rate"
done
tj_decode=$(tjbench "$jpeg" -rgb -quiet -nowrite -benchtime 1 -warmup 0.2 2>/dev/null | awk '$1 == "RGB" { print $NF }' | tail -n 1)
our_tiles_before=$($bench --tiles "$crop" | key tile_jpeg_q85_420)
our_crop_whole=$($bench --encode-ppm "$crop" | key ppm_encode_q85_420)
tj_table=$(tjbench "$crop" 85 -rgb -subsamp 420 -tile -componly -quiet -nowrite -benchtime 1 -warmup 0.2 2>/dev/null)
tj_tiles=$(echo "$tj_table" | awk '$1 == "RGB" && $5 == 256 && $6 == 256 { print $7 }')
tj_whole=$(echo "$tj_table" | awk '$1 == "RGB" && $5 == 2048 && $6 == 2048 { print $7 }')
our_tiles=$(max "$($bench --tiles "$crop" | key tile_jpeg_q85_420)" "$our_tiles_before")
our_crop_whole=$(max "$($bench --encode-ppm "$crop" | key ppm_encode_q85_420)" "$our_crop_whole")
djpeg_rss=$(/usr/bin/time -f %M djpeg -outfile /dev/null "$jpeg" 2>&1 >/dev/null | tail -n 1)
jpeg_rss=$($bench --decode "$jpeg" | key peak_rss_mib)
png_rss=$($bench --decode "$png" | key peak_rss_mib)

echo
echo "== ours ÷ libjpeg-turbo (MP/s on one core; ratio > 1 means Tiler is faster)"
row "JPEG decode ${size}² Q90 4:4:4, file → rows" "$our_decode" "djpeg → /dev/null" "$djpeg_rate"
row "" "$our_decode" "tjbench decompress (in memory)" "$tj_decode"
row "JPEG encode ${size}² Q85 4:2:0, one call" "$our_encode" "cjpeg (PPM in)" "$cjpeg_rate"
row "JPEG encode ${size}² Q85 4:2:0, optimised" "$our_encode_opt" "cjpeg -optimize (PPM in)" "$cjpeg_opt_rate"
row "256×256 tiles Q85 4:2:0 of the 2048² crop" "$our_tiles" "tjbench -tile, 256×256 row" "$tj_tiles"
row "256×256 tiles Q85 4:2:0, optimised (suite)" "$(result tile_jpeg_q85_420_opt)" "cjpeg -optimize whole image" "$cjpeg_opt_rate"
echo
echo "== per-tile overhead on the 2048² crop: 256×256 tiles vs one 2048×2048 encode (Q85 4:2:0)"
printf '%-44s %s vs %s MP/s: tiles run at %s of the one-call rate\n' "ours (strided, one encoder reused)" "$our_tiles" "$our_crop_whole" \
    "$(awk -v a="$our_tiles" -v b="$our_crop_whole" 'BEGIN { printf "%.0f%%", 100 * a / b }')"
printf '%-44s %s vs %s MP/s: tiles run at %s of the one-call rate\n' "tjbench (tjCompress2 per tile)" "$tj_tiles" "$tj_whole" \
    "$(awk -v a="$tj_tiles" -v b="$tj_whole" 'BEGIN { printf "%.0f%%", 100 * a / b }')"
echo
echo "== peak memory while streaming (whole process, MiB)"
printf '%-44s %s MiB (djpeg: %s MiB)\n' "JPEG ${size}² in 256-row strips" "$jpeg_rss" "$(awk -v k="$djpeg_rss" 'BEGIN { printf "%.0f", k / 1024 }')"
printf '%-44s %s MiB (the decoded image would be %s MiB)\n' "PNG ${size}² in 256-row strips" "$png_rss" \
    "$(awk -v n="$size" 'BEGIN { printf "%.0f", n * n * 3 / 1048576 }')"
