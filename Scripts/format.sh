#!/usr/bin/env bash
# Formats the hand-written Swift with the toolchain's swift-format and `.swift-format`;
# `--check` changes nothing and fails on any difference (CI). Generated code (Generated/,
# GeneratedHMI/, the embedded templates, the benchmarks' Codable mirrors, the generator's expected
# outputs) is the templates' to shape, and is left out; so are the DocC examples files, whose
# lines are the articles' code blocks as written (DocumentationTests compares them line by line).
set -euo pipefail
cd "$(dirname "$0")/.."
files() {
  find Sources Tests Plugins Examples Benchmarks/Sources Package.swift Benchmarks/Package.swift \
    -name '*.swift' -not -path '*/.build/*' -not -path '*/Fixtures/*' -not -path '*CodableMirrors/*' \
    -not -name EmbeddedTemplates.swift -not -name DocumentationExamples.swift | sort
}
if [ "${1:-}" = "--check" ]; then
  files | xargs swift format lint --strict --parallel
else
  files | xargs swift format format --in-place --parallel
fi
