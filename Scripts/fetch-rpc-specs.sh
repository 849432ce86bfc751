#!/usr/bin/env bash
# Downloads the nine public RPC specs the tests read (MOBILE_API.xml, and MOBILE_API.xsd from 7.0.0
# on) from https://github.com/smartdevicelink/rpc_spec, one tag per version, and SDL Core 8.2.0's
# HMI_API.xml and HMI_API.xsd from https://github.com/smartdevicelink/sdl_core, and checks each
# file against the SHA-256 recorded in spec/rpc_spec.sha256 and spec/sdl_core_hmi.sha256. Nothing
# is kept unless every file matches.
#
# Usage: Scripts/fetch-rpc-specs.sh [--from BASE] [--hmi-from HMI_BASE] [DIR]
#   DIR       where to put <version>/MOBILE_API.xml (default .sdl-data/rpc_spec, where the tests
#             look); the HMI files go to sdl_core_8.2.0 beside it
#   BASE      base URL of the files, <BASE>/<version>/<file> (default the rpc_spec repository's
#             raw files; a file:// URL of a local copy works too)
#   HMI_BASE  base URL of <HMI_BASE>/HMI_API.xml (default sdl_core's src/components/interfaces at 8.2.0)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="https://raw.githubusercontent.com/smartdevicelink/rpc_spec"
hmi_base="https://raw.githubusercontent.com/smartdevicelink/sdl_core/8.2.0/src/components/interfaces"
while [ $# -gt 0 ]; do
  case "$1" in
    --from) base="$2"; shift 2 ;;
    --hmi-from) hmi_base="$2"; shift 2 ;;
    *) break ;;
  esac
done
dir="${1:-$root/.sdl-data/rpc_spec}"
hmi_dir="$(dirname "$dir")/sdl_core_8.2.0"
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT

# fetch SUMS BASE DESTINATION: every file SUMS lists, from BASE, checked, into DESTINATION.
fetch() {
  local sums="$1" from="$2" into="$3"
  grep -v '^#' "$sums" | while read -r expected file; do
    mkdir -p "$into/$(dirname "$file")"
    curl -fsSL --retry 3 "$from/$file" -o "$into/$file" || { echo "fetch-rpc-specs: could not download $from/$file" >&2; exit 1; }
    actual="$( (command -v sha256sum >/dev/null && sha256sum "$into/$file" || shasum -a 256 "$into/$file") | cut -d' ' -f1)"
    if [ "$actual" != "$expected" ]; then
      echo "fetch-rpc-specs: $file has SHA-256 $actual, expected $expected ($(basename "$sums")); nothing kept" >&2
      exit 1
    fi
    echo "fetch-rpc-specs: $file ok"
  done
}
fetch "$root/spec/rpc_spec.sha256" "$base" "$staging/rpc_spec"
fetch "$root/spec/sdl_core_hmi.sha256" "$hmi_base" "$staging/hmi"

mkdir -p "$dir" "$hmi_dir"
cp -R "$staging/rpc_spec"/. "$dir"/
cp -R "$staging/hmi"/. "$hmi_dir"/
echo "fetch-rpc-specs: $(grep -vc '^#' "$root/spec/rpc_spec.sha256") files in $dir, $(grep -vc '^#' "$root/spec/sdl_core_hmi.sha256") in $hmi_dir; both BSD-licensed (SmartDeviceLink Consortium, Ford Motor Company)"
