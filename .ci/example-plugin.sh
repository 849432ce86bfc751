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

echo "-- the HMI target: the plugin found its HMI_API.xml and declared the HMI file set"
hmi_spec="$PWD/$example/Sources/HelloHMI/HMI_API.xml"
hmi_backup=$(mktemp)
cp -p "$hmi_spec" "$hmi_backup"
trap 'cp "$backup" "$spec"; cp "$hmi_backup" "$hmi_spec"; rm -f "$log" "$backup" "$hmi_backup"' EXIT
touch "$hmi_spec"
build
grep -q "Generating Swift from HMI_API.xml for HelloHMI" "$log" || fail "touching HelloHMI's HMI_API.xml did not rerun sdlgen"
grep -q "0 files written, 6 unchanged" "$log" || fail "sdlgen rewrote identical HMI files"
line=$(grep -n '<param name="appID" type="Integer" mandatory="true"/>' "$hmi_spec" | head -1 | cut -d: -f1)
sed -i.orig '0,/<param name="appID" type="Integer" mandatory="true"\/>/s//<param name="appID" type="Common.AppID" mandatory="true"\/>/' "$hmi_spec" && rm -f "$hmi_spec.orig"
if build; then fail "a broken HMI spec built"; fi
grep -q "^$hmi_spec:$line: error: param 'UI.Show (request).appID' has type 'Common.AppID', which is not defined" "$log" \
  || fail "the build log does not show $hmi_spec:$line: error: for the HMI spec"
cp "$hmi_backup" "$hmi_spec"

echo "-- the command plugin writes an HMI target's files into the package"
out="$example/.build/generate-sdl-hmi"
rm -rf "$out"
swift package --package-path "$example" --allow-writing-to-package-directory generate-sdl --target HelloHMI --output .build/generate-sdl-hmi 2>&1 | tee "$log"
for file in Enums.swift Structs.swift Requests.swift Responses.swift Notifications.swift HMIAPI.swift; do
  [ -f "$out/$file" ] || fail "generate-sdl did not write $out/$file"
done
grep -q "public struct Show: SDLRuntime.SDLHMIRequest" "$out/Requests.swift" || fail "generate-sdl's UI.Show is not an HMI request"

echo "-- swift test --package-path $example"
swift test --package-path "$example"
