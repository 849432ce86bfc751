#!/usr/bin/env bash
# HMI API JSON-RPC codec benchmark (issue 45): SDLJSONRPC beside Foundation's JSONDecoder/JSONEncoder
# (over Codable mirrors of the same HMI types in a Codable JSON-RPC envelope) on the corpus in
# Benchmarks/HMIPayloads, in one run; the params objects alone (SDLJSON, JSONDecoder/JSONEncoder
# without the envelope) in the same run, to show what the envelope costs.
#
# Usage: Benchmarks/hmi-codecs.sh [--samples N] [--sample-ms N] [--only PAYLOAD] [--candidate GROUP[:NAME]]
#        Benchmarks/hmi-codecs.sh --regenerate   (rewrites HMIPayloads/)
# The build is niced; the run is not.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
scratch=Benchmarks/.build
build() {
  nice -n 10 swift build -c release --package-path Benchmarks --scratch-path "$scratch" --product "$1" >&2
}

if [[ "${1:-}" == "--regenerate" ]]; then
  # The Codable mirrors are generated while HMICodableMirrors builds (its sdlgen.json).
  build MakeHMIPayloads
  "$scratch/release/MakeHMIPayloads" Benchmarks/HMIPayloads
  exit 0
fi

build HMICodecBenchmarks

echo "Machine: $(nproc) cores, $(uname -srm), $(swift --version 2>/dev/null | head -1)"
echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$scratch/release/HMICodecBenchmarks" --payloads Benchmarks/HMIPayloads "$@"
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
