#!/usr/bin/env bash
# Builds the libFuzzer targets (release, AddressSanitizer) and runs each from its inputs in
# Corpus/<target>/, one after the other; prints each target's executions and crashes. Exits 1
# if any target crashed. Needs Swift for Linux, which ships libFuzzer. Inputs found along the
# way and crash artifacts go to .build/fuzz/<target>/.
#   Fuzz/run.sh 120                         each target for 120 s
#   Fuzz/run.sh --runs 10000000 --keep      each target for 10 M executions, then the inputs
#                                           that found new coverage merged into Corpus/<target>/
#   Fuzz/run.sh 60 FuzzJSONDecoder ...      only these targets
set -euo pipefail
cd "$(dirname "$0")"
limit=(-max_total_time=60)
what="60 s"
keep=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) limit=(-runs="$2"); what="$2 executions"; shift 2 ;;
    --keep) keep=1; shift ;;
    [0-9]*) limit=(-max_total_time="$1"); what="$1 s"; shift ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(FuzzJSONDecoder FuzzBSONDecoder FuzzFrameDecoder FuzzSecurityQuery FuzzWebSocket)
flags=(-c release --scratch-path .build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
# No allocation stacks kept for reports: a third faster. Replay a finding with the default
# options to see where its memory came from.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}

swift build "${flags[@]}"
bin=$(swift build "${flags[@]}" --show-bin-path)

crashed=0
summary=()
for target in "${targets[@]}"; do
  work=.build/fuzz/$target
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  printf '\n==> %s for %s\n' "$target" "$what"
  # The first directory receives new inputs; the kept corpus stays as it is until --keep merges.
  status=0
  started=$(date +%s)
  "$bin/$target" "$work/corpus" "Corpus/$target" \
    "${limit[@]}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" >"$work/log" 2>&1 || status=$?
  took=$(( $(date +%s) - started ))
  tail -n 8 "$work/log"
  executions=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$work/log")
  crashes=$(find "$work/artifacts" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    crashed=1
    find "$work/artifacts" -type f -exec echo "artifact: {}" \;
  fi
  kept=""
  if [ "$keep" -eq 1 ] && [ "$status" -eq 0 ] && [ "$crashes" -eq 0 ]; then
    # Only the inputs that add coverage to what Corpus/<target>/ already covers join it.
    before=$(find "Corpus/$target" -type f | wc -l)
    "$bin/$target" -merge=1 "Corpus/$target" "$work/corpus" >"$work/merge.log" 2>&1
    kept=", $(( $(find "Corpus/$target" -type f | wc -l) - before )) inputs kept in Corpus/$target"
  fi
  summary+=("$(printf '%s: %s executions in %s s, %s crashes (exit %s)%s' \
    "$target" "${executions:-?}" "$took" "$crashes" "$status" "$kept")")
done

printf '\n==> Summary (%s)\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
printf '%s\n' "${summary[@]}"
exit "$crashed"
