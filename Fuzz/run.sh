#!/usr/bin/env bash
# Builds the libFuzzer targets (release, AddressSanitizer) and runs each for SECONDS (default
# 60) from its seed inputs in Corpus/<target>/, one after the other; prints each target's
# executions and crashes. Exits 1 if any target crashed. Needs Swift for Linux, which ships
# libFuzzer. Inputs found along the way and crash artifacts go to .build/fuzz/<target>/.
#   Fuzz/run.sh 120
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
targets=(FuzzJSONDecoder FuzzBSONDecoder FuzzFrameDecoder FuzzSecurityQuery FuzzWebSocket)
flags=(-c release --scratch-path .build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)

swift build "${flags[@]}"
bin=$(swift build "${flags[@]}" --show-bin-path)

crashed=0
summary=()
for target in "${targets[@]}"; do
  work=.build/fuzz/$target
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  printf '\n==> %s for %s s\n' "$target" "$seconds"
  # The first directory receives new inputs; the seeds stay as they are.
  status=0
  "$bin/$target" "$work/corpus" "Corpus/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" >"$work/log" 2>&1 || status=$?
  tail -n 8 "$work/log"
  executions=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$work/log")
  crashes=$(find "$work/artifacts" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    crashed=1
    find "$work/artifacts" -type f -exec echo "artifact: {}" \;
  fi
  summary+=("$(printf '%s: %s executions in %s s, %s crashes (exit %s)' \
    "$target" "${executions:-?}" "$seconds" "$crashes" "$status")")
done

printf '\n==> Summary (%s)\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
printf '%s\n' "${summary[@]}"
exit "$crashed"
