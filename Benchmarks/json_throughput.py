#!/usr/bin/env python3
"""JSON page → stored records throughput of Python, on a page captured from Kinto.

    json_throughput.py PAGE.json [--repeat N]

"Stored records" is what a sync client writes to its store for each record of a
page: id, last_modified, deleted, and the record's own JSON text. Python has to
parse the page (`json.loads`) and serialize each record again (`json.dumps`) to get
that. The page is read once; each repetition is timed alone and the median is used.
MB = 10^6 bytes of the page file.

Output (the contract a Swift throughput executable follows too): lines of
`<what>: <number> MB/s`; the LAST line is the headline figure.
"""
import argparse
import json
import statistics
import time


def to_stored(page: bytes) -> list:
    records = json.loads(page)["data"]
    return [(r["id"], r["last_modified"], bool(r.get("deleted")), json.dumps(r, separators=(",", ":")))
            for r in records]


def timed(function, payload: bytes, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function(payload)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with open(args.page, "rb") as handle:
        page = handle.read()
    megabytes = len(page) / 1e6
    stored = to_stored(page)
    print(f"records: {len(stored)}, bytes: {len(page)}")
    print(f"json.loads only: {megabytes / timed(json.loads, page, args.repeat):.1f} MB/s")
    print(f"bytes to stored records: {megabytes / timed(to_stored, page, args.repeat):.1f} MB/s")


if __name__ == "__main__":
    main()
