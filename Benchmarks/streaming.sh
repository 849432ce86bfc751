#!/usr/bin/env bash
# Video streaming benchmark (issue 25): 1080p-sized access units through manager.videoStreaming
# to the emulator over TCP loopback (RAW and RTP) beside a raw loopback socket pair, and the
# latency per frame from send(_:) to the emulator's receipt.
# Usage: Benchmarks/streaming.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/spec-env.sh
swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product StreamingBenchmarks >&2
Benchmarks/.build/release/StreamingBenchmarks
