"""Tests of the scale curve's pieces: the SVG writer, the like-for-like storage
contender (row by row against a store Shelf wrote), the targets, and a whole
`bench_scale.py` run with the stand-in Shelf.

    make bench-test      (or: .venv/bin/python -m unittest discover -s Benchmarks/tests)

The comparison with Shelf runs the release `shelf-json-throughput` (`make bench-test`
builds it; SHELF_JSON_THROUGHPUT=PATH picks another build).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
BENCH = HERE.parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import late_commits  # noqa: E402
import scale  # noqa: E402
import seeding  # noqa: E402
import storage_race  # noqa: E402
import svg_plot  # noqa: E402

SHELF_JSON = pathlib.Path(os.environ.get("SHELF_JSON_THROUGHPUT", ROOT / ".build" / "release" / "shelf-json-throughput"))
SVG = "{http://www.w3.org/2000/svg}"


def kinto_page(records: list[dict]) -> bytes:
    """A list page serialised as Kinto serialises it (rapidjson: `\\u00E9` escapes, no spaces)."""
    try:
        import rapidjson
    except ImportError:  # outside .venv: the standard library's escapes are lower-case
        return json.dumps({"data": records}, separators=(",", ":")).encode()
    return rapidjson.dumps({"data": records}).encode()


def sample_records() -> list[dict]:
    """Generated books plus the awkward cases the derived columns must agree on."""
    records = seeding.BookGenerator(seed=16).books(2000)
    for index, record in enumerate(records):
        record["last_modified"] = 1_700_000_000_000 + index
    records += [
        {"id": "folding", "title": "ＦＵＬＬ ｗｉｄｔｈ Ǆ ﬁ Straße İstanbul ŁÓDŹ Ngũgĩ", "author_name": "Brontë",
         "finished": True, "last_modified": 5},
        {"id": "not-a-bool", "title": 42, "finished": "yes", "last_modified": 6},
        {"id": "no-fields", "last_modified": 7},
        {"id": "nested", "title": "A \"quoted\" \\ title\twith\ncontrol", "author_name": "x",
         "finished": False, "extra": {"list": [1, 2.5, None, "é"]}, "last_modified": 8},
        {"id": "gone", "last_modified": 9, "deleted": True},
    ]
    return records


# MARK: - SVG writer

class SVGTests(unittest.TestCase):
    def test_axes_ticks_and_labels(self):
        self.assertEqual(svg_plot.log_ticks(10_000, 1_000_000), [1e4, 1e5, 1e6])
        self.assertEqual(svg_plot.log_ticks(20_000, 100_000), [1e4, 1e5])
        self.assertEqual(svg_plot.log_ticks(100_000, 100_000), [1e5, 1e6])
        self.assertRaises(ValueError, svg_plot.log_ticks, 0, 10)
        self.assertEqual(svg_plot.linear_ticks(9.3), [0, 2, 4, 6, 8, 10])
        self.assertEqual(svg_plot.linear_ticks(0.42), [0, 0.1, 0.2, 0.3, 0.4, 0.5])
        self.assertEqual([svg_plot.human(v) for v in (1e4, 1e6, 2.5e5, 0.25, 3)], ["10k", "1M", "250k", "0.25", "3"])

    def test_series_are_drawn_on_a_log_x_axis(self):
        panel = svg_plot.Panel("wall", "s", [svg_plot.Series("Shelf <fast> & small", [(1e6, 30.0), (1e4, 0.3), (1e5, 3.0)]),
                                             svg_plot.Series("peer", [(1e4, 1.0), (1e5, 10.0)])])
        text = svg_plot.figure("curve", [panel, svg_plot.Panel("empty", "MB")])
        root = ET.fromstring(text)  # well-formed, names escaped
        lines = root.findall(f"{SVG}polyline")
        self.assertEqual([line.get("data-name") for line in lines], ["Shelf <fast> & small", "peer"])
        points = [tuple(map(float, p.split(","))) for p in lines[0].get("points").split()]
        xs = [x for x, _ in points]
        self.assertEqual(xs, sorted(xs), "points in order of records")
        # Each decade is the same width on a log axis.
        self.assertAlmostEqual(xs[1] - xs[0], xs[2] - xs[1], places=1)
        ys = [y for _, y in points]
        self.assertGreater(ys[0], ys[1])  # SVG's y grows downwards: more time is higher up
        labels = [t.text for t in root.iter(f"{SVG}text")]
        for expected in ("10k", "100k", "1M", "records (log scale)", "no data", "Shelf <fast> & small"):
            self.assertIn(expected, labels)
        self.assertIn('height="630"', text)  # title strip plus two panels

    def test_the_scale_plot_has_a_line_per_contender(self):
        text = scale.plot(synthetic_results())
        root = ET.fromstring(text)
        names = [line.get("data-name") for line in root.findall(f"{SVG}polyline")]
        # wall, RSS and CPU per record for each of the three contenders
        self.assertEqual(len(names), 9)
        self.assertEqual(set(names), {"Shelf", "kinto-http (peer)", "curl (floor)"})


# MARK: - Targets and table

def first_sync(size: int, rows: dict) -> dict:
    entry = {"scenario": "first_sync", "label": f"1 first sync {size}", "size": size, "kind": "process",
             "contenders": {}}
    for name, (wall, cpu, rss_mb, requests) in rows.items():
        summary = {"runs": 1, "failed": 0, "wall_s": _one(wall), "cpu_s": _one(cpu),
                   "maxrss_kb": _one(rss_mb * 1024), "requests": _one(requests),
                   "cpu_us_per_record": cpu / size * 1e6}
        entry["contenders"][name] = {"summary": summary, "samples": []}
    return entry


def _one(value: float) -> dict:
    return {"median": value, "min": value, "max": value, "n": 1}


def synthetic_results(shelf_cpu_1m: float = 12.0, shelf_rss_1m: float = 40.0, idle=(0.05, 1)) -> dict:
    scenarios = [
        first_sync(10_000, {"peer": (1.0, 0.8, 60, 6), "curl": (0.3, 0.05, 8, 6), "shelf": (0.4, 0.1, 20, 6)}),
        first_sync(100_000, {"peer": (9.0, 7.0, 400, 15), "curl": (2.0, 0.4, 8, 15), "shelf": (2.5, 1.0, 30, 15)}),
        first_sync(1_000_000, {"peer": (95.0, 70.0, 3900, 105), "curl": (20.0, 4.0, 8, 105),
                               "shelf": (25.0, shelf_cpu_1m, shelf_rss_1m, 105)}),
        {"scenario": "no_change", "label": "2 nothing changed", "size": 1_000_000, "kind": "process",
         "contenders": {"shelf": {"summary": {"wall_s": _one(idle[0]), "requests": _one(idle[1])}}}},
    ]
    return {"meta": {"sizes": [10_000, 100_000, 1_000_000], "machine": {"commit": "abc", "load_average_at_start": [1, 1, 1]}},
            "scenarios": scenarios, "notes": []}


class TargetTests(unittest.TestCase):
    def verdicts(self, results: dict) -> list:
        return [t["met"] for t in scale.targets(results)]

    def test_targets_met(self):
        # CPU per record 10 µs at 10k and 12 µs at 1M: 1.2×; RSS 40/30 = 1.33×; idle 1 request, 50 ms.
        self.assertEqual(self.verdicts(synthetic_results()), [True, True, True])

    def test_targets_missed(self):
        results = synthetic_results(shelf_cpu_1m=14.0, shelf_rss_1m=46.0, idle=(0.05, 5))
        self.assertEqual(self.verdicts(results), [False, False, False])
        texts = [t["text"] for t in scale.targets(results)]
        self.assertEqual(texts[0], "14.00 µs / 10.00 µs = 1.40×")
        self.assertEqual(texts[1], "46.0 MB / 30.0 MB = 1.53×")
        self.assertEqual(self.verdicts(synthetic_results(idle=(0.1, 1)))[2], False)  # 100 ms is not < 100 ms

    def test_searches_are_judged_where_measured(self):
        results = synthetic_results()
        search = {"scenario": "search", "label": "4 books --search ursula (100k)", "size": 100_000, "kind": "process",
                  "contenders": {"unlimited": {"summary": {"wall_s": _one(0.045)}},
                                 "--limit 50": {"summary": {"wall_s": _one(0.021)}}}}
        results["scenarios"].append(search)
        found = scale.targets(results)[3:]
        self.assertEqual([(t["met"], t["text"]) for t in found], [(True, "45.0 ms"), (False, "21.0 ms")])
        self.assertIn("< 50 ms", found[0]["target"])

    def test_one_size_says_what_it_cannot_judge(self):
        results = synthetic_results()
        results["meta"]["sizes"] = [10_000]
        self.assertEqual(self.verdicts(results)[:2], [None, None])

    def test_table_shows_per_record_figures_and_verdicts(self):
        results = synthetic_results()
        for entry in results["scenarios"]:
            if entry["scenario"] == "first_sync":
                scale.add_ratios(entry)
        results["targets"] = scale.targets(results)
        text = scale.scale_table(results)
        self.assertRegex(text, r"1M\s+Shelf\s+25\.00 s\s+12\.00 s\s+12\.00 µs\s+40\.0 MB\s+105\s+0\.26×")
        self.assertIn("— MET", text)


# MARK: - Reconciliation and late commits

def shelf_report(books: dict, requests: int = 9) -> dict:
    """A `shelf-sync --report` file's shape (Apps/shelf-sync/README.md)."""
    return {"started_at": "2026-12-01T10:00:00Z", "exit_code": 0, "accounts": [
        {"account": "bench-100000", "outcome": "synced", "requests": requests, "duration_ms": 100,
         "collections": {"books": books, "notes": {"pulled": 0, "late": 0}}}]}


def reconciled(**figures) -> dict:
    found = {"listed": 100_000, "listed_bytes": 6_100_000, "fetched": 0, "deleted": 0, "absent": 0,
             "requests": 11, "duration_ms": 900}
    found.update(figures)
    return {"pulled": found["fetched"], "late": found["fetched"], "deleted_locally": 0, "reconciliation": found}


class LateCommitTests(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="late-commits-test-"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_late_books_are_new_books_shaped_like_the_seeded_ones(self):
        books = late_commits.late_books(50, seed=100_050)
        self.assertEqual(len({b["id"] for b in books}), 50)
        self.assertEqual(books, late_commits.late_books(50, seed=100_050))  # deterministic
        seeded = {b["id"] for b in seeding.BookGenerator(seed=100_000).books(1000)}
        self.assertFalse(seeded & {b["id"] for b in books})
        self.assertEqual(set(books[0]), {"id", "title", "author_name", "finished", "description"})

    def test_insert_script_keeps_explicit_stamps_behind_the_cursor(self):
        books = [{"id": "a-1", "title": "It's", "author_name": "Ngũgĩ wa Thiong'o", "finished": False},
                 {"id": "b'2", "title": "B", "author_name": "x", "finished": True}]
        sql = late_commits.late_insert_sql("/buckets/abc/collections/books", "record", books, 1_700_000_000_000)
        self.assertTrue(sql.startswith("BEGIN;\n") and sql.rstrip().endswith("COMMIT;"))
        self.assertNotIn("session_replication_role", sql)  # the trigger runs, as for any write
        self.assertIn("generate_series(1699999990000::bigint, 1700000000000::bigint)", sql)
        self.assertIn("ORDER BY c DESC", sql)  # the newest free stamps at or before the bound
        self.assertIn("o.parent_id = '/buckets/abc/collections/books' AND o.resource_name = 'record'", sql)
        self.assertIn("(2, 'b''2', ", sql)  # quotes doubled
        self.assertIn("Thiong''o", sql)
        self.assertNotIn('"id"', sql)  # data holds the record without its id, as Kinto stores it
        self.assertIn("RETURNING id, as_epoch(last_modified);", sql)
        self.assertRaises(ValueError, late_commits.late_insert_sql, "/p", "record", [], 10 ** 12)
        self.assertRaises(ValueError, late_commits.late_insert_sql, "/p", "record", books, 5)

    def test_inserted_rows_are_read_from_psql(self):
        self.assertEqual(late_commits.parse_inserted("a-1|1699999999999\nb|2|1699999999998\n\nnoise\n"),
                         {"a-1": 1699999999999, "b|2": 1699999999998})
        self.assertEqual(late_commits.parse_inserted(""), {})

    def test_report_figures_of_one_collection(self):
        figures = late_commits.collection_figures(shelf_report(reconciled(fetched=50)))
        self.assertEqual(figures["reconciliation"]["fetched"], 50)
        self.assertEqual(figures["late"], 50)
        self.assertEqual(figures["run_requests"], 9)
        self.assertNotIn("reconciliation", late_commits.collection_figures(shelf_report({"pulled": 3, "late": 0})))
        for bad in (None, {}, {"accounts": []}, shelf_report({"pulled": 1})["accounts"][0] | {"collections": {}}):
            self.assertIsNone(late_commits.collection_figures(bad))

    def test_medians_over_runs(self):
        runs = [late_commits.collection_figures(shelf_report(reconciled(duration_ms=d), requests=r))
                for d, r in ((900, 9), (1200, 9), (1000, 12))]
        merged = late_commits.median_figures(runs)
        self.assertEqual(merged["reconciliation"]["duration_ms"], 1000)
        self.assertEqual(merged["run_requests"], 9)
        self.assertEqual(late_commits.median_figures([]), {})

    def test_checks(self):
        unchanged = late_commits.collection_figures(shelf_report(reconciled()))
        self.assertEqual(late_commits.unchanged_problems(unchanged, 100_000), [])
        self.assertEqual(late_commits.unchanged_problems(unchanged, 100_050), ["listed = 100000, expected 100050"])
        self.assertEqual(late_commits.unchanged_problems(unchanged, 100_050, whole=False), [])
        self.assertEqual(late_commits.unchanged_problems(unchanged, 99_000, whole=False),
                         ["listed = 100000, expected at most 99000"])
        absent = late_commits.collection_figures(shelf_report(reconciled(absent=2, fetched=1)))
        self.assertEqual(late_commits.unchanged_problems(absent, 100_000),
                         ["fetched = 1, expected 0", "absent = 2, expected 0"])
        plain = late_commits.collection_figures(shelf_report({"pulled": 0, "late": 0}))
        self.assertEqual(late_commits.unchanged_problems(plain, 1), ["the report has no reconciliation for books"])
        self.assertEqual(late_commits.late_sync_problems(plain, 0), [])
        self.assertEqual(late_commits.late_sync_problems(plain, 3), ["the store holds 3 of the late records, expected 0"])
        self.assertEqual(late_commits.late_sync_problems(unchanged, 0), ["a plain sync reconciled"])
        found = late_commits.collection_figures(shelf_report(reconciled(fetched=50)))
        self.assertEqual(late_commits.late_reconcile_problems(found, 50, 50), [])
        self.assertEqual(late_commits.late_reconcile_problems(found, 49, 50), ["the store holds 49 of the 50 late records"])
        self.assertEqual(late_commits.late_reconcile_problems(unchanged, 0, 50),
                         ["fetched = 0, expected 50", "the store holds 0 of the 50 late records"])

    def test_the_devices_store_is_read_for_ids_and_cursor(self):
        folder = self.tmp / "data" / "shelf"
        self.assertIsNone(late_commits.stored_ids(self.tmp, ["a"]))
        self.assertIsNone(late_commits.device_cursor(self.tmp))
        folder.mkdir(parents=True)
        db = sqlite3.connect(folder / "bench.sqlite")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE records (collection TEXT, id TEXT, json BLOB, last_modified INTEGER)")
        db.execute("CREATE TABLE sync_state (collection TEXT PRIMARY KEY, cursor INTEGER)")
        db.executemany("INSERT INTO records VALUES (?, ?, '{}', 1)", [("books", "a"), ("books", "b"), ("notes", "c")])
        db.executemany("INSERT INTO sync_state VALUES (?, ?)", [("books", 1_700_000_000_123), ("notes", None)])
        db.commit()
        self.assertEqual(late_commits.stored_ids(self.tmp, ["a", "b", "c", "z"]), 2)
        self.assertEqual(late_commits.device_cursor(self.tmp), 1_700_000_000_123)
        self.assertIsNone(late_commits.device_cursor(self.tmp, "notes"))
        db.close()

    def test_table_rows_for_the_window_and_reconciliation(self):
        results = synthetic_results()

        def row(wall, requests, kb, figures, runs=3, errors=None):
            summary = {"runs": runs, "failed": 1 if errors else 0, "wall_s": _one(wall), "cpu_s": _one(wall / 2),
                       "requests": _one(requests), "bytes_down": _one(kb * 1024)}
            found = {"summary": summary, "samples": [], "figures": figures, "load_1m": {"min": 6.2, "max": 8.0}}
            if errors:
                found["errors"] = errors
            return found

        results["scenarios"] += [
            {"scenario": "commit_window", "label": "2b", "size": 1_000_000, "kind": "process", "contenders": {
                scale.WITHIN_WINDOW: row(0.2, 1, 45, {"pulled": 0, "late": 0}),
                scale.AFTER_WINDOW: row(0.05, 1, 3, {"pulled": 0, "late": 0})}},
            {"scenario": "reconcile", "label": "5", "size": 1_000_000, "kind": "process", "contenders": {
                scale.RECONCILE_WHOLE: dict(row(30.0, 108, 62_000, late_commits.collection_figures(
                    shelf_report(reconciled(listed=1_000_000, listed_bytes=61_000_000)))),
                    server_cpu_s={"median": 22.0, "min": 21.0, "max": 23.0, "n": 3}),
                scale.RECONCILE_UNCHANGED: row(0.9, 1, 420, late_commits.collection_figures(
                    shelf_report(reconciled(listed=5_180, listed_bytes=388_000, ranges_counted=16, ranges_differing=0,
                                            ranges_listed=2)))),
                scale.LATE_SYNC: {"skipped": "inserted 0 of 50"},
                scale.LATE_RECONCILE: row(31.0, 109, 62_100, late_commits.collection_figures(
                    shelf_report(reconciled(fetched=50))), runs=1, errors=["fetched = 49, expected 50"])},
             "late_insert": {"device_cursor": 1_700_000_600_000, "stamps": [1_699_999_999_951, 1_700_000_000_000],
                             "inserted": 50, "server_newest_after": 1_700_000_600_000},
             "checks": {"shelf_books": {"checked": True, "books": 1_000_050, "expected": 1_000_050, "ok": True}}},
        ]
        text = scale.scale_table(results)
        self.assertRegex(text, r"1M\s+idle, within the window\s+200\.0 ms\s+100\.0 ms\s+—\s+1\s+45\s+—.*3/3\s+6\.2–8\.0\s+ok")
        self.assertRegex(text, r"1M\s+reconcile, whole list\s+30\.00 s\s+15\.00 s\s+22\.00 s\s+108\s+62000\s+—\s+1000000\s+59570\s+0\s+0\s+0")
        self.assertRegex(text, r"1M\s+reconcile by ranges, nothing changed\s+900\.0 ms\s+450\.0 ms\s+—\s+1\s+420\s+16/0/2\s+5180\s+379\s+0\s+0\s+0")
        self.assertRegex(text, r"sync after 50 late commits\s+skipped: inserted 0 of 50")
        self.assertRegex(text, r"reconcile after 50 late commits .* 50 .*0/1 .* FAILED: fetched = 49, expected 50")
        self.assertIn("1M: 50 books written into PostgreSQL stamped 600–600 s behind the device's cursor", text)
        self.assertIn("lists 1000050 books after the reconciliation (expected 1000050): ok", text)
        self.assertEqual(scale.reconciliation_lines(synthetic_results()), [])


# MARK: - The storage race

class StorageRaceTests(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="storage-race-test-"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_page_scanner_keeps_each_records_text(self):
        text = ' { "next" : null , "data" : [ {"id":"a","last_modified":1} ,\n{"id": "b", "x": [1, {"y": "]}"}],"last_modified":2} ] } '
        records = storage_race.scan_page(text)
        self.assertEqual([r["id"] for r, _ in records], ["a", "b"])
        self.assertEqual(records[1][1], '{"id": "b", "x": [1, {"y": "]}"}],"last_modified":2}')
        self.assertEqual(storage_race.scan_page('{"data":[]}'), [])
        for bad in ('{"data":[1]}', '{"data":[{"id":"a"}', '{"other":1}', '{}', '[]', '{"data":[]} x'):
            with self.subTest(bad=bad):
                self.assertRaises(ValueError, storage_race.scan_page, bad)

    def test_folding_follows_foundation(self):
        # Figures from Shelf's store for the same text (test_rows_equal_shelfs checks them in place).
        self.assertEqual(storage_race.fold("Gabriel García Márquez"), "gabriel garcia marquez")
        self.assertEqual(storage_race.fold("ＦＵＬＬ Ǆ ﬁ Straße İstanbul ŁÓDŹ"), "full ǆ fi strasse istanbul łodz")

    def test_a_later_page_replaces_deletes_and_leaves_waiting_changes_alone(self):
        db = storage_race.open_store(self.tmp / "store.sqlite")
        first = [{"id": i, "title": f"Title {i}", "author_name": "A", "finished": False, "last_modified": n}
                 for n, i in enumerate(("a", "b", "c"), start=10)]
        self.assertEqual(storage_race.apply_page(db, kinto_page(first)), 3)
        db.execute("INSERT INTO outbox (collection, record_id, kind, base_last_modified, created_at, updated_at) "
                   "VALUES ('books', 'c', 'update', 12, 0, 0)")
        second = [{"id": "a", "title": "New", "finished": True, "last_modified": 20},
                  {"id": "b", "deleted": True, "last_modified": 21},
                  {"id": "c", "title": "Server", "last_modified": 22}]
        self.assertEqual(storage_race.apply_page(db, kinto_page(second)), 2)
        rows = db.execute("SELECT id, sort_key, complete, last_modified FROM records ORDER BY id").fetchall()
        self.assertEqual(rows, [("a", "new\x1f", 1, 20), ("c", "title c\x1fa", 0, 12)])
        self.assertEqual(db.execute("SELECT cursor FROM sync_state").fetchall(), [(22,)])

    def test_a_bad_page_stores_nothing(self):
        db = storage_race.open_store(self.tmp / "store.sqlite")
        self.assertRaises(ValueError, storage_race.apply_page, db, b'{"data":[{"id":1,"last_modified":1}]}')
        self.assertEqual(db.execute("SELECT count(*) FROM records").fetchone(), (0,))
        self.assertFalse(db.in_transaction)

    def test_throughput_output_follows_the_contract(self):
        page = self.tmp / "page.json"
        page.write_bytes(kinto_page(sample_records()[:500]))
        out = subprocess.run([sys.executable, str(BENCH / "storage_race.py"), str(page), "--repeat", "2"],
                             capture_output=True, text=True, check=True).stdout
        self.assertRegex(out.splitlines()[-1], r"^bytes to stored records \(like for like\): [0-9.]+ MB/s$")
        self.assertIn("records: 500, stored: 500", out)

    @unittest.skipUnless(SHELF_JSON.is_file(), f"needs {SHELF_JSON} (make bench-test builds it)")
    def test_rows_equal_shelfs(self):
        """The same page through Shelf and through storage_race.py: the same store, row by row."""
        page = self.tmp / "page.json"
        page.write_bytes(kinto_page(sample_records()))
        shelf, python = self.tmp / "shelf.sqlite", self.tmp / "python.sqlite"
        subprocess.run([str(SHELF_JSON), str(page), "--write-store", str(shelf)], check=True, capture_output=True)
        subprocess.run([sys.executable, str(BENCH / "storage_race.py"), str(page), "--write-store", str(python)],
                       check=True, capture_output=True)
        a, b = sqlite3.connect(shelf), sqlite3.connect(python)
        queries = {
            "records": "SELECT collection, id, json, typeof(json), last_modified, deleted, sort_key, search_text, "
                       "complete, typeof(complete) FROM records ORDER BY collection, id",
            "schema": "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name",
            "sync_state": "SELECT * FROM sync_state",
            "other tables": "SELECT (SELECT count(*) FROM base_snapshots), (SELECT count(*) FROM outbox), "
                            "(SELECT count(*) FROM conflicts), (SELECT count(*) FROM dead_letters)",
            "user_version": "PRAGMA user_version",
            "journal_mode": "PRAGMA journal_mode",
        }
        for what, sql in queries.items():
            with self.subTest(what=what):
                expected, found = a.execute(sql).fetchall(), b.execute(sql).fetchall()
                self.assertEqual(len(expected), len(found))
                for row_a, row_b in zip(expected, found):
                    self.assertEqual(row_a, row_b)
        stored = a.execute("SELECT count(*) FROM records").fetchone()[0]
        self.assertEqual(stored, len(sample_records()) - 1)  # the tombstone is not stored
        folded = a.execute("SELECT sort_key FROM records WHERE id = 'folding'").fetchone()[0]
        self.assertEqual(folded.split("\x1f")[0], storage_race.fold("ＦＵＬＬ ｗｉｄｔｈ Ǆ ﬁ Straße İstanbul ŁÓDŹ Ngũgĩ"))


# MARK: - A whole scale run

@unittest.skipUnless(shutil.which("curl") and pathlib.Path(ROOT / ".venv" / "bin" / "kinto").exists()
                     and list(pathlib.Path("/usr/lib/postgresql").glob("*/bin/initdb")),
                     "needs make bench-setup (PostgreSQL, Kinto in .venv, curl)")
class ScaleRunTests(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-scale-test-"))
        for name in ("shelf-sync", "shelf"):
            (self.tmp / name).symlink_to(HERE / "fake_shelf.py")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_two_sizes_give_a_curve_a_plot_and_verdicts(self):
        results = self.tmp / "results"
        argv = [sys.executable, str(BENCH / "bench_scale.py"), "--sizes", "10000,20000", "--runs", "1",
                "--read-runs", "2", "--shelf-sync", str(self.tmp / "shelf-sync"), "--shelf", str(self.tmp / "shelf"),
                "--swift-json", str(BENCH / "json_throughput.py"), "--results", str(results), "--delta-records", "20",
                "--window-wait", "1"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        data = json.loads((results / "scale-latest.json").read_text())
        firsts = {e["size"]: e for e in data["scenarios"] if e["scenario"] == "first_sync"}
        self.assertEqual(sorted(firsts), [10_000, 20_000])
        for size, entry in firsts.items():
            for name in ("peer", "curl", "shelf"):
                summary = entry["contenders"][name]["summary"]
                self.assertEqual(summary["failed"], 0, (size, name, entry["contenders"][name].get("errors")))
                self.assertGreater(summary["cpu_us_per_record"], 0)
                self.assertGreater(summary["requests"]["median"], 0)  # every run counted by the proxy
            self.assertTrue(entry["checks"]["shelf_books"]["ok"])
        kinds = [(e["scenario"], e.get("size")) for e in data["scenarios"]]
        for size in (10_000, 20_000):
            self.assertIn(("no_change", size), kinds)
            self.assertIn(("delta", size), kinds)
            self.assertIn(("search", size), kinds)
        search = [e for e in data["scenarios"] if e["scenario"] == "search" and e["size"] == 20_000][0]
        self.assertEqual(search["contenders"]["--limit 50"]["output_lines"], 50)  # the stand-in has --limit
        self.assertGreater(search["contenders"]["unlimited"]["output_lines"], 50)
        for size in (10_000, 20_000):
            window = [e for e in data["scenarios"] if e["scenario"] == "commit_window" and e["size"] == size][0]
            self.assertEqual(list(window["contenders"]), [scale.WITHIN_WINDOW, scale.FIRST_AFTER_WINDOW, scale.AFTER_WINDOW])
            for name, row in window["contenders"].items():
                self.assertEqual(row["summary"]["failed"], 0, (size, name, row.get("errors")))
                self.assertGreater(row["summary"]["requests"]["median"], 0)
            rec = [e for e in data["scenarios"] if e["scenario"] == "reconcile" and e["size"] == size][0]
            for name, row in rec["contenders"].items():
                self.assertEqual(row["summary"]["failed"], 0, (size, name, row.get("errors")))
            whole = rec["contenders"][scale.RECONCILE_WHOLE]["figures"]["reconciliation"]
            self.assertEqual((whole["listed"], whole["fetched"], whole["absent"]), (size, 0, 0))
            unchanged = rec["contenders"][scale.RECONCILE_UNCHANGED]["figures"]["reconciliation"]
            self.assertEqual((unchanged["fetched"], unchanged["absent"]), (0, 0))
            scattered = rec["contenders"][scale.SCATTERED_RECONCILE]
            self.assertEqual(scattered["figures"]["reconciliation"]["fetched"], 50)
            self.assertEqual(scattered["samples"][0]["late_stored"], 50)
            self.assertEqual(rec["contenders"][scale.LATE_SYNC]["samples"][0]["late_stored"], 0)
            late = rec["contenders"][scale.LATE_RECONCILE]
            self.assertEqual(late["figures"]["reconciliation"]["fetched"], 50)
            self.assertEqual(late["samples"][0]["late_stored"], 50)
            self.assertEqual(rec["late_insert"]["inserted"], 50)
            self.assertEqual(rec["late_insert"]["server_newest"], rec["late_insert"]["server_newest_after"])
            self.assertLessEqual(rec["late_insert"]["stamps"][1],
                                 rec["late_insert"]["device_cursor"] - late_commits.LATE_BEHIND_MS)
            self.assertTrue(rec["checks"]["shelf_books"]["ok"], rec["checks"])
        self.assertIn("reconcile after 50 late commits", proc.stdout)
        self.assertEqual(len(data["targets"]), 3)
        json_entry = [e for e in data["scenarios"] if e["scenario"] == "json"][0]
        self.assertIn("mb_per_s", json_entry["contenders"]["python storage"])
        self.assertIn("swift_vs_python_storage", json_entry)
        ET.fromstring((results / "scale.svg").read_text())
        self.assertTrue(re.search(r"target: Shelf CPU per record flat", proc.stdout), proc.stdout)
        self.assertIn("20k", proc.stdout)


if __name__ == "__main__":
    unittest.main()
