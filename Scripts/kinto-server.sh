#!/usr/bin/env bash
# Start a local Kinto on 127.0.0.1 for manual work, seeded from Fixtures/.
#   Scripts/kinto-server.sh start [PORT]   (default 8888; prints how to stop it)
#   Scripts/kinto-server.sh stop
# The pid and log live in .run/ at the repository root.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run="$root/.run"
kinto="$root/.venv/bin/kinto"
python="$root/.venv/bin/python"
cmd=${1:-start}
port=${2:-${SHELF_KINTO_PORT:-8888}}

stop() {
  if [[ -f $run/kinto.pid ]]; then
    pid=$(cat "$run/kinto.pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
      echo "Kinto (pid $pid) stopped."
    fi
    rm -f "$run/kinto.pid" "$run/kinto.port"
  else
    echo "No Kinto started by Shelf is running."
  fi
}

case $cmd in
  start)
    [[ -x $kinto ]] || { echo "Kinto is not installed: run 'make setup' first." >&2; exit 69; }
    mkdir -p "$run"
    if [[ -f $run/kinto.pid ]] && kill -0 "$(cat "$run/kinto.pid")" 2>/dev/null; then
      echo "Kinto already running on http://127.0.0.1:$(cat "$run/kinto.port")/v1 (stop: make server-stop)"
      exit 0
    fi
    "$kinto" start --ini "$root/Fixtures/kinto/kinto.ini" --port "$port" >"$run/kinto.log" 2>&1 &
    echo $! >"$run/kinto.pid"
    echo "$port" >"$run/kinto.port"
    for _ in $(seq 100); do
      if "$python" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/v1/', timeout=1)" 2>/dev/null; then
        "$python" "$root/Scripts/kinto-seed.py" "http://127.0.0.1:$port"
        echo "Kinto running on http://127.0.0.1:$port/v1 (log: .run/kinto.log)"
        echo "Stop it with: make server-stop"
        exit 0
      fi
      kill -0 "$(cat "$run/kinto.pid")" 2>/dev/null || { cat "$run/kinto.log" >&2; stop >/dev/null; exit 70; }
      sleep 0.1
    done
    echo "Kinto did not answer on port $port within 10 s; see .run/kinto.log" >&2
    stop >/dev/null
    exit 70
    ;;
  stop) stop ;;
  *) echo "usage: $0 start [PORT] | stop" >&2; exit 64 ;;
esac
