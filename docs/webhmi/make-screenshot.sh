#!/usr/bin/env bash
# Regenerates the screenshot of the emulator's web page after the example app's screen tour
# (docs/webhmi/screen-tour.png, shown in the README, and its copy in the SDLHeadUnit DocC
# catalog), taken by headless Chromium through selenium: run it after changing the page.
# Needs Debian's chromium, chromium-driver and python3-selenium.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product sdl
swift build --product sdl-example
/usr/bin/python3 Tests/Browser/webhmi.py screenshot .build/debug docs/webhmi/screen-tour.png
cp docs/webhmi/screen-tour.png Sources/SDLHeadUnit/SDLHeadUnit.docc/Resources/web-hmi-screen-tour.png
