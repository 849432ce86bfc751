#!/usr/bin/env bash
# Two versions of the library side by side in one run (issue 23: before and after the lifecycle
# state machine and structured sub-managers): ManagerBenchmarks (start() → Ready, Show round
# trip) and CloudBenchmarks (memory per idle session, Show p99 under load), in ABBA order so
# machine noise hits both alike. OLD and NEW are checkouts of the two commits (git worktree
# add ../old COMMIT); their Benchmarks are built in release here. SDL is the `sdl` binary whose
# emulator plays the vehicles for both (any release build).
# Usage: Benchmarks/compare.sh OLD_DIR NEW_DIR SDL [ROUNDS] [VEHICLES]
set -euo pipefail
old=$1 new=$2 sdl=$3 rounds=${4:-2} vehicles=${5:-1000}
source "$(dirname "$0")/spec-env.sh"
for dir in "$old" "$new"; do
  for product in ManagerBenchmarks CloudBenchmarks; do
    swift build -c release --package-path "$dir/Benchmarks" --scratch-path "$dir/Benchmarks/.build" --product $product >&2
  done
done
run() {  # label dir product args...
  local label=$1 dir=$2 product=$3; shift 3
  echo "== $label $product"
  "$dir/Benchmarks/.build/release/$product" "$@"
}
for round in $(seq "$rounds"); do
  echo "# round $round"
  run old "$old" ManagerBenchmarks; run new "$new" ManagerBenchmarks
  run new "$new" ManagerBenchmarks; run old "$old" ManagerBenchmarks
  for label in old new new old; do
    dir=$old; [ "$label" = new ] && dir=$new
    run "$label" "$dir" CloudBenchmarks --sdl "$sdl" --vehicles "$vehicles" --window 10 --scheme ws
  done
done
