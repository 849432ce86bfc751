#!/usr/bin/env bash
# Manager benchmarks (issue 11): start() to Ready against the emulator over TCP loopback, and the
# per-request overhead of SDLManager.send over SDLRPCClient.send, in one run.
# Usage: Benchmarks/manager.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product ManagerBenchmarks >&2
Benchmarks/.build/release/ManagerBenchmarks
