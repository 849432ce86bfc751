#!/usr/bin/env bash
# Examples/HelloSDL, the package that uses the SDLGeneratorPlugin build plugin: it builds and its
# tests pass; a second build runs nothing; a touched spec reruns sdlgen but, as the output bytes
# are the same, recompiles nothing; a spec error fails the build with `PATH:LINE: error:` naming
# the spec's absolute path. Uses the example's own .build.
set -euo pipefail
cd "$(dirname "$0")/.."
example=Examples/HelloSDL
spec="$PWD/$example/Sources/HelloSDL/MOBILE_API.xml"
generating="Generating Swift from MOBILE_API.xml for HelloSDL"
log=$(mktemp)
backup=$(mktemp)
cp -p "$spec" "$backup"
trap 'cp "$backup" "$spec"; rm -f "$log" "$backup"' EXIT

build() { swift build --package-path "$example" 2>&1 | tee "$log"; }
fail() { echo "example-plugin: $*" >&2; exit 1; }

echo "-- swift build --package-path $example"
build

# In a fresh checkout SwiftPM links the plugin's host tool (sdlgen) once more on the second
# build, and a new sdlgen binary is an input of the plugin's command, so it may run once more;
# it must then write nothing and recompile nothing.
echo "-- second build: if sdlgen runs again it writes nothing"
build
if grep -q "$generating" "$log"; then
  grep -q "0 files written, 6 unchanged" "$log" || fail "the second build rewrote generated files"
fi
! grep -q "Compiling HelloSDL" "$log" || fail "the second build recompiled HelloSDL"

echo "-- nothing changed: the plugin's command must not run again"
build
! grep -q "$generating" "$log" || fail "a build with nothing changed ran sdlgen again"
! grep -q "Compiling HelloSDL" "$log" || fail "a build with nothing changed recompiled HelloSDL"

echo "-- spec touched: sdlgen runs, writes nothing, and nothing is recompiled"
touch "$spec"
build
grep -q "$generating" "$log" || fail "touching the spec did not rerun sdlgen"
grep -q "0 files written, 6 unchanged" "$log" || fail "sdlgen rewrote identical files"
! grep -q "Compiling HelloSDL" "$log" || fail "identical output recompiled HelloSDL"

echo "-- spec error: the build fails with PATH:LINE: error:"
line=$(grep -n '<param name="mood" type="Mood" />' "$spec" | head -1 | cut -d: -f1)
sed -i.orig 's|<param name="mood" type="Mood" />|<param name="mood" type="Moood" />|' "$spec" && rm -f "$spec.orig"
if build; then fail "a broken spec built"; fi
grep -q "^$spec:$line: error: param 'Greeting.mood' has type 'Moood', which is not defined" "$log" \
  || fail "the build log does not show $spec:$line: error:"
cp "$backup" "$spec"

echo "-- swift test --package-path $example"
swift test --package-path "$example"
