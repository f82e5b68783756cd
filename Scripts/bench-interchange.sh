#!/usr/bin/env bash
# Import and export speed of the release `shelf` (make bench-interchange):
#   - a generated 10,000-row Goodreads export imported into an empty local store, then again;
#   - 100,000 books (Benchmarks/LocalLibrarySeed) exported as JSON and as CSV, and that JSON
#     imported into an empty store.
# Five runs each (RUNS=N to change); prints wall seconds (GNU time) and sizes. No server:
# local-only stores under .run/bench-interchange.
set -euo pipefail
cd "$(dirname "$0")/.."
SHELF=$PWD/.build/release/shelf
SEED=$PWD/.build/release/LocalLibrarySeed
WORK=$PWD/.run/bench-interchange
RUNS=${RUNS:-5}
rm -rf "$WORK" && mkdir -p "$WORK"
cd "$WORK"

python3 ../../Fixtures/import/make_goodreads_export.py 10000 goodreads-10k.csv
echo "goodreads-10k.csv: $(wc -c < goodreads-10k.csv) bytes, 10000 rows"
for run in $(seq "$RUNS"); do
  rm -rf import-home && mkdir -p import-home/config
  export XDG_DATA_HOME=$PWD/import-home/data XDG_CONFIG_HOME=$PWD/import-home/config
  first=$( { /usr/bin/time -f %e "$SHELF" import goodreads-10k.csv >/dev/null; } 2>&1 )
  again=$( { /usr/bin/time -f %e "$SHELF" import goodreads-10k.csv >/dev/null; } 2>&1 )
  echo "import run $run: first ${first} s ($(python3 -c "print(round(10000/$first))") rows/s), again ${again} s"
done

mkdir -p export-home/config
"$SEED" "$PWD/export-home/data" 100000
export XDG_DATA_HOME=$PWD/export-home/data XDG_CONFIG_HOME=$PWD/export-home/config
for run in $(seq "$RUNS"); do
  json=$( { /usr/bin/time -f %e "$SHELF" export --collection books --output books.json >/dev/null; } 2>&1 )
  csv=$( { /usr/bin/time -f %e "$SHELF" export --collection books --format csv --output books.csv >/dev/null; } 2>&1 )
  echo "export run $run: json ${json} s, csv ${csv} s"
done
echo "books.json: $(wc -c < books.json) bytes; books.csv: $(wc -c < books.csv) bytes"
for run in $(seq "$RUNS"); do
  rm -rf roundtrip-home && mkdir -p roundtrip-home/config
  export XDG_DATA_HOME=$PWD/roundtrip-home/data XDG_CONFIG_HOME=$PWD/roundtrip-home/config
  back=$( { /usr/bin/time -f "%e s, %M KB" "$SHELF" import books.json >/dev/null; } 2>&1 )
  echo "import of the export, run $run: ${back}"
done
