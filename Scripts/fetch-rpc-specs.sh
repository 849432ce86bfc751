#!/usr/bin/env bash
# Downloads the nine public RPC specs the tests read (MOBILE_API.xml, and MOBILE_API.xsd from 7.0.0
# on) from https://github.com/smartdevicelink/rpc_spec, one tag per version, and checks each file
# against the SHA-256 recorded in spec/rpc_spec.sha256. Nothing is kept unless every file matches.
#
# Usage: Scripts/fetch-rpc-specs.sh [--from BASE] [DIR]
#   DIR    where to put <version>/MOBILE_API.xml (default .sdl-data/rpc_spec, where the tests look)
#   BASE   base URL of the files, <BASE>/<version>/<file> (default the rpc_spec repository's raw
#          files; a file:// URL of a local copy works too)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="https://raw.githubusercontent.com/smartdevicelink/rpc_spec"
if [ "${1:-}" = "--from" ]; then
  base="$2"
  shift 2
fi
dir="${1:-$root/.sdl-data/rpc_spec}"
sums="$root/spec/rpc_spec.sha256"
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT

grep -v '^#' "$sums" | while read -r expected file; do
  mkdir -p "$staging/$(dirname "$file")"
  curl -fsSL --retry 3 "$base/$file" -o "$staging/$file" || { echo "fetch-rpc-specs: could not download $base/$file" >&2; exit 1; }
  actual="$( (command -v sha256sum >/dev/null && sha256sum "$staging/$file" || shasum -a 256 "$staging/$file") | cut -d' ' -f1)"
  if [ "$actual" != "$expected" ]; then
    echo "fetch-rpc-specs: $file has SHA-256 $actual, expected $expected (spec/rpc_spec.sha256); nothing kept" >&2
    exit 1
  fi
  echo "fetch-rpc-specs: $file ok"
done

mkdir -p "$dir"
cp -R "$staging"/. "$dir"/
echo "fetch-rpc-specs: $(grep -vc '^#' "$sums") files in $dir; the RPC spec is BSD-licensed by the SmartDeviceLink Consortium"
