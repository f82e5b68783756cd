#!/usr/bin/env bash
# The CLI's local reads at scale (make bench-cli): for each size in SIZES (default 100,000
# and 1,000,000 books), a local-only store filled by Benchmarks/LocalLibrarySeed (the books
# of Benchmarks/seeding.py: "ursula" matches 2%), then hyperfine times the release `shelf`
# as a process, wall time, stdout to a pipe as a script would read it:
#   books --search ursula --limit 50   (targets: < 20 ms at 100k, < 50 ms at 1M)
#   books --search ursula              (all ~2% matches printed; target < 50 ms at 100k)
#   books --search zzyzx               (no match: one scan of the index)
#   books --sort -author --limit 50    (a sort that is not the index's order)
#   --version                          (start-up)
# Results: Benchmarks/results/cli-<size>.md (markdown) and .json (every run's time).
# RUNS=N (default 30) runs per command. Stores live under .run/cli-bench (1M: ~570 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
SHELF=$PWD/.build/release/shelf
SEED=$PWD/.build/release/LocalLibrarySeed
WORK=$PWD/.run/cli-bench
RESULTS=$PWD/Benchmarks/results
RUNS=${RUNS:-30}
SIZES=${SIZES:-100000 1000000}
mkdir -p "$RESULTS"

for size in $SIZES; do
  home=$WORK/$size
  rm -rf "$home" && mkdir -p "$home/config"
  "$SEED" "$home/data" "$size"
  (cd "$home" && env -i PATH="$PATH" HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" NO_COLOR=1 \
    hyperfine -N --warmup 3 --runs "$RUNS" \
      --export-markdown "$RESULTS/cli-$size.md" --export-json "$RESULTS/cli-$size.json" \
      "$SHELF books --search ursula --limit 50" \
      "$SHELF books --search ursula" \
      "$SHELF books --search zzyzx" \
      "$SHELF books --sort -author --limit 50" \
      "$SHELF --version")
  # NB: a million-book store is half a gigabyte; keep only the figures.
  rm -rf "$home"
done
uptime
