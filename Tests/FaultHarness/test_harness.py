"""The convergence harness's own tests: the generator keeps its promises, the checker
catches every kind of divergence, and a run with a divergence injected fails.

Run: python3 -m unittest discover -s Tests/FaultHarness -p 'test_*.py'
(the end-to-end self-tests need the built binaries and .venv; `make harness-test`.)
"""
import os
import pathlib
import subprocess
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from checker import check  # noqa: E402
from generator import EDITABLE_FIELDS, FLAG_FIELD, Parameters, generate  # noqa: E402
from model import Model  # noqa: E402
from shrink import truncated, without, without_empty_epochs  # noqa: E402

ROOT = HERE.parent.parent
SHELF = os.environ.get("SHELF_BINARY", str(ROOT / ".build" / "debug" / "shelf"))
SHELF_SYNC = os.environ.get("SHELF_SYNC_BINARY", str(ROOT / ".build" / "debug" / "shelf-sync"))


# MARK: - Generator

class GeneratorTests(unittest.TestCase):
    def test_a_seed_gives_the_same_history_and_another_seed_another(self):
        p = Parameters(steps=200, devices=3)
        self.assertEqual(generate(7, p), generate(7, p))
        self.assertNotEqual(generate(7, p), generate(8, p))

    def test_a_shorter_run_is_a_prefix_of_a_longer_one(self):
        short, long = generate(5, Parameters(steps=40)), generate(5, Parameters(steps=120))
        self.assertEqual(short[:-1], long[:len(short) - 1])
        self.assertEqual(short[-1], {"op": "barrier", "final": True})

    def test_no_two_devices_write_one_field_in_an_epoch_and_deletes_are_alone(self):
        for seed in range(1, 40):
            history = generate(seed, Parameters(steps=300, devices=3))
            writers, touched, deleted, gone, created = {}, {}, set(), set(), {}
            for action in history:
                if action["op"] == "barrier":
                    gone |= deleted
                    writers, touched, deleted = {}, {}, set()
                    continue
                if action["op"] in ("sync", "chaos", "read", "wipe"):
                    continue
                ref, device = action["ref"], action["device"]
                self.assertNotIn(ref, gone, f"seed {seed}: {action} names a record deleted earlier")
                self.assertNotIn(ref, deleted, f"seed {seed}: {action} after the record's delete")
                book = action.get("fields", {}).get("bookID")
                if book:
                    self.assertNotIn(book, gone | deleted, f"seed {seed}: a note about a deleted book")
                    touched.setdefault(book, set()).add(device)
                touched.setdefault(ref, set()).add(device)
                if action["op"] == "add":
                    created[ref] = device
                elif action["op"] == "edit":
                    for field in action["fields"]:
                        self.assertEqual(writers.setdefault((ref, field), device), device,
                                         f"seed {seed}: two devices write {ref}.{field} in one epoch")
                else:
                    self.assertEqual(touched[ref], {device}, f"seed {seed}: {ref} deleted while another device touched it")
                    deleted.add(ref)

    def test_modes_decide_which_faults_appear(self):
        calm = [a for a in generate(3, Parameters(steps=300, mode="calm")) if a["op"] == "sync"]
        kills = [a for a in generate(3, Parameters(steps=300, mode="kills")) if a["op"] == "sync"]
        faults = [a for a in generate(3, Parameters(steps=300, mode="faults")) if a["op"] == "sync"]
        self.assertFalse(any("kill_after_ms" in a or "fault" in a for a in calm))
        self.assertTrue(any("kill_after_ms" in a for a in kills))
        self.assertFalse(any("fault" in a for a in kills))
        self.assertTrue(any(a.get("fault", {}).get("action") == "lose_reply" for a in faults))
        chaos = [a for a in generate(3, Parameters(steps=300, mode="faults")) if a["op"] == "chaos"]
        self.assertGreater(len(chaos), 1, "every epoch of a faults run has its random faults")
        self.assertFalse(any(a["op"] == "chaos" for a in generate(3, Parameters(steps=300, mode="kills"))))
        faults_history = generate(3, Parameters(steps=500, mode="faults"))
        wipes = [i for i, a in enumerate(faults_history) if a["op"] == "wipe"]
        self.assertTrue(wipes, "a long faults run has the server forget a collection")
        self.assertTrue(all(faults_history[i - 1]["op"] == "barrier" for i in wipes), "wipes come right after a barrier")

    def test_every_kind_of_edit_appears(self):
        history = generate(11, Parameters(steps=400, devices=3))
        ops = {(a["op"], a.get("collection")) for a in history}
        for collection in ("books", "notes", "tasks"):
            self.assertIn(("add", collection), ops)
            self.assertIn(("remove", collection), ops)
        edited = {f for a in history if a["op"] == "edit" for f in a["fields"]}
        self.assertTrue(set(EDITABLE_FIELDS["books"]) | set(EDITABLE_FIELDS["notes"]) | set(FLAG_FIELD.values()) <= edited)
        # Different devices edit different fields of one record within one epoch.
        by_record, disjoint = {}, False
        for action in history:
            if action["op"] == "barrier":
                by_record = {}
            elif action["op"] == "edit":
                seen = by_record.setdefault(action["ref"], {})
                for field in action["fields"]:
                    seen.setdefault(action["device"], set()).add(field)
                disjoint = disjoint or len(seen) > 1
        self.assertTrue(disjoint, "no record had two devices editing disjoint fields in one epoch")


# MARK: - Checker

def _snapshot(books=(), notes=(), tasks=(), pending=0, conflicts=(), failed=()):
    return {"books": list(books), "notes": list(notes), "tasks": list(tasks),
            "status": {"pendingChanges": pending, "conflicts": len(conflicts), "deadLetters": len(failed)},
            "conflicts": list(conflicts), "failed": list(failed)}


BOOK = {"id": "b-1", "title": "Dune", "author": "Frank Herbert", "isFinished": False}
TASK = {"id": "t-1", "title": "Read", "isDone": True}


class CheckerTests(unittest.TestCase):
    def setUp(self):
        self.model = Model()
        self.model.add("books", "b-1", {"title": "Dune", "author": "Frank Herbert"})
        self.model.add("tasks", "t-1", {"title": "Read"})
        self.model.edit("tasks", "t-1", {"isDone": True})
        self.model.add("notes", "n-gone", {"title": "x", "body": "y"})
        self.model.remove("notes", "n-gone")

    def kinds(self, snapshots, server=None):
        findings = check(self.model, snapshots, server)
        return {k for k, v in findings.counts.items() if v}

    def test_devices_equal_to_the_model_pass(self):
        good = _snapshot([BOOK], tasks=[TASK])
        self.assertEqual(self.kinds({0: good, 1: good}, server=good), set())

    def test_a_missing_record_a_wrong_field_and_an_extra_record(self):
        self.assertIn("missing_edits", self.kinds({0: _snapshot([BOOK])}))
        self.assertIn("wrong_fields", self.kinds({0: _snapshot([BOOK], tasks=[dict(TASK, isDone=False)])}))
        extra = {"id": "t-9", "title": "nobody wrote this", "isDone": False}
        self.assertIn("extra_records", self.kinds({0: _snapshot([BOOK], tasks=[TASK, extra])}))

    def test_a_deleted_record_that_is_back(self):
        back = {"id": "n-gone", "title": "x", "body": "y", "bookID": None}
        self.assertIn("resurrected_deletes", self.kinds({0: _snapshot([BOOK], [back], [TASK])}))

    def test_duplicates_by_id_and_by_content(self):
        self.assertIn("duplicate_records", self.kinds({0: _snapshot([BOOK, BOOK], tasks=[TASK])}))
        copy = dict(BOOK, id="b-2")
        self.assertIn("duplicate_records", self.kinds({0: _snapshot([BOOK, copy], tasks=[TASK])}))

    def test_conflicts_dead_letters_and_pending_changes(self):
        conflict = {"collection": "books", "id": "b-1", "fields": ["title"]}
        failed = {"collection": "books", "recordID": "b-1", "change": "update", "status": 400, "reason": "bad"}
        self.assertIn("false_conflicts", self.kinds({0: _snapshot([BOOK], tasks=[TASK], conflicts=[conflict])}))
        self.assertIn("dead_letters", self.kinds({0: _snapshot([BOOK], tasks=[TASK], failed=[failed])}))
        self.assertIn("pending", self.kinds({0: _snapshot([BOOK], tasks=[TASK], pending=2)}))

    def test_devices_that_disagree(self):
        other = _snapshot([dict(BOOK, title="Dune!")], tasks=[TASK])
        self.assertIn("devices_differ", self.kinds({0: _snapshot([BOOK], tasks=[TASK]), 1: other}))

    def test_the_server_is_checked_too(self):
        good = _snapshot([BOOK], tasks=[TASK])
        self.assertIn("missing_edits", self.kinds({0: good}, server=_snapshot(tasks=[TASK])))

    def test_every_corruption_of_the_model_is_caught(self):
        good = _snapshot([BOOK], tasks=[TASK])
        for kind, expected in (("missing", "missing_edits"), ("extra", "extra_records"),
                               ("wrong", "wrong_fields"), ("resurrected", "resurrected_deletes")):
            self.setUp()
            self.model.corrupt(kind)
            self.assertIn(expected, self.kinds({0: good, 1: good}), kind)


# MARK: - Read your writes

class _FakeResult:
    def __init__(self, payload):
        self.status, self.seconds, self.payload = 0, 0.01, payload

    def json(self):
        return self.payload


class _FakeDevice:
    """A device whose `shelf --json COLLECTION` prints `listing`."""

    def __init__(self, listing):
        self.index, self.listing = 0, listing

    def shelf_command(self, *argv):
        return _FakeResult({argv[-1]: self.listing})


class ReadYourWritesTests(unittest.TestCase):
    def read(self, own_writes, listing):
        from driver import Driver, RunStats, _RunState
        from checker import Findings
        state = _RunState(Model(), RunStats(), Findings(), [], "u", "p")
        state.own_writes = {0: own_writes}
        Driver(None, "shelf", "shelf-sync")._read(state, _FakeDevice(listing), "books")
        return {k for k, v in state.findings.counts.items() if v}

    def test_a_device_sees_what_it_wrote(self):
        self.assertEqual(self.read({("books", "b-1"): {"title": "Dune"}}, [BOOK]), set())

    def test_a_reverted_field_a_lost_record_and_a_deleted_one_that_is_back(self):
        self.assertEqual(self.read({("books", "b-1"): {"title": "Dune II"}}, [BOOK]), {"wrong_fields"})
        self.assertEqual(self.read({("books", "b-1"): {"title": "Dune"}}, []), {"missing_edits"})
        self.assertEqual(self.read({("books", "b-1"): None}, [BOOK]), {"resurrected_deletes"})


# MARK: - Shrinking

class ShrinkTests(unittest.TestCase):
    def test_removing_an_add_removes_what_names_the_record(self):
        history = [
            {"op": "add", "device": 0, "collection": "books", "ref": "b0", "fields": {}},
            {"op": "add", "device": 0, "collection": "notes", "ref": "n1", "fields": {"bookID": "b0"}},
            {"op": "edit", "device": 1, "collection": "notes", "ref": "n1", "fields": {"title": "t"}},
            {"op": "sync", "device": 0},
            {"op": "barrier", "final": True},
        ]
        self.assertEqual(without(history, {0}), history[3:])
        self.assertEqual(truncated(history, 2), history[:2] + [{"op": "barrier", "final": True}])

    def test_empty_epochs_go_the_final_barrier_stays(self):
        sync = {"op": "sync", "device": 0}
        history = [{"op": "barrier"}, sync, {"op": "barrier"}, {"op": "barrier"}, {"op": "barrier", "final": True}]
        self.assertEqual(without_empty_epochs(history), [sync, {"op": "barrier"}, {"op": "barrier", "final": True}])


# MARK: - End to end

def _binaries_built():
    return os.access(SHELF, os.X_OK) and os.access(SHELF_SYNC, os.X_OK) and os.access(
        ROOT / ".venv" / "bin" / "python", os.X_OK)


def _harness(*argv):
    return subprocess.run([sys.executable, str(HERE / "harness.py"), "--shelf", SHELF, "--shelf-sync", SHELF_SYNC,
                           "--save-dir", os.environ.get("TMPDIR", "/tmp") + "/shelf-harness-selftest", *argv],
                          capture_output=True, text=True, timeout=600)


@unittest.skipUnless(_binaries_built(), "needs .build/debug/shelf, shelf-sync and .venv (make build setup)")
class SelfTests(unittest.TestCase):
    """The harness fails when the data diverged: a checker that cannot fail is worthless."""

    def test_a_device_that_diverged_after_the_last_barrier_fails_the_run(self):
        run = _harness("--mode", "calm", "--seed", "1", "--steps", "12", "--latency-ms", "5",
                       "--inject-divergence", "local-edit")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("[devices_differ]", run.stdout)
        self.assertIn("[pending] device 0: 1 change(s) still pending", run.stdout)
        self.assertIn("make soak SEED=1 STEPS=12", run.stdout)

    def test_a_model_that_expects_an_edit_nobody_made_fails_the_run(self):
        run = _harness("--mode", "calm", "--seed", "2", "--steps", "12", "--latency-ms", "5",
                       "--inject-divergence", "wrong")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("[wrong_fields] device 0:", run.stdout)
        self.assertIn("[wrong_fields] server:", run.stdout)


if __name__ == "__main__":
    unittest.main()
