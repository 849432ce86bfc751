#!/usr/bin/env bash
# Each example depends on swift-sdl as an app would, naming the traits it wants, and builds only
# its audience's modules: CI lists what each example's build compiled and resolved and fails if a
# module or package of another audience appears. Examples/HelloManager (the manager, traits: [])
# builds and runs its test against the in-process emulator; Examples/HelloSDL (the generator
# plugin, traits: ["Generator"]) is built and tested by .ci/example-plugin.sh before this runs.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "examples-audience: $*" >&2; exit 1; }

# Tool-only modules and packages, and the generator's.
tools_modules='^(Hummingbird.*|AsyncHTTPClient|PropertyBased|SwiftDocC.*|Snippet.*|SDLHeadUnitControl|SDLHMIServer|SDLStandInHMI|SDLCloudServer|SDLAsyncHTTPClient|sdl|sdl_example)$'
generator_modules='^(Mustache|ArgumentParser.*|SDLCodegen|SDLSpec|SDLSpecDiff|sdlgen|CLibXML2)$'
tools_packages='^(hummingbird|hummingbird-websocket|async-http-client|swift-property-based|swift-docc-plugin|swift-docc-symbolkit)$'
generator_packages='^(swift-mustache|swift-argument-parser)$'
# TLS (encryption, ws and wss): neither example asks for it.
tls_modules='^(NIOSSL|X509|Crypto|_CryptoExtras|SwiftASN1|SDLTLS|SDLWebSocket)$'
tls_packages='^(swift-nio-ssl|swift-certificates|swift-crypto|swift-asn1)$'

# The modules a build compiled (their .swiftmodule files, host tools for plugins included) and the
# packages it resolved.
modules() { find "$1/.build" -name '*.swiftmodule' -path '*/Modules*/*' 2>/dev/null | xargs -n1 basename | sed 's/\.swiftmodule$//' | sort -u; }
packages() { swift package --package-path "$1" show-dependencies --format flatlist 2>/dev/null | sort -u; }

check() {
  local example=$1 forbidden_modules=$2 forbidden_packages=$3
  local compiled resolved
  compiled=$(modules "$example")
  resolved=$(packages "$example")
  echo "-- $example compiled: $(echo "$compiled" | tr '\n' ' ')"
  echo "-- $example resolved: $(echo "$resolved" | tr '\n' ' ')"
  [ -n "$compiled" ] || fail "$example: no modules found (was it built?)"
  if echo "$compiled" | grep -E "$forbidden_modules"; then fail "$example compiled the modules above, which it does not use"; fi
  if echo "$resolved" | grep -E "$forbidden_packages"; then fail "$example resolved the packages above, which it does not use"; fi
}

echo "-- swift test --package-path Examples/HelloManager"
swift test --package-path Examples/HelloManager
check Examples/HelloManager "$tools_modules|$generator_modules|$tls_modules" "$tools_packages|$generator_packages|$tls_packages"
check Examples/HelloSDL "$tools_modules|$tls_modules" "$tools_packages|$tls_packages"
# README's second command for the example: hello-manager against `sdl headunit` (the root
# package's debug build), the driver pressing Bye through the control API.
echo "-- hello-manager against sdl headunit; the driver presses Bye"
sdl=.build/debug/sdl
[ -x "$sdl" ] || swift build --product sdl
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
control=$((port + 1))
"$sdl" headunit --port "$port" --control-port "$control" >"$work/headunit.log" 2>&1 &
headunit=$!
trap 'kill "$headunit" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  grep -q "listening" "$work/headunit.log" && break
  sleep 0.1
done
timeout 120 Examples/HelloManager/.build/debug/hello-manager 127.0.0.1 "$port" >"$work/app.log" 2>&1 &
app=$!
id=""
for _ in $(seq 1 300); do
  id=$(curl -fsS "http://127.0.0.1:$control/apps/hello-manager/screen" 2>/dev/null | python3 -c '
import json, sys
try:
    screen = json.load(sys.stdin)
except ValueError:
    sys.exit()
if screen.get("mainField1") == "Hello, driver":
    print(next((b["softButtonID"] for b in screen.get("softButtons", []) if b.get("text") == "Bye"), ""))' || true)
  [ -n "$id" ] && break
  sleep 0.2
done
[ -n "$id" ] || fail "hello-manager never showed its greeting with a Bye button: $(cat "$work/app.log")"
curl -fsS -X POST "http://127.0.0.1:$control/apps/hello-manager/softbuttons/$id/press" >/dev/null
wait "$app" || fail "hello-manager did not end well: $(cat "$work/app.log")"
grep -q "the driver pressed Bye" "$work/app.log" || fail "hello-manager printed: $(cat "$work/app.log")"
echo "examples-audience: OK"
