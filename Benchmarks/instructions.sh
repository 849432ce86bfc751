#!/usr/bin/env bash
# Instructions per message (callgrind), for our codecs: exact and repeatable whatever else the
# machine is doing, so before/after comparisons of the runtime need no quiet machine.
# Each count is the difference between two runs of N1 and N2 operations, over N2 - N1.
# Usage: Benchmarks/instructions.sh [CodecBenchmarks binary]   (default: the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-Benchmarks/.build/release/CodecBenchmarks}
n1=${N1:-40}
n2=${N2:-240}
export SWIFT_DETERMINISTIC_HASHING=1  # Set/Dictionary hashing is seeded per process otherwise
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read Swift 6's DWARF 5; the symbol table is enough for counting.
objcopy --strip-debug "$binary" "$work/bench"

count() {  # candidate payload iterations -> total instructions
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/bench" --payloads Benchmarks/Payloads \
    --only "$2" --candidate "$1" --iterations "$3" >/dev/null 2>"$work/err"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/err"
}

echo "| Payload | decode:SDLJSON | encode:SDLJSON | bson:decode typed | bson:encode typed |"
echo "| :--- | ---: | ---: | ---: | ---: |"
for payload in RegisterAppInterfaceResponse GetVehicleDataResponse Show OnHMIStatus CreateInteractionChoiceSet; do
  row="| $payload |"
  for candidate in decode:SDLJSON encode:SDLJSON "bson:decode typed" "bson:encode typed"; do
    a=$(count "$candidate" "$payload" "$n1")
    b=$(count "$candidate" "$payload" "$n2")
    row+=" $(( (b - a) / (n2 - n1) )) |"
  done
  echo "$row"
done
