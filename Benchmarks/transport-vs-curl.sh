#!/usr/bin/env bash
# Shelf's CurlTransport against the curl CLI: N sequential GETs of a 1 MB JSON page
# served by `python3 -m http.server` on 127.0.0.1 (HTTP/1.1, so connections are reused).
#
#   Benchmarks/transport-vs-curl.sh [count=200]
#
# Both clients fetch the same URL the same number of times, one request at a time, in
# one process each; the script prints wall-clock and CPU (user + system) time of each.
# The Python server is the same for both and dominates the wall time; the CPU columns
# are what tell the clients apart. Results also go to Benchmarks/results/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-200}
export PATH="/opt/swift/usr/bin:$PATH"

tmp=$(mktemp -d)
server=""
trap '[[ -n $server ]] && kill $server 2>/dev/null; rm -rf "$tmp"' EXIT

# A list page of ~1 MB in Kinto's shape.
python3 - "$tmp/page.json" <<'PY'
import json, sys
records, size = [], 0
i = 0
while size < 1_000_000:
    record = {"id": f"book-{i:05d}", "title": f"Title {i} \u2014 caf\u00e9", "author_name": f"Author {i % 97}",
              "finished": i % 3 == 0, "last_modified": 1796039015000 + i}
    records.append(record)
    size += len(json.dumps(record)) + 1
    i += 1
with open(sys.argv[1], "w") as f:
    json.dump({"data": records}, f)
PY
bytes=$(stat -c %s "$tmp/page.json")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --protocol HTTP/1.1 --directory "$tmp" "$port" >/dev/null 2>&1 &
server=$!
url="http://127.0.0.1:$port/page.json"
for _ in $(seq 100); do curl -sf -o /dev/null "$url" && break; sleep 0.05; done

echo "Building TransportBench (release)…" >&2
(cd "$root" && swift build -c release --product TransportBench >/dev/null)
bench="$(cd "$root" && swift build -c release --show-bin-path)/TransportBench"

mkdir -p "$root/Benchmarks/results"
exec > >(tee "$root/Benchmarks/results/transport-vs-curl-$(date +%Y%m%d-%H%M%S).txt")
echo "Page: $bytes bytes at $url; $count sequential GETs each"
echo
echo "== CurlTransport (TransportBench, release)"
"$bench" "$url" "$count"

echo
echo "== curl CLI (one process, $count URLs, sequential)"
urls=()
for _ in $(seq "$count"); do urls+=("$url"); done
/usr/bin/time -f "curl: wall %e s, cpu %U user + %S sys" curl -s --parallel-max 1 "${urls[@]}" >/dev/null
