#!/usr/bin/env bash
# Cloud-app load (issue 16): the server with 1,000 emulated vehicles dialing in over WebSocket
# on loopback, then the same over plain TCP for comparison. Release builds of `sdl` (the
# vehicles) and CloudBenchmarks (the server).
# Usage: Benchmarks/cloud.sh [VEHICLES] [WINDOW_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
vehicles=${1:-1000}
window=${2:-10}
swift build -c release --product sdl >&2
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product CloudBenchmarks >&2
for scheme in ws tcp; do
  Benchmarks/.build/release/CloudBenchmarks --sdl .build/release/sdl --vehicles "$vehicles" --window "$window" --scheme "$scheme"
  echo
done
