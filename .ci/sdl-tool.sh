#!/usr/bin/env bash
# The `sdl` tool end to end: `sdl headunit` on a free port, then `send`, `connect`, `validate`
# and `decode` against it, checking output and exit codes. Needs a debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
sdl=.build/debug/sdl
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))

$sdl headunit --port "$port" --log >"$work/headunit.log" 2>&1 &
headunit=$!
trap 'kill "$headunit" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  grep -q "listening" "$work/headunit.log" && break
  sleep 0.1
done

fail() { echo "sdl-tool: $*" >&2; exit 1; }

# send: registers, sends, prints the response, exits 0 on SUCCESS.
out=$($sdl send Show --json '{"mainField1":"CI"}' --port "$port")
echo "$out" | grep -q '"response":"Show"' || fail "send printed: $out"
echo "$out" | grep -q '"resultCode":"SUCCESS"' || fail "send printed: $out"

# send refuses a request that breaks the spec, before connecting.
if $sdl send Show --json '{"mainField1":5}' --port "$port" 2>/dev/null; then fail "send accepted an invalid request"; fi

# connect: the RegisterAppInterface response, then notifications, as JSON lines.
timeout 3 $sdl connect --port "$port" >"$work/connect.out" || true
head -n 1 "$work/connect.out" | grep -q '"response":"RegisterAppInterface"' || fail "connect's first line: $(head -n 1 "$work/connect.out")"
grep -q '"notification":"OnHMIStatus"' "$work/connect.out" || fail "connect printed no OnHMIStatus"
grep -q '"notification":"OnPermissionsChange"' "$work/connect.out" || fail "connect printed no OnPermissionsChange"

# The emulator logged the traffic as JSON lines.
grep -q '"control":"StartServiceACK"' "$work/headunit.log" || fail "the emulator's log has no StartServiceACK"

# validate: exit 0 when all lines are valid, 1 otherwise.
echo '{"function":"Show","messageType":"request","params":{"mainField1":"x"}}' | $sdl validate >/dev/null \
  || fail "validate rejected a valid message"
if echo '{"function":"Show","messageType":"request","params":{"mainField1":5}}' | $sdl validate >/dev/null; then
  fail "validate accepted an invalid message"
fi

# decode: a capture's first frame is the StartService.
capture=${SDL_CAPTURES_DIR:-../shared/captures}/sdl-core-8.2.0-session/app-to-hu.bin
$sdl decode "$capture" >"$work/decode.out"
head -n 1 "$work/decode.out" | grep -q '"control":"StartService"' || fail "decode did not start with StartService"

# The control API: a second emulator that leaves apps in NONE; curl plays the driver. Its lock
# screen logo is served here (SDL Core names one on GitHub, out of reach in CI).
icons=$((port + 8))
python3 -m http.server "$icons" --bind 127.0.0.1 --directory docs/webhmi >/dev/null 2>&1 &
icon_server=$!
control=$((port + 1))
$sdl headunit --port "$((port + 2))" --control-port "$control" --manual-activation --grant HapticGroup \
  --lock-screen-icon-url "http://127.0.0.1:$icons/screen-tour.png" --record-streams "$work/streams" >"$work/control.log" 2>&1 &
controlled=$!
trap 'kill "$headunit" "$controlled" "$icon_server" ${secure_headunit:-} ${dynamic_headunit:-} ${served_pid:-} ${core_vehicle:-} ${core_headunit:-} ${stand_in_headunit:-} 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  grep -q "control API on" "$work/control.log" && curl -fs -o /dev/null "http://127.0.0.1:$icons/screen-tour.png" && break
  sleep 0.1
done
curl -fs -o /dev/null "http://127.0.0.1:$icons/screen-tour.png" || fail "the lock screen logo server on port $icons did not start"
timeout 5 $sdl connect --port "$((port + 2))" --app-id 777 >"$work/controlled.out" &
connector=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$control/apps" | grep -q '"appID":"777"' && break
  sleep 0.1
done
curl -fs "http://127.0.0.1:$control/apps" | grep -q '"hmiLevel":"NONE"' || fail "the app did not wait in NONE"
curl -fs -X POST "http://127.0.0.1:$control/apps/777/activate" | grep -q '"ok":true' || fail "activate failed"
curl -fs "http://127.0.0.1:$control/apps/777/screen" | grep -q '"hmiLevel":"FULL"' || fail "the screen does not show FULL"
status=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$control/apps/nope/activate")
[ "$status" = 404 ] || fail "an unknown app answered $status"
wait "$connector" 2>/dev/null || true
grep -q '"hmiLevel":"FULL"' "$work/controlled.out" || fail "the app never heard OnHMIStatus FULL"

# The example app's tours against the emulator, playing the driver through the control API.
.build/debug/sdl-example --port "$((port + 2))" --control-url "http://127.0.0.1:$control" --app-id 4242 --tour all \
  --wav-path "$work/recording.wav" >"$work/example.out" \
  || { cat "$work/example.out"; fail "sdl-example --tour all failed"; }
grep -q "Tour lifecycle: OK" "$work/example.out" || fail "the example did not finish its lifecycle tour"
grep -q "lock screen once the car moves: required, shown" "$work/example.out" || fail "the lifecycle tour did not show the lock screen required once the car moved"
logo=$(stat -c %s docs/webhmi/screen-tour.png)
grep -q "lock screen logo: $logo bytes" "$work/example.out" || fail "the lifecycle tour did not get the head unit's $logo-byte lock screen logo"
grep -q "permission observer across a reconnection: Show allowed in FULL, not allowed" "$work/example.out" || fail "the lifecycle tour did not show the permission observer across a reconnection"
for line in "manifest updated: the consumer heard MANIFEST_UPDATE" "consumer fetched the provider's sunny.png" "cloud app entry set and read back" \
  "aborted by the driver (not the app)" "seek ±30/10 s at 1.5x" "the driver searched for Bos"; do
  grep -q "$line" "$work/example.out" || fail "the tours did not show: $line"
done
for tour in files vehicle buttons services screen alerts navigation; do
  grep -q "Tour $tour: OK" "$work/example.out" || fail "the example did not finish its $tour tour"
done
# 2 s of the emulator's 8-bit 44.1 kHz tone, with its 44-byte header.
[ "$(head -c 4 "$work/recording.wav")" = RIFF ] || fail "the recording is not a WAV file"
[ "$(stat -c %s "$work/recording.wav")" = $((44 + 88200)) ] || fail "the recording is not 2 s long"

# The navigation tour streamed the 90-frame clip: ffprobe decodes the emulator's recording frame for frame.
video="$work/streams/4242-video.h264"
[ -s "$video" ] || fail "the emulator recorded no video"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$video")
[ "$frames" = "800,380,90" ] || fail "ffprobe read $frames (width,height,frames) from the recording, expected 800,380,90"
# and spoke 1 s and 1.5 s prompts: the recorded WAV (16 kHz, 16-bit mono) lasts 2.5 s within 5 %.
audio="$work/streams/4242-audio.wav"
[ -s "$audio" ] || fail "the emulator recorded no audio"
format=$(ffprobe -v error -show_entries stream=sample_rate,channels -of csv=p=0 "$audio")
[ "$format" = "16000,1" ] || fail "the audio recording is $format (rate,channels), expected 16000,1"
duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$audio")
awk -v d="$duration" 'BEGIN { exit !(d >= 2.375 && d <= 2.625) }' || fail "the audio recording lasts $duration s, expected 2.5 s within 5 %"

# --stay: the tour's app stays registered until SIGINT, then unregisters and the example exits 0.
.build/debug/sdl-example --port "$((port + 2))" --control-url "http://127.0.0.1:$control" --app-id 4343 --tour lifecycle --stay \
  >"$work/stay.out" 2>&1 &
stayer=$!
for _ in $(seq 1 300); do
  grep -q "stays registered" "$work/stay.out" && break
  sleep 0.1
done
curl -fs "http://127.0.0.1:$control/apps" | grep -q '"appID":"4343"' || { cat "$work/stay.out"; fail "--stay did not keep the app registered"; }
kill -INT "$stayer"
wait "$stayer" || fail "sdl-example --stay did not exit 0 after SIGINT"
curl -fs "http://127.0.0.1:$control/apps" | grep -q '"appID":"4343"' && fail "the app stayed registered after SIGINT"
# The control API's event stream is open and speaks server-sent events.
curl -s -N --max-time 1 "http://127.0.0.1:$control/events" >"$work/events.out" || true
grep -q "sdl headunit events" "$work/events.out" || fail "GET /events did not stream"

# Encryption: a head unit with SDL Core's security manager and a test CA, AddCommand required
# encrypted; the example app gets its certificate from the CA, completes the TLS handshake, sends a
# protected GetVehicleData, sees AddCommand refused in plain text and sends it encrypted.
secure=$((port + 4))
secure_control=$((port + 5))
$sdl headunit --port "$secure" --control-port "$secure_control" --manual-activation --security --encryption-required AddCommand \
  --write-ca "$work/ca" >"$work/secure.log" 2>&1 &
secure_headunit=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$secure_control/apps" >/dev/null 2>&1 && break
  sleep 0.1
done
[ -s "$work/ca/ca.pem" ] || fail "sdl headunit --security --write-ca wrote no CA certificate"
.build/debug/sdl-example --port "$secure" --control-url "http://127.0.0.1:$secure_control" --app-id 5151 --tour encryption \
  >"$work/encryption.out" 2>&1 || { cat "$work/encryption.out" "$work/secure.log"; fail "sdl-example --tour encryption failed"; }
grep -q "Tour encryption: OK" "$work/encryption.out" || fail "the encryption tour did not finish"
grep -q "ENCRYPTION_NEEDED" "$work/encryption.out" || fail "the encryption tour did not see ENCRYPTION_NEEDED"
grep -q "the head unit decrypted" "$work/encryption.out" || fail "the encryption tour's protected video did not reach the head unit"
# The head unit's own certificate (issued by the first one's CA) and SDL Core before the HMI's
# system time: protection refused until PUT /security/system-time, then the tour passes.
curl -fs -X POST "http://127.0.0.1:$secure_control/security/certificates" -d '{"appID": "head-unit"}' >"$work/hu.json" \
  || fail "POST /security/certificates failed"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); open(sys.argv[2], "w").write(d["certificate"]); open(sys.argv[3], "w").write(d["privateKey"])' \
  "$work/hu.json" "$work/hu.pem" "$work/hu-key.pem"
kill "$secure_headunit" 2>/dev/null || true
$sdl headunit --port "$secure" --control-port "$secure_control" --manual-activation --security --ca "$work/ca/ca.pem" --ca-key "$work/ca/ca-key.pem" \
  --cert "$work/hu.pem" --key "$work/hu-key.pem" --no-system-time --encryption-required AddCommand >"$work/secure2.log" 2>&1 &
secure_headunit=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$secure_control/apps" >/dev/null 2>&1 && break
  sleep 0.1
done
if .build/debug/sdl-example --port "$secure" --control-url "http://127.0.0.1:$secure_control" --app-id 5151 --tour encryption >"$work/no-time.out" 2>&1; then
  cat "$work/no-time.out"; fail "the encryption tour passed without the head unit's system time"
fi
grep -q "System time provider is not ready" "$work/no-time.out" || { cat "$work/no-time.out" "$work/secure2.log"; fail "no 'System time provider is not ready' refusal"; }
curl -fs -X PUT "http://127.0.0.1:$secure_control/security/system-time" -d '{"ready": true}' >/dev/null || fail "PUT /security/system-time failed"
.build/debug/sdl-example --port "$secure" --control-url "http://127.0.0.1:$secure_control" --app-id 5151 --tour encryption \
  >"$work/encryption2.out" 2>&1 || { cat "$work/encryption2.out" "$work/secure2.log"; fail "sdl-example --tour encryption failed once the system time was ready"; }
kill "$secure_headunit" 2>/dev/null || true
secure_headunit=

# Dynamic menus (RPC 7.0): Settings goes empty and its cells follow when the driver opens it.
dynamic=$((port + 6))
dynamic_control=$((port + 7))
$sdl headunit --port "$dynamic" --control-port "$dynamic_control" --manual-activation --dynamic-menus >"$work/dynamic.log" 2>&1 &
dynamic_headunit=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$dynamic_control/apps" >/dev/null 2>&1 && break
  sleep 0.1
done
.build/debug/sdl-example --port "$dynamic" --control-url "http://127.0.0.1:$dynamic_control" --app-id 6161 --tour screen \
  >"$work/dynamic.out" 2>&1 || { cat "$work/dynamic.out" "$work/dynamic.log"; fail "sdl-example --tour screen failed with dynamic menus"; }
grep -q "its 2 cells were sent when the driver opened it" "$work/dynamic.out" || { cat "$work/dynamic.out"; fail "the screen tour did not fill Settings on demand"; }
kill "$dynamic_headunit" 2>/dev/null || true
dynamic_headunit=

# SDL Core's defaults (speech TEXT only, no DISPLAYS, image fields without imageTypeSupported):
# the served steps, the server on /sdl and the vehicle dialing it as Core does (/sdl/), and the
# tours that need no driver.
served=$((port + 9))
.build/debug/sdl-example --serve --host 127.0.0.1 --port "$served" --path /sdl >"$work/served.out" 2>&1 &
served_pid=$!
for _ in $(seq 1 100); do
  grep -q "cloud app listening" "$work/served.out" && break
  sleep 0.1
done
$sdl headunit --cloud-app "ws://127.0.0.1:$served/sdl" --sdl-core-defaults >"$work/core-vehicle.out" 2>"$work/core-vehicle.log" &
core_vehicle=$!
for _ in $(seq 1 600); do
  grep -q "Vehicle: " "$work/served.out" && break
  sleep 0.1
done
kill "$core_vehicle" "$served_pid" 2>/dev/null || true
core_vehicle= served_pid=
grep -q "Vehicle: OK" "$work/served.out" || { cat "$work/served.out" "$work/core-vehicle.log"; fail "the served steps failed against SDL Core's defaults"; }
grep -q "its pause left out (the head unit speaks TEXT only)" "$work/served.out" || fail "the served speech step did not show the SILENCE left out"
core=$((port + 10))
$sdl headunit --port "$core" --sdl-core-defaults >"$work/core.log" 2>&1 &
core_headunit=$!
for _ in $(seq 1 100); do
  grep -q "listening" "$work/core.log" && break
  sleep 0.1
done
.build/debug/sdl-example --port "$core" --app-id 7272 --tour all --wav-path "$work/core.wav" >"$work/core-tours.out" 2>&1 \
  || { cat "$work/core-tours.out"; fail "sdl-example --tour all failed against SDL Core's defaults"; }
kill "$core_headunit" 2>/dev/null || true
core_headunit=

# The tours again with an HMI answering over the HMI API: the stand-in HMI connects to the
# emulator's HMI port and the control API plays the driver through it.
hmi_app=$((port + 11)) hmi_control=$((port + 12)) hmi_port=$((port + 13))
$sdl headunit --port "$hmi_app" --control-port "$hmi_control" --hmi-port "$hmi_port" --stand-in-hmi --grant HapticGroup --log \
  >"$work/stand-in.log" 2>"$work/stand-in.err" &
stand_in_headunit=$!
for _ in $(seq 1 100); do
  grep -q "stand-in HMI connected" "$work/stand-in.err" && break
  sleep 0.1
done
grep -q "stand-in HMI connected" "$work/stand-in.err" || { cat "$work/stand-in.err"; fail "the stand-in HMI did not connect"; }
.build/debug/sdl-example --port "$hmi_app" --control-url "http://127.0.0.1:$hmi_control" --app-id 4242 --tour all --wav-path "$work/hmi.wav" \
  >"$work/hmi-tours.out" 2>&1 || { cat "$work/hmi-tours.out"; fail "sdl-example --tour all failed with the stand-in HMI answering"; }
kill "$stand_in_headunit" 2>/dev/null || true
stand_in_headunit=
# What went through the HMI API: the driver's steps and the HMI's answers to interactions (one
# grep each: under pipefail a `grep | grep -q` pipeline fails when -q stops reading early).
for method in SDL.ActivateApp Buttons.OnButtonPress UI.OnKeyboardInput UI.OnTouchEvent VehicleInfo.OnVehicleData UI.OnSubtleAlertPressed; do
  grep -q "\"hmi\":\"in\".*\"method\":\"$method\"" "$work/stand-in.log" || fail "the stand-in HMI never sent $method"
done
for method in UI.PerformInteraction UI.Slider UI.Alert UI.ScrollableMessage UI.PerformAudioPassThru Navigation.StartStream VehicleInfo.GetVehicleData; do
  grep -q "\"hmi\":\"out\".*\"method\":\"$method\"" "$work/stand-in.log" || fail "the emulator never asked the HMI $method"
done
# The HMI showed the recording's popup for its whole 2 s while the Core half recorded.
[ "$(stat -c %s "$work/hmi.wav")" = $((44 + 88200)) ] || fail "the recording with the stand-in HMI is not 2 s long"

echo "sdl-tool: send, connect, headunit (and its control API), the example app, validate and decode behave"
