#!/usr/bin/env bash
# `make run`: Shelf against a local Kinto, from a clean state.
#   1. starts Kinto seeded from Fixtures/ (Scripts/kinto-server.sh) on 8888, or on a free
#      port when 8888 is taken — unless one started by `make server` is running already;
#   2. adds an account for the seeded reader (`reader` / `reader-local`, the password
#      passed through SHELF_PASSWORD, never as an argument) in a private XDG folder,
#      .run/shelf-home, created afresh on every run;
#   3. runs `shelf sync`, then `shelf books`;
#   4. stops the server it started, however the script ends.
# Afterwards, look around with:
#   XDG_CONFIG_HOME=.run/shelf-home/config XDG_DATA_HOME=.run/shelf-home/data .build/debug/shelf --help
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shelf=${SHELF_BIN:-$(cd "$root" && swift build --show-bin-path)/shelf}
home="$root/.run/shelf-home"
python="$root/.venv/bin/python"

[[ -x $shelf ]] || { echo "shelf is not built at $shelf: run 'make build' first." >&2; exit 69; }

if [[ -f $root/.run/kinto.pid ]] && kill -0 "$(cat "$root/.run/kinto.pid")" 2>/dev/null; then
  port=$(cat "$root/.run/kinto.port")
  echo "Using the Kinto already running on port $port (make server-stop stops it)."
else
  port=8888
  if "$python" -c "import socket, sys; sys.exit(socket.socket().connect_ex(('127.0.0.1', 8888)) != 0)"; then
    port=$("$python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
    echo "Port 8888 is taken; using $port."
  fi
  trap '"$root/Scripts/kinto-server.sh" stop' EXIT
  "$root/Scripts/kinto-server.sh" start "$port"
fi

rm -rf "$home"
mkdir -p "$home"
export HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data"
unset SHELF_SERVER SHELF_USER SHELF_PASSWORD SHELF_PASSWORD_FILE SHELF_ACCOUNT

echo
echo "\$ shelf account add reader --server http://127.0.0.1:$port/v1 --user reader   (password from SHELF_PASSWORD)"
SHELF_PASSWORD=reader-local "$shelf" account add reader --server "http://127.0.0.1:$port/v1" --user reader
echo
echo "\$ shelf sync"
"$shelf" sync
echo
echo "\$ shelf books"
"$shelf" books
