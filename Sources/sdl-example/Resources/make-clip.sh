#!/usr/bin/env bash
# Makes navigation-800x380.h264, the navigation tour's clip: 6 s of ffmpeg's test pattern at
# SDL Core's preferred 800x380 and 15 fps, H.264 baseline in Annex-B, a key frame (with SPS and
# PPS) every second, about 150 kbit/s.
set -euo pipefail
cd "$(dirname "$0")"
ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=800x380:rate=15:duration=6" \
  -c:v libx264 -profile:v baseline -pix_fmt yuv420p -g 15 -keyint_min 15 -sc_threshold 0 \
  -b:v 150k -maxrate 200k -bufsize 200k -x264-params repeat-headers=1 \
  -bsf:v h264_mp4toannexb -f h264 navigation-800x380.h264
