#!/usr/bin/env bash
# JSON and BSON codec benchmarks (issue 3): SDLJSON beside Foundation's JSONDecoder/JSONEncoder
# (over Codable mirrors of the same types) and JSONSerialization, and the BSON codec beside
# pymongo's C-accelerated `bson`, on the corpus in Benchmarks/Payloads, in one run.
#
# Usage: Benchmarks/codecs.sh [--samples N] [--sample-ms N]   (needs python3 with pymongo)
#        Benchmarks/codecs.sh --regenerate   (rewrites Payloads/)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
scratch=Benchmarks/.build

if [[ "${1:-}" == "--regenerate" ]]; then
  # The Codable mirrors are generated while CodableMirrors builds (its sdlgen.json).
  swift build -c release --package-path Benchmarks --scratch-path "$scratch" --product MakePayloads
  "$scratch/release/MakePayloads" Benchmarks/Payloads
  exit 0
fi

python3 -c 'import bson, sys; sys.exit(0 if bson.has_c() else 1)' 2>/dev/null \
  || python3 -m pip install --quiet pymongo
python3 -c 'import bson, sys; sys.exit(0 if bson.has_c() else "pymongo: the bson C extension is not available")'

swift build -c release --package-path Benchmarks --scratch-path "$scratch" --product CodecBenchmarks >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "Machine: $(nproc) cores, $(uname -srm), $(swift --version 2>/dev/null | head -1)"
echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$scratch/release/CodecBenchmarks" --payloads Benchmarks/Payloads --bson-out "$out" "$@"
echo
python3 Benchmarks/bson_pymongo.py "$out"
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
