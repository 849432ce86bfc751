#!/usr/bin/env bash
# Instructions per message (callgrind) for the HMI API codec benchmark's decode candidates: where
# SDLJSONRPC's time goes (the envelope, the body), exact and repeatable under load. Each count is
# the difference between runs of N1 and N2 operations, over N2 - N1, as in instructions.sh.
# Usage: Benchmarks/hmi-instructions.sh [HMICodecBenchmarks binary]   (default: the release build;
# niced: counts do not depend on scheduling)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-Benchmarks/.build/release/HMICodecBenchmarks}
n1=${N1:-40}
n2=${N2:-240}
export SWIFT_DETERMINISTIC_HASHING=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read Swift 6's DWARF 5; the symbol table is enough for counting.
objcopy --strip-debug "$binary" "$work/bench"

count() {  # candidate payload iterations -> total instructions
  nice -n 10 valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/bench" --payloads Benchmarks/HMIPayloads \
    --only "$2" --candidate "$1" --iterations "$3" >/dev/null 2>"$work/err"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/err"
}

candidates=("decode:SDLJSONRPC" "decode:SDLJSONRPC read only" "decode:SDLJSON params only" "decode:JSONDecoder" "decode:JSONDecoder params only")
header="| Payload |"
rule="| :--- |"
for candidate in "${candidates[@]}"; do header+=" ${candidate#decode:} |"; rule+=" ---: |"; done
echo "$header"
echo "$rule"
for payload in UI.GetCapabilitiesResponse VehicleInfo.GetVehicleDataResponse UI.Show UI.Alert BasicCommunication.OnAppRegistered Buttons.OnButtonPress; do
  row="| $payload |"
  for candidate in "${candidates[@]}"; do
    a=$(count "$candidate" "$payload" "$n1")
    b=$(count "$candidate" "$payload" "$n2")
    row+=" $(( (b - a) / (n2 - n1) )) |"
  done
  echo "$row"
done
