#!/usr/bin/env bash
# The public API of every library product, compared with the previous release (the newest
# vX.Y.Z / X.Y.Z tag) or, before the first one, with the parent commit, by SwiftPM's API digester
# (`swift package diagnose-api-breaking-changes`). A breaking change fails CI unless its exact
# message is in .ci/api-breaks-allowed.txt, with the commit that meant it: a break must be a
# decision, written down, not an accident.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=$(git tag --list --sort=-v:refname | grep -E '^v?[0-9]+\.[0-9]+\.[0-9]+$' | head -1 || true)
if [ -z "$baseline" ]; then
  if ! git rev-parse -q --verify HEAD~1 >/dev/null; then
    echo "api-breakage: no release tag and no parent commit (a shallow clone?): nothing to compare with"
    exit 0
  fi
  baseline=HEAD~1
fi
echo "api-breakage: comparing with $baseline ($(git rev-parse --short "$baseline"))"
allowed=.ci/api-breaks-allowed.txt
swift package diagnose-api-breaking-changes "$baseline" --breakage-allowlist-path "$allowed"
