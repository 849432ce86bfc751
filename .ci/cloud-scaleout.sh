#!/usr/bin/env bash
# Cloud-app sessions scale out behind a real load balancer: two `sdl-example --serve` processes
# behind a private nginx, 50 emulated vehicles dialing nginx (VEHICLES=1000 for more). Both servers must take sessions;
# then server A is killed with SIGKILL (a crash, no goodbye) and every one of its vehicles must
# dial again, land on server B through nginx, register again and finish its tour there.
set -euo pipefail
cd "$(dirname "$0")/.."
SDL=${SDL:-.build/debug/sdl}
SDL_EXAMPLE=${SDL_EXAMPLE:-.build/debug/sdl-example}
VEHICLES=${VEHICLES:-50}
# A thousand sessions need more descriptors than the usual soft limit of 1,024 (servers, nginx).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# Waits scale with the vehicles: 60 s for 50, more for a thousand on this two-core machine.
LIMIT=$((60 + VEHICLES / 5))

fail() {
  echo "cloud-scaleout: $*" >&2
  for log in "$work"/a.log "$work"/b.log "$work"/vehicles.log "$work"/nginx-error.log; do
    [ -f "$log" ] || continue
    echo "--- last lines of $(basename "$log")" >&2
    tail -n 15 "$log" >&2
  done
  exit 1
}

# Waits up to $1 seconds for the command after it to succeed; never an unbounded wait.
wait_for() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# grep -c prints 0 but exits 1 when nothing matches; a missing file counts as 0 too.
count() { grep -c -- "$1" "$2" 2>/dev/null || true; }

# Free loopback ports, chosen by the kernel (bound and released at once).
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }

# nginx from the Debian package, as .ci/run installs system packages.
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d)
pids=()
cleanup() {
  # The vehicles first (so they stop dialing), then the servers and nginx; SIGKILL whatever
  # has not exited 5 s after SIGTERM.
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    wait_for 5 eval "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  # KEEP_LOGS=DIR keeps the logs for a look after the run.
  [ -z "${KEEP_LOGS:-}" ] || { mkdir -p "$KEEP_LOGS" && cp "$work"/*.log "$work"/*.conf "$KEEP_LOGS"/ 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

port_a=$(free_port)
port_b=$(free_port)
port_lb=$(free_port)
while [ "$port_b" = "$port_a" ]; do port_b=$(free_port); done
while [ "$port_lb" = "$port_a" ] || [ "$port_lb" = "$port_b" ]; do port_lb=$(free_port); done

# The two cloud-app servers, each logging to its own file.
"$SDL_EXAMPLE" --serve --host 127.0.0.1 --port "$port_a" >"$work/a.log" 2>&1 &
server_a=$!
pids+=("$server_a")
"$SDL_EXAMPLE" --serve --host 127.0.0.1 --port "$port_b" >"$work/b.log" 2>&1 &
server_b=$!
pids+=("$server_b")
# Listening, or gone (then fail at once rather than wait out the 30 s).
listening() { grep -qs "listening on ws://127.0.0.1:$2/" "$3" || ! kill -0 "$1" 2>/dev/null; }
wait_for 30 listening "$server_a" "$port_a" "$work/a.log" && kill -0 "$server_a" 2>/dev/null || fail "server A did not start listening"
wait_for 30 listening "$server_b" "$port_b" "$work/b.log" && kill -0 "$server_b" 2>/dev/null || fail "server B did not start listening"

# A private nginx: its own config, pid, logs and temp paths in the work dir; the system
# service is not used. Round robin spreads the sessions over both servers; a server that
# refuses a connection is marked down for fail_timeout and the connection goes to the other
# (proxy_next_upstream); WebSocket upgrades pass through and idle sessions are not timed out.
mkdir -p "$work/tmp"
user_line=""
# As root nginx's workers would run as nobody and could not enter the private work dir.
[ "$(id -u)" -ne 0 ] || user_line="user root;"
cat >"$work/nginx.conf" <<EOF
$user_line
worker_processes 1;
worker_rlimit_nofile $((8 * VEHICLES + 512));
pid $work/nginx.pid;
error_log $work/nginx-error.log notice;
events { worker_connections $((4 * VEHICLES + 256)); }
http {
  access_log $work/nginx-access.log;
  client_body_temp_path $work/tmp/client;
  proxy_temp_path $work/tmp/proxy;
  fastcgi_temp_path $work/tmp/fastcgi;
  uwsgi_temp_path $work/tmp/uwsgi;
  scgi_temp_path $work/tmp/scgi;
  upstream cloud_app {
    server 127.0.0.1:$port_a max_fails=1 fail_timeout=30s;
    server 127.0.0.1:$port_b max_fails=1 fail_timeout=30s;
  }
  server {
    listen 127.0.0.1:$port_lb;
    location / {
      proxy_pass http://cloud_app;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_set_header Host \$host;
      proxy_connect_timeout 5s;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      proxy_next_upstream error timeout;
    }
  }
}
EOF
"$nginx" -e "$work/nginx-error.log" -c "$work/nginx.conf" -p "$work" -g 'daemon off;' &
nginx_pid=$!
pids+=("$nginx_pid")
port_open() { python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port_lb),1)" 2>/dev/null; }
wait_for 30 port_open || fail "nginx did not start listening on $port_lb"

# The vehicles dial nginx; each dials again (every 0.5 s, 20 times) after a drop. SDL Core
# waits for the user to pick the app again after a drop; --redial-after-drop stands in for that.
"$SDL" headunit --cloud-app "ws://127.0.0.1:$port_lb/" --cloud-apps "$VEHICLES" --auth-token tok \
  --retry-delay 0.5 --retry-attempts 20 --redial-after-drop >"$work/vehicles.out" 2>"$work/vehicles.log" &
vehicles=$!
pids=("$vehicles" "${pids[@]}")
# Checked while waiting, to fail at once: the emulator, server B and nginx stay up, and no
# vehicle's tour fails.
alive() {
  kill -0 "$vehicles" 2>/dev/null || fail "the vehicle emulator exited"
  kill -0 "$server_b" 2>/dev/null || fail "server B exited"
  kill -0 "$nginx_pid" 2>/dev/null || fail "nginx exited"
  ! grep -qs "Vehicle: FAILED" "$work/a.log" "$work/b.log" || fail "a vehicle's tour FAILED"
}

# All of them ready, spread over both servers. The servers' "ready (" event, the tour's "✔ ready"
# line and the emulator's "registered" line are printed by different tasks in no set order, so
# wait for all three before counting.
all_ready() {
  alive
  (($(count "ready (" "$work/a.log") + $(count "ready (" "$work/b.log") >= VEHICLES)) \
    && (($(count "✔ ready: " "$work/a.log") + $(count "✔ ready: " "$work/b.log") >= VEHICLES)) \
    && (($(count ": app [0-9]* registered$" "$work/vehicles.log") >= VEHICLES))
}
wait_for "$LIMIT" all_ready || fail "not all $VEHICLES vehicles became ready through nginx"
took_a=$(count "ready (" "$work/a.log")
took_b=$(count "ready (" "$work/b.log")
echo "cloud-scaleout: server A took $took_a sessions, server B took $took_b"
((took_a + took_b == VEHICLES)) || fail "$((took_a + took_b)) sessions became ready for $VEHICLES vehicles (some dialed twice)"
((took_a > 0)) || fail "nginx sent no session to server A"
((took_b > 0)) || fail "nginx sent no session to server B"
# The auth tokens (tok-N) of A's vehicles, to find them again on B.
grep -o '^\[tok-[0-9]* [^]]*\] ✔ ready' "$work/a.log" | grep -o 'tok-[0-9]*' | sort -u >"$work/moved.tokens"
(($(wc -l <"$work/moved.tokens") == took_a)) || fail "server A's log names $(wc -l <"$work/moved.tokens") vehicles for $took_a sessions"
registered_before=$(count ": app [0-9]* registered$" "$work/vehicles.log")
((registered_before == VEHICLES)) || fail "$registered_before registrations for $VEHICLES vehicles before the crash"

# Server A crashes: no goodbye, its sockets just close.
kill -9 "$server_a"
wait "$server_a" 2>/dev/null || true

# B serves all of them at once ("ready (50 open)" for 50: B's open sessions when one became
# ready), the emulator registered A's vehicles again, and each of them finished its tour on B
# (B's own vehicles too: one "Vehicle: OK" line each; each is one write, so the lines are whole).
moved_to_b() {
  alive
  grep -q "ready ($VEHICLES open)" "$work/b.log" \
    && (($(count ": app [0-9]* registered$" "$work/vehicles.log") >= VEHICLES + took_a)) \
    && (($(count "Vehicle: OK" "$work/b.log") >= VEHICLES)) \
    && while read -r token; do grep -q "^\[$token .*\] Vehicle: OK" "$work/b.log" || return 1; done <"$work/moved.tokens"
}
wait_for "$LIMIT" moved_to_b || fail "server A's $took_a vehicles did not all move to server B (B's log has no 'ready ($VEHICLES open)', or registrations or tours are missing)"
registered=$(count ": app [0-9]* registered$" "$work/vehicles.log")
((registered == VEHICLES + took_a)) || fail "$registered registrations, expected $((VEHICLES + took_a))"

echo "scale-out: A took $took_a, B took $took_b; after A was killed B serves $VEHICLES ($took_a moved and registered again)"
