#!/usr/bin/env bash
# Full 8.0.0 generation (parse, validate, render, write) with the release and debug sdlgen,
# side by side with `xmllint --noout` on the same file (the libxml2 parsing floor), in one run.
# Usage: Benchmarks/generate.sh [SPEC]   (needs hyperfine and xmllint: apt-get install hyperfine libxml2-utils)
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-${SDL_RPC_SPEC_DIR:-../shared/rpc_spec}/8.0.0/MOBILE_API.xml}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

swift build -c release --product sdlgen >/dev/null
swift build --product sdlgen >/dev/null
release=.build/release/sdlgen
debug=.build/debug/sdlgen
# Let the build's trailing work finish before timing.
sleep 10

# Each timed run writes into an empty folder, so every file is really written.
hyperfine --warmup 3 --runs 30 -N --export-markdown "$out/table.md" \
  --prepare "rm -rf $out/gen" \
  -n "sdlgen generate (release)" "$release generate --spec $spec --output $out/gen --quiet" \
  -n "sdlgen generate (debug)" "$debug generate --spec $spec --output $out/gen --quiet" \
  -n "xmllint --noout" "xmllint --noout $spec"
cat "$out/table.md"

echo
echo "Peak memory (max RSS), release, 5 runs:"
for _ in 1 2 3 4 5; do
  rm -rf "$out/gen"
  /usr/bin/time -f "%M KB" "$release" generate --spec "$spec" --output "$out/gen" --quiet
done 2>&1
