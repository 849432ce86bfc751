#!/usr/bin/env bash
# Proves that folders of generated Swift sources compile against SDLRuntime with zero warnings.
#
#   .ci/compile-generated.sh DIR...
#
# Makes a throwaway SwiftPM package (mktemp -d) that depends on this repository by path, with
# one library target per DIR holding copies of that DIR's .swift files, and builds it with
# warnings as errors. Exits non-zero on any error or warning.
#
# SDL_COMPILE_SCRATCH: build folder to use (and keep) instead of one inside the temporary package.
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 DIR..." >&2
    exit 2
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
# SwiftPM names a path dependency after the folder's last component.
repo_identity=$(basename "$repo")
work=$(mktemp -d "${TMPDIR:-/tmp}/compile-generated.XXXXXX")
trap 'rm -rf "$work"' EXIT
scratch=${SDL_COMPILE_SCRATCH:-$work/.build}

targets=""
index=0
for dir in "$@"; do
    if [ ! -d "$dir" ]; then
        echo "error: '$dir' is not a folder" >&2
        exit 2
    fi
    shopt -s nullglob
    files=("$dir"/*.swift)
    shopt -u nullglob
    if [ "${#files[@]}" -eq 0 ]; then
        echo "error: '$dir' holds no .swift files" >&2
        exit 2
    fi
    index=$((index + 1))
    # A valid module name that still says where the sources came from.
    absolute=$(cd "$dir" && pwd)
    name="Generated${index}_$(basename "$(dirname "$absolute")")_$(basename "$absolute")"
    name=$(printf '%s' "$name" | tr -c 'A-Za-z0-9_' '_')
    mkdir -p "$work/Sources/$name"
    cp "${files[@]}" "$work/Sources/$name/"
    targets+="        .target(name: \"$name\", dependencies: [.product(name: \"SDLRuntime\", package: \"$repo_identity\")]),
"
    echo "$name <- $dir (${#files[@]} files)"
done

cat > "$work/Package.swift" <<MANIFEST
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "CompileGenerated",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "$repo")],
    targets: [
$targets    ],
    swiftLanguageModes: [.v6]
)
MANIFEST

log="$work/build.log"
status=0
# TMPDIR inside the package keeps SwiftPM's lock files out of the system temporary folder.
mkdir -p "$work/tmp"
TMPDIR="$work/tmp" swift build --package-path "$work" --scratch-path "$scratch" -Xswiftc -warnings-as-errors 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "compile-generated: build failed (exit $status)" >&2
    exit "$status"
fi
# Belt and braces: a warning the flag does not turn into an error still fails the check.
if grep -E '(^|: )warning: ' "$log" >/dev/null; then
    echo "compile-generated: the build printed warnings" >&2
    exit 1
fi
echo "compile-generated: $index target(s) compiled without warnings"
