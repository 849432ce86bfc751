#!/usr/bin/env bash
# Issue 28: protected against plain Show round trips and video throughput over TCP loopback to the
# emulator with its security manager (TLS 1.2 on swift-nio-ssl), in one run.
# Usage: Benchmarks/security.sh [--micro: the TLS engine alone, four record operations per round trip]
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product SecurityBenchmarks >&2
Benchmarks/.build/release/SecurityBenchmarks "$@"
