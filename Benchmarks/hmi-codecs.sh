#!/usr/bin/env bash
# HMI API JSON-RPC codec benchmark (issue 45): SDLJSONRPC beside Foundation's JSONDecoder/JSONEncoder
# (over Codable mirrors of the same HMI types in a Codable JSON-RPC envelope) on the corpus in
# Benchmarks/HMIPayloads, in one run; the params objects alone (SDLJSON, JSONDecoder/JSONEncoder
# without the envelope) in the same run, to show what the envelope costs.
#
# Usage: Benchmarks/hmi-codecs.sh [--samples N] [--sample-ms N] [--only PAYLOAD] [--candidate GROUP[:NAME]]
#        Benchmarks/hmi-codecs.sh --regenerate   (rewrites Sources/HMICodableMirrors and HMIPayloads/)
# The build is niced; the run is not.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=Benchmarks/.build
build() {
  nice -n 10 swift build -c release --package-path Benchmarks --scratch-path "$scratch" --product "$1" >&2
}

if [[ "${1:-}" == "--regenerate" ]]; then
  # SDL Core 8.2.0's HMI_API.xml where the tests look for it (SharedData.hmiSpecDirectory).
  spec_dir=${SDL_HMI_SPEC_DIR:-../shared/sdl_core_8.2.0}
  [[ -f "$spec_dir/HMI_API.xml" ]] || spec_dir=.sdl-data/sdl_core_8.2.0
  # An sdlgen already built (SDLGEN, else the root package's debug build), else swift run.
  sdlgen=(${SDLGEN:-.build/debug/sdlgen})
  [[ -x "${sdlgen[0]}" ]] || sdlgen=(swift run sdlgen)
  # Codable mirrors of the benchmarked messages and everything they use, through the generator's
  # template override (Benchmarks/CodableTemplates: HMIAPI.mustache declares the namespaces).
  "${sdlgen[@]}" generate --spec "$spec_dir/HMI_API.xml" --output Benchmarks/Sources/HMICodableMirrors \
    --templates Benchmarks/CodableTemplates \
    --only '(UI\.Show|UI\.Alert|UI\.GetCapabilities|BasicCommunication\.OnAppRegistered|VehicleInfo\.GetVehicleData|Buttons\.OnButtonPress)'
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
