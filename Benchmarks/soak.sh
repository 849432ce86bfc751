#!/usr/bin/env bash
# Soak (issue 30): a cloud-app server with VEHICLES emulated vehicles (default 1,000) for MINUTES
# (default 30), each sending Shows (RATE per second over all, default 200) while CHURN percent of
# the vehicles (default 1) per minute lose their connection without a goodbye and dial again.
# Prints a line per minute (sessions, heap, RSS, open files, Show p50/p99) and the growth from
# the first minute to the last. Release builds of `sdl` (the vehicles) and CloudBenchmarks.
# Usage: Benchmarks/soak.sh [VEHICLES] [MINUTES] [CHURN] [RATE]
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
vehicles=${1:-1000}
minutes=${2:-30}
churn=${3:-1}
rate=${4:-200}
swift build -c release --product sdl >&2
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product CloudBenchmarks >&2
Benchmarks/.build/release/CloudBenchmarks --sdl .build/release/sdl --vehicles "$vehicles" --rate "$rate" \
  --soak "$minutes" --churn "$churn"
