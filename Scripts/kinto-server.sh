#!/usr/bin/env bash
# Start a local Kinto on 127.0.0.1 for manual work, seeded from Fixtures/.
#   Scripts/kinto-server.sh start [PORT]        (default 8888; prints how to stop it)
#   Scripts/kinto-server.sh production [PORT]   (the production shape, below)
#   Scripts/kinto-server.sh stop                (stops either)
# `start` is kinto.ini: one process, memory backend. `production` is production.ini as
# Kinto's docs advise running it: gunicorn with WORKERS worker processes (default 4) ×
# THREADS threads (default 2), storage, permissions and cache in PostgreSQL, on a private
# cluster in a temporary folder (Scripts/kinto-supervised.py --postgresql --workers),
# removed with its data when it stops. One local Kinto at a time: `make run` uses either.
# The pid and log live in .run/ at the repository root.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run="$root/.run"
kinto="$root/.venv/bin/kinto"
python="$root/.venv/bin/python"
cmd=${1:-start}
port=${2:-${SHELF_KINTO_PORT:-8888}}
workers=${WORKERS:-4}
threads=${THREADS:-2}

stop() {
  if [[ -f $run/kinto.pid ]]; then
    pid=$(cat "$run/kinto.pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      # The production shape stops gunicorn's workers, its master, then PostgreSQL: its
      # supervisor gives each a bounded time, 30 s in all at worst.
      for _ in $(seq 400); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        echo "Kinto (pid $pid) did not stop within 40 s and was killed; see .run/kinto.log" >&2
      else
        echo "Kinto (pid $pid) stopped."
      fi
    fi
    rm -f "$run/kinto.pid" "$run/kinto.port" "$run/kinto.ready"
  else
    echo "No Kinto started by Shelf is running."
  fi
}

already_running() {
  if [[ -f $run/kinto.pid ]] && kill -0 "$(cat "$run/kinto.pid")" 2>/dev/null; then
    echo "Kinto already running on http://127.0.0.1:$(cat "$run/kinto.port")/v1 (stop: make server-stop)"
    return 0
  fi
  return 1
}

production() {
  [[ -x $python ]] && "$python" -c "import gunicorn, psycopg2" 2>/dev/null \
    || { echo "Kinto's PostgreSQL backend or gunicorn is not installed: run 'make setup' first." >&2; exit 69; }
  [[ $workers =~ ^[1-9][0-9]*$ ]] || { echo "WORKERS must be a number of processes, 1 or more (got '$workers')." >&2; exit 64; }
  if "$python" -c "import socket, sys; sys.exit(socket.socket().connect_ex(('127.0.0.1', $port)) != 0)"; then
    echo "Port $port is taken: stop what listens there, or give another port (SHELF_KINTO_PORT=…)." >&2
    exit 70
  fi
  local started=$EPOCHREALTIME
  : >"$run/kinto.log"
  "$python" "$root/Scripts/kinto-supervised.py" --ini "$root/Fixtures/kinto/production.ini" \
    --postgresql --workers "$workers" --threads "$threads" --port "$port" --outlive-parent \
    --log "$run/kinto.log" >"$run/kinto.ready" 2>>"$run/kinto.log" &
  echo $! >"$run/kinto.pid"
  echo "$port" >"$run/kinto.port"
  # A PostgreSQL cluster is made, migrated and Kinto loaded first: allow 120 s.
  for _ in $(seq 1200); do
    if grep -q '^ready ' "$run/kinto.ready" 2>/dev/null; then
      "$python" "$root/Scripts/kinto-seed.py" "http://127.0.0.1:$port"
      echo "Kinto (production.ini: $workers gunicorn workers × $threads threads, PostgreSQL) running on" \
           "http://127.0.0.1:$port/v1, up in $(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $started }") s (log: .run/kinto.log)"
      echo "Stop it with: make server-production-stop (its database goes with it)"
      exit 0
    fi
    kill -0 "$(cat "$run/kinto.pid")" 2>/dev/null || { tail -n 30 "$run/kinto.log" >&2; stop >/dev/null; exit 70; }
    sleep 0.1
  done
  echo "Kinto did not start within 120 s; see .run/kinto.log" >&2
  stop >/dev/null
  exit 70
}

case $cmd in
  production)
    mkdir -p "$run"
    already_running && exit 0
    production
    ;;
  start)
    [[ -x $kinto ]] || { echo "Kinto is not installed: run 'make setup' first." >&2; exit 69; }
    mkdir -p "$run"
    already_running && exit 0
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
  *) echo "usage: $0 start [PORT] | production [PORT] | stop" >&2; exit 64 ;;
esac
