#!/usr/bin/env bash
# Record real Kinto responses into Fixtures/responses/ for Services' DTO and parsing tests.
#   Scripts/capture-kinto-responses.sh
# Starts a throwaway Kinto (Scripts/kinto-supervised.py, seeded catalog, plain Basic auth so
# the fixture reader needs no sign-up and the recorded headers match), drives it with
# curl, and writes each response as <name>.json (body) and <name>.headers (status line and
# headers as received). Timestamps, ports and pagination tokens differ on every run;
# tests depend only on shapes and on the data written here.
# The two hand-made fixtures (handmade-*.json) are not written by this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Fixtures/responses"
mkdir -p "$out"
tmp=$(mktemp -d)
"$root/.venv/bin/python" "$root/Scripts/kinto-supervised.py" --ini "$root/Fixtures/kinto/kinto-basicauth.ini" \
  --seed-catalog >"$tmp/ready" &
supervisor=$!
trap 'kill $supervisor 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 300); do grep -q '^ready ' "$tmp/ready" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^ready //p' "$tmp/ready")
[[ -n $port ]] || { echo "Kinto did not start" >&2; exit 70; }
base="http://127.0.0.1:$port/v1"
books="$base/buckets/default/collections/books/records"
reader=(-u "fixture-reader:fixture-password")

# capture NAME CURL-ARGS...: body to NAME.json, headers to NAME.headers
capture() {
  local name=$1; shift
  curl -sS -o "$out/$name.json" -D "$out/$name.headers" "$@"
  tr -d '\r' <"$out/$name.headers" >"$tmp/h" && mv "$tmp/h" "$out/$name.headers"
}
json=(-H 'Content-Type: application/json')
put() { curl -sS -o /dev/null "${reader[@]}" "${json[@]}" -X PUT "$1" -d "$2"; }

# Books: five records, two of them with non-ASCII text (Kinto escapes it as \uXXXX,
# astral characters as surrogate pairs).
put "$books/book-001" '{"data":{"title":"Dune","author_name":"Frank Herbert","finished":true}}'
put "$books/book-002" '{"data":{"title":"Cien años de soledad","author_name":"Gabriel García Márquez","finished":false}}'
put "$books/book-003" '{"data":{"title":"The \"Quoted\" Book \\ 📚","author_name":"Ursula K. Le Guin","finished":false}}'
put "$books/book-004" '{"data":{"title":"A Wizard of Earthsea","author_name":"Ursula K. Le Guin","finished":true}}'
put "$books/book-005" '{"data":{"title":"L’Étranger","author_name":"Albert Camus","finished":false}}'
capture books-record "${reader[@]}" "$books/book-002"
capture books-page-1 "${reader[@]}" "$books?_sort=last_modified&_limit=2"
next=$(sed -n 's/^Next-Page: //Ip' "$out/books-page-1.headers")
capture books-page-2 "${reader[@]}" "$next"
next=$(sed -n 's/^Next-Page: //Ip' "$out/books-page-2.headers")
capture books-page-3 "${reader[@]}" "$next"
etag=$(sed -n 's/^ETag: //Ip' "$out/books-page-1.headers")
capture books-not-modified-304 "${reader[@]}" -H "If-None-Match: $etag" "$books?_sort=last_modified"

# Tombstones: a cursor, then one delete and one update; `_since` returns both.
cursor=$(echo "$etag" | tr -d '"')
capture books-delete "${reader[@]}" -X DELETE "$books/book-001"
put "$books/book-004" '{"data":{"title":"A Wizard of Earthsea","author_name":"Ursula K. Le Guin","finished":false}}'
capture books-since-tombstones "${reader[@]}" "$books?_since=$cursor&_sort=last_modified"

# 412: a stale If-Match carries the current record; a deleted one carries none.
capture precondition-failed-412 "${reader[@]}" "${json[@]}" -X PUT -H 'If-Match: "1"' \
  "$books/book-002" -d '{"data":{"title":"Stale edit","author_name":"Nobody","finished":true}}'
capture precondition-failed-deleted-412 "${reader[@]}" "${json[@]}" -X PUT -H 'If-Match: "1"' \
  "$books/book-001" -d '{"data":{"title":"Stale edit","author_name":"Nobody","finished":true}}'
capture not-found-404 "${reader[@]}" "$books/book-404"

# 401: no credentials on the reader's own bucket. 403: a reader writing to the catalog.
capture unauthorized-401 "$books"
capture forbidden-403 "${reader[@]}" "${json[@]}" -X PUT "$base/buckets/shop/collections/products/records/prod-001" \
  -d '{"data":{"name":"Free notebook","price_minor":0,"currency":"EUR"}}'

# Notes, tasks, cart and the catalog, one page each.
notes="$base/buckets/default/collections/notes/records"
put "$notes/note-001" '{"data":{"book_id":"book-002","title":"Macondo — first sentence","body":"Muchos años después…\nline two"}}'
put "$notes/note-002" '{"data":{"book_id":null,"title":"Loose thought","body":""}}'
capture notes-page "${reader[@]}" "$notes?_sort=last_modified"
tasks="$base/buckets/default/collections/tasks/records"
put "$tasks/task-001" '{"data":{"title":"Finish Dune","done":false}}'
put "$tasks/task-002" '{"data":{"title":"Return the library book","done":true}}'
capture tasks-page "${reader[@]}" "$tasks?_sort=last_modified"
cart="$base/buckets/default/collections/cart/records"
put "$cart/prod-002" '{"data":{"product_id":"prod-002","quantity":1}}'
put "$cart/prod-014" '{"data":{"product_id":"prod-014","quantity":3}}'
capture cart-page "${reader[@]}" "$cart?_sort=last_modified"
capture products-page "${reader[@]}" "$base/buckets/shop/collections/products/records?_sort=id&_limit=5"

# Batch: create, update, a stale update (412), a missing delete (404) and a 403.
capture batch-response "${reader[@]}" "${json[@]}" -X POST "$base/batch" -d '{"requests":[
  {"method":"PUT","path":"/buckets/default/collections/tasks/records/task-003","headers":{"If-None-Match":"*"},"body":{"data":{"title":"Start Middlemarch","done":false}}},
  {"method":"PUT","path":"/buckets/default/collections/tasks/records/task-001","body":{"data":{"title":"Finish Dune","done":true}}},
  {"method":"PUT","path":"/buckets/default/collections/tasks/records/task-002","headers":{"If-Match":"\"1\""},"body":{"data":{"title":"Stale","done":false}}},
  {"method":"DELETE","path":"/buckets/default/collections/tasks/records/task-404"},
  {"method":"PUT","path":"/buckets/shop/collections/products/records/prod-001","body":{"data":{"name":"x"}}}]}'
capture batch-too-many-400 "${reader[@]}" "${json[@]}" -X POST "$base/batch" \
  -d "{\"requests\":[$(for i in $(seq 26); do printf '%s{"method":"GET","path":"/buckets/default/collections/tasks/records"}' "$([[ $i -gt 1 ]] && echo ,)"; done)]}"

# A malformed page: a real page cut short mid-record.
head -c 150 "$out/books-page-1.json" >"$out/malformed-truncated-page.json"
echo "captured $(ls "$out"/*.json | wc -l) responses from Kinto on port $port into Fixtures/responses/"
