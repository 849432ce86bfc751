#!/usr/bin/env bash
# Protocol benchmarks (issue 4): frame encode + decode + reassembly from 1 KB to 10 MB, and the
# round-trip latency of Show against the head-unit emulator over TCP loopback.
# Usage: Benchmarks/protocol.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product ProtocolBenchmarks >&2
Benchmarks/.build/release/ProtocolBenchmarks
