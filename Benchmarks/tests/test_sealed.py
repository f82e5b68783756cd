"""Tests of the encryption benchmark's pure parts, with no server: the sealed library the
second implementation of the format makes (opened back by that implementation), the
commit window's restamping script, and the targets and table.

    make bench-test      (or: .venv/bin/python -m unittest discover -s Benchmarks/tests)

PyNaCl comes with `make setup` (Fixtures/encryption/requirements.txt); without it these
tests are skipped.
"""
from __future__ import annotations

import contextlib
import io
import pathlib
import re
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
BENCH = HERE.parent
sys.path.insert(0, str(BENCH))

try:
    import nacl  # noqa: F401
except ImportError:  # outside .venv
    nacl = None

if nacl is not None:
    import bench_sealed  # noqa: E402
    import sealed_library as sealing  # noqa: E402
    import seeding  # noqa: E402
    from measure import Sample, summarize  # noqa: E402

    fmt = sealing.fmt


@unittest.skipIf(nacl is None, "PyNaCl is not installed: run `make setup` and use .venv/bin/python")
class SealedLibraryTests(unittest.TestCase):
    def test_the_keyring_opens_with_the_passphrase_and_is_closed(self):
        key = sealing.AccountKey.make("correct horse battery staple")
        keyring = fmt.Keyring(key.keyring)
        self.assertEqual(keyring.open("correct horse battery staple"), {key.kid: key.data_key})
        self.assertEqual(keyring.manifest["plaintext"], "closed")
        self.assertEqual(keyring.manifest["version"], 1)
        self.assertEqual((keyring.manifest["current"], keyring.manifest["identity"]), (key.kid, key.kid))
        with self.assertRaises(fmt.WrongPassphrase):
            keyring.open("another passphrase")

    def test_a_sealed_book_opens_to_the_book_with_its_lineage(self):
        key = sealing.AccountKey.make("correct horse battery staple")
        books = sealing.with_lineage(seeding.BookGenerator(seed=3).books(20), seed=3)
        for book in books:
            self.assertRegex(book[fmt.LINEAGE][0], r"\A[0-9a-f-]{36}\Z")
            sealed = sealing.sealed_record(book, "books", key.data_key)
            self.assertEqual(set(sealed), {"id", fmt.ENVELOPE})
            self.assertEqual(sealed[fmt.ENVELOPE]["seq"], 1)
            served = fmt.server_record(book["id"], 1_700_000_000_000, sealed[fmt.ENVELOPE])
            opened = fmt.open_record(served, "books", {key.kid: key.data_key})
            self.assertEqual(opened, {**book, "last_modified": 1_700_000_000_000, fmt.SEQUENCE: 1})
            # Sealed for books, it does not open as another collection's.
            with self.assertRaises(fmt.Tampered):
                fmt.open_record(served, "notes", {key.kid: key.data_key})

    def test_the_lineage_is_the_same_for_the_same_seed(self):
        books = seeding.BookGenerator(seed=1).books(5)
        self.assertEqual(sealing.with_lineage(books, 7), sealing.with_lineage(books, 7))
        self.assertNotEqual(sealing.with_lineage(books, 7), sealing.with_lineage(books, 8))

    def test_the_window_script_restamps_the_newest_records_only(self):
        sql = sealing.window_sql("/buckets/b'1/collections/books", 1000)
        self.assertIn("session_replication_role = replica", sql)
        self.assertIn("'/buckets/b''1/collections/books'", sql)
        self.assertIn("r.rank BETWEEN 2 AND 1000", sql)
        self.assertIn("r.newest - 1 - 5 * (r.rank - 2)", sql)
        self.assertEqual(sealing.restamped("a\nb\n\n"), 2)

    def test_new_stamps_never_meet_the_bulk_stamps(self):
        # The bulk stamps lie 20 s apart behind the newest; the script's ones 1 + 5·k ms.
        step = sealing.WINDOW_STEP_MS
        new = {1 + step * k for k in range(sealing.MAX_WINDOW_RECORDS - 1)}
        old = {20_000 * j for j in range(1, 10_000)}
        self.assertFalse(new & old)
        self.assertLess(max(new), sealing.COMMIT_WINDOW_MS - 10_000)

    def test_the_window_script_refuses_what_it_cannot_do(self):
        for count in (-1, sealing.MAX_WINDOW_RECORDS + 1):
            with self.assertRaises(ValueError):
                sealing.window_sql("/buckets/b/collections/books", count)
        for step in (1, 3, 7):
            with self.assertRaises(ValueError):
                sealing.window_sql("/buckets/b/collections/books", 10, step_ms=step)


def sample(cpu: float, wall: float, requests: int, load: float = 2.0) -> Sample:
    s = Sample(wall_s=wall, user_s=cpu * 0.8, sys_s=cpu * 0.2, maxrss_kb=50_000, exit_code=0)
    s.extra.update(requests=requests, bytes_down=10_240, load=[load, load, load], books={"pulled": 10})
    return s


def entry(what: str, size: int, plain: list[Sample], sealed: list[Sample]) -> dict:
    found = {"scenario": what, "size": size, "contenders": {}}
    for name, runs in ((bench_sealed.PLAIN, plain), (bench_sealed.SEALED, sealed)):
        summary = summarize(runs)
        summary["load_1m"] = {"median": 2.0, "min": 2.0, "max": 2.0, "n": len(runs)}
        summary["pulled"] = {"median": 10.0, "min": 10.0, "max": 10.0, "n": len(runs)}
        found["contenders"][name] = {"summary": summary}
    return found


@unittest.skipIf(nacl is None, "PyNaCl is not installed: run `make setup` and use .venv/bin/python")
class TargetTests(unittest.TestCase):
    sizes = [10_000, 100_000]

    def test_the_first_sync_is_judged_at_the_largest_size_on_cpu(self):
        small = entry(bench_sealed.FIRST_SYNC, 10_000, [sample(1.0, 1.0, 8)], [sample(2.0, 1.0, 8)])
        self.assertIsNone(bench_sealed.judged(small, self.sizes))
        met = entry(bench_sealed.FIRST_SYNC, 100_000, [sample(1.0, 5.0, 17)], [sample(1.3, 9.0, 17)])
        self.assertEqual(bench_sealed.judged(met, self.sizes)[1:], (1.3, "MET"))
        missed = entry(bench_sealed.FIRST_SYNC, 100_000, [sample(1.0, 1.0, 17)], [sample(1.31, 1.0, 17)])
        self.assertEqual(bench_sealed.judged(missed, self.sizes)[2], "MISSED")

    def test_the_push_is_judged_on_wall(self):
        push = entry(bench_sealed.PUSH, 1000, [sample(0.3, 10.0, 49)], [sample(3.0, 10.5, 49)])
        what, r, verdict = bench_sealed.judged(push, self.sizes)
        self.assertIn("wall", what)
        self.assertAlmostEqual(r, 1.05)
        self.assertEqual(verdict, "MET")

    def test_an_idle_run_of_two_requests_misses_however_cheap(self):
        cheap = entry(bench_sealed.AFTER, 10_000, [sample(0.03, 0.1, 1)], [sample(0.03, 0.1, 2)])
        self.assertEqual(bench_sealed.judged(cheap, self.sizes)[2], "MISSED")
        within = entry(bench_sealed.WITHIN, 10_000, [sample(0.03, 0.1, 1)], [sample(0.039, 0.1, 1)])
        self.assertEqual(bench_sealed.judged(within, self.sizes)[2], "MET")
        self.assertIsNone(bench_sealed.judged(entry(bench_sealed.FIRST_AFTER, 10_000, [sample(1, 1, 1)],
                                                    [sample(1, 1, 1)]), self.sizes))

    def test_the_table_shows_both_contenders_their_ratio_and_the_verdict(self):
        results = {"meta": {"sizes": self.sizes}, "notes": ["load average …"], "scenarios": [
            entry(bench_sealed.FIRST_SYNC, 100_000, [sample(0.5, 1.5, 17), sample(0.6, 1.6, 17)],
                  [sample(1.0, 2.5, 17), sample(1.2, 2.7, 17)]),
        ]}
        text = bench_sealed.table(results)
        lines = text.splitlines()
        self.assertIn("sealed/plain", lines[0])
        plain = next(line for line in lines if " plaintext " in line)
        sealed = next(line for line in lines if " sealed " in line)
        self.assertIn("0.550 [0.500–0.600]", plain)
        self.assertRegex(sealed, re.escape("CPU 2.00×"))
        self.assertIn("MISSED", sealed)
        self.assertNotIn("MISSED", plain)
        self.assertEqual(lines[-1], "load average …")


if __name__ == "__main__":
    unittest.main()


@unittest.skipIf(nacl is None, "PyNaCl is not installed: run `make setup` and use .venv/bin/python")
class BuildComparisonTests(unittest.TestCase):
    def test_the_table_gives_each_builds_ratio_and_each_contender_against_the_first_build(self):
        import ab_sealed
        runs = [{"build": b, "contender": c, "cpu_s": cpu}
                for b, c, cpu in [("before", "plaintext", 1.0), ("before", "plaintext", 3.0), ("before", "sealed", 3.0),
                                  ("after", "plaintext", 1.0), ("after", "sealed", 1.5), ("after", "sealed", 2.5)]]
        text = ab_sealed.table({"books": 1000, "rounds": 2, "builds": {"before": "/a", "after": "/b"}, "runs": runs})
        rows = [line for line in text.splitlines() if line.startswith("| before") or line.startswith("| after")]
        self.assertEqual(rows[0], "| before | 2.000 | 3.000 | 1.50× | 1.00× | 1.00× |")
        self.assertEqual(rows[1], "| after | 1.000 | 2.000 | 2.00× | 0.50× | 0.67× |")

    def test_two_named_executables_are_needed(self):
        import ab_sealed
        for argv in (["--build", "a=/bin/true"], ["--build", "a=/bin/true", "--build", "a=/bin/true"],
                     ["--build", "a=/bin/true", "--build", "b=/nonexistent"], ["--build", "/bin/true", "--build", "b=/bin/true"]):
            with self.assertRaises(SystemExit, msg=argv), contextlib.redirect_stderr(io.StringIO()):
                ab_sealed.parse_args([*argv, "--shelf", "/bin/true"])
        self.assertEqual(list(ab_sealed.parse_args(["--build", "a=/bin/true", "--build", "b=/bin/true", "--shelf",
                                                    "/bin/true"]).builds), ["a", "b"])
