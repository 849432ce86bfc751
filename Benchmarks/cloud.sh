#!/usr/bin/env bash
# Cloud-app load (issue 16): the server with 1,000 emulated vehicles dialing in over WebSocket
# on loopback, then the same over plain TCP for comparison. Release builds of `sdl` (the
# vehicles) and CloudBenchmarks (the server).
# Usage: Benchmarks/cloud.sh [VEHICLES] [WINDOW_SECONDS] [RATE]
#   RATE: Shows per second over all vehicles (default: one per vehicle per second), e.g.
#   Benchmarks/cloud.sh 10000 20 1000 for 10,000 vehicles at 1,000 Shows/s in all.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
vehicles=${1:-1000}
window=${2:-10}
rate=${3:-$vehicles}
swift build -c release --product sdl >&2
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product CloudBenchmarks >&2
for scheme in ws tcp; do
  Benchmarks/.build/release/CloudBenchmarks --sdl .build/release/sdl --vehicles "$vehicles" --window "$window" --rate "$rate" --scheme "$scheme"
  echo
done
