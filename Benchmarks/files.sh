#!/usr/bin/env bash
# File manager benchmark (issue 12): a 10 MB upload to the emulator over TCP loopback beside a
# plain loopback socket pair writing the same bytes, in one run.
# Usage: Benchmarks/files.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product FileBenchmarks >&2
Benchmarks/.build/release/FileBenchmarks
