"""The convergence harness's own tests: the generator keeps its promises, the checker
catches every kind of divergence, and a run with a divergence injected fails.

Run: python3 -m unittest discover -s Tests/FaultHarness -p 'test_*.py'
(the end-to-end self-tests need the built binaries and .venv; `make harness-test`.)
"""
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from checker import check  # noqa: E402
from generator import EDITABLE_FIELDS, FLAG_FIELD, OPERATOR_MIX, Parameters, flattened, generate  # noqa: E402
from hostile import FORGE_MARKER, HostileOperator, OperatorLedger, keyring_digest  # noqa: E402
from model import Model  # noqa: E402
from scenario_concurrent import row_line, tally  # noqa: E402
from shrink import truncated, without, without_empty_epochs  # noqa: E402

ROOT = HERE.parent.parent
SHELF = os.environ.get("SHELF_BINARY", str(ROOT / ".build" / "debug" / "shelf"))
SHELF_SYNC = os.environ.get("SHELF_SYNC_BINARY", str(ROOT / ".build" / "debug" / "shelf-sync"))


# MARK: - Generator

class Claims:
    """The check that a history keeps the generator's claims (a mixin of test cases)."""

    def assert_conflict_free(self, seed, history):
        """The epoch's claims hold, bursts' writes included (see generator.py)."""
        writers, touched, deleted, gone, created = {}, {}, set(), set(), {}
        notes_about = {}  # book -> the notes that name it and are not deleted
        for action in flattened(history):
            if action["op"] == "barrier":
                gone |= deleted
                writers, touched, deleted = {}, {}, set()
                continue
            if action["op"] in ("sync", "chaos", "read", "wipe", "burst", "encrypt", "operator"):
                continue
            ref, device = action["ref"], action["device"]
            self.assertNotIn(ref, gone, f"seed {seed}: {action} names a record deleted earlier")
            self.assertNotIn(ref, deleted, f"seed {seed}: {action} after the record's delete")
            book = action.get("fields", {}).get("bookID")
            if book:
                self.assertNotIn(book, gone | deleted, f"seed {seed}: a note about a deleted book")
                touched.setdefault(book, set()).add(device)
                notes_about.setdefault(book, set()).add(ref)
            touched.setdefault(ref, set()).add(device)
            if action["op"] == "add":
                created[ref] = device
            elif action["op"] == "edit":
                for field in action["fields"]:
                    self.assertEqual(writers.setdefault((ref, field), device), device,
                                     f"seed {seed}: two devices write {ref}.{field} in one epoch")
            else:
                self.assertEqual(touched[ref], {device}, f"seed {seed}: {ref} deleted while another device touched it")
                self.assertFalse(notes_about.get(ref, set()) - gone,
                                 f"seed {seed}: {ref} deleted while a note names it (shelf book rm refuses)")
                deleted.add(ref)


class GeneratorTests(Claims, unittest.TestCase):
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
            self.assert_conflict_free(seed, generate(seed, Parameters(steps=300, devices=3)))

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


# MARK: - Bursts (concurrent mode)

def _bursts(history):
    return [a for a in history if a["op"] == "burst"]


class ConcurrentGeneratorTests(Claims, unittest.TestCase):
    """Bursts: several writers, the rest readers, the claims kept, a pure function of the seed."""

    def test_only_concurrent_mode_has_bursts_and_a_seed_replays_them(self):
        for mode in ("calm", "kills", "faults"):
            self.assertFalse(_bursts(generate(3, Parameters(steps=300, devices=3, mode=mode))), mode)
        p = Parameters(steps=200, devices=4, mode="concurrent")
        self.assertTrue(_bursts(generate(3, p)))
        self.assertEqual(generate(3, p), generate(3, p))
        self.assertNotEqual(generate(3, p), generate(4, p))
        short, long = generate(5, Parameters(steps=40, mode="concurrent")), generate(5, Parameters(steps=120, mode="concurrent"))
        self.assertEqual(short[:-1], long[:len(short) - 1])

    def test_a_burst_has_two_or_more_writers_and_every_other_device_reads(self):
        for devices in (2, 3, 5):
            p = Parameters(steps=300, devices=devices, mode="concurrent")
            bursts = _bursts(generate(7, p))
            self.assertGreater(len(bursts), 10, devices)
            for burst in bursts:
                writers = [w["device"] for w in burst["writers"]]
                self.assertGreaterEqual(len(writers), 2)
                self.assertEqual(len(set(writers)), len(writers))
                self.assertEqual(sorted(writers + burst["readers"]), list(range(devices)))
                self.assertTrue(2 <= burst["reader_syncs"] <= p.reader_syncs_max)
                for writer in burst["writers"]:
                    low, high = p.burst_writes
                    self.assertTrue(low <= len(writer["before"]) <= high)
                    self.assertLessEqual(len(writer["during"]), 2)
                    self.assertTrue(all(w["device"] == writer["device"] for w in writer["before"] + writer["during"]))
            if devices > 2:
                self.assertTrue(any(b["readers"] for b in bursts), "some bursts have devices that only read")

    def test_bursts_keep_the_claims_and_write_mostly_into_one_collection(self):
        for seed in range(1, 30):
            history = generate(seed, Parameters(steps=200, devices=4, mode="concurrent"))
            self.assert_conflict_free(seed, history)
        writes = [(b["collection"], w["collection"]) for b in _bursts(history)
                  for writer in b["writers"] for w in writer["before"] + writer["during"]]
        same = sum(1 for burst, write in writes if burst == write)
        self.assertGreater(same / len(writes), 0.75)

    def test_every_value_written_is_unique_in_the_run(self):
        history = generate(2, Parameters(steps=300, devices=4, mode="concurrent"))
        values = [v for a in flattened(history) if a["op"] in ("add", "edit")
                  for k, v in a["fields"].items() if isinstance(v, str) and k != "bookID"]
        self.assertEqual(len(values), len(set(values)))

    def test_concurrent_mode_keeps_every_fault_of_faults_mode(self):
        history = generate(3, Parameters(steps=500, devices=3, mode="concurrent"))
        ops = {a["op"] for a in history}
        self.assertTrue({"chaos", "wipe", "burst", "sync", "barrier"} <= ops, ops)
        bursts = _bursts(history)
        self.assertTrue(any("fault" in b for b in bursts), "a burst's syncs meet a lost or cut reply")
        self.assertTrue(any("kill_after_ms" in w["sync"] for b in bursts for w in b["writers"]),
                        "a writer's sync is killed mid-burst")
        self.assertTrue(any(w["during"] for b in bursts for w in b["writers"]), "a writer writes while it syncs")


# MARK: - Checker

def _snapshot(books=(), notes=(), tasks=(), pending=0, conflicts=(), failed=()):
    return {"books": list(books), "notes": list(notes), "tasks": list(tasks),
            "status": {"pendingChanges": pending, "conflicts": len(conflicts), "deadLetters": len(failed)},
            "conflicts": list(conflicts), "failed": list(failed)}


BOOK = {"id": "b-1", "title": "Dune", "author": "Frank Herbert", "isFinished": False}
TASK = {"id": "t-1", "title": "Read", "isDone": True}


class EncryptedGeneratorTests(Claims, unittest.TestCase):
    # sha256 (first 16 hex digits) of json.dumps(generate(seed, Parameters(steps=120,
    # devices=3, mode=mode)), sort_keys=True), taken before encrypted histories existed:
    # a plain history must stay exactly what its seed always gave.
    PLAIN_DIGESTS = {
        ("calm", 1): "c85a3a581640ea61", ("calm", 2): "d2836667632785cd", ("calm", 3): "6ed0c03e3320c5af",
        ("kills", 1): "cbc69dd1183e6102", ("kills", 2): "142843290f3cd11b", ("kills", 3): "31d96541bd5dec40",
        ("faults", 1): "bfef5827014630af", ("faults", 2): "e7d1bdad6169ed93", ("faults", 3): "de9011c3e4a28c6c",
        ("concurrent", 1): "5c762978d7a8837c", ("concurrent", 2): "b87357ab0cea1076",
        ("concurrent", 3): "eea16928629e8bb0",
    }

    def test_a_plain_history_is_what_its_seed_gave_before(self):
        for (mode, seed), digest in self.PLAIN_DIGESTS.items():
            history = generate(seed, Parameters(steps=120, devices=3, mode=mode))
            got = hashlib.sha256(json.dumps(history, sort_keys=True).encode()).hexdigest()[:16]
            self.assertEqual(got, digest, f"{mode} seed {seed}: the plain history changed")
            self.assertFalse(any(a["op"] == "encrypt" for a in history))

    def test_encrypt_appears_only_when_asked_and_at_most_once(self):
        for seed in range(1, 30):
            for mode in ("calm", "faults", "concurrent"):
                plain = generate(seed, Parameters(steps=150, devices=3, mode=mode, encrypt_probability=1))
                self.assertFalse(any(a["op"] == "encrypt" for a in plain), "encrypt without --encrypted")
                history = generate(seed, Parameters(steps=150, devices=3, mode=mode, encrypted=True))
                self.assertLessEqual(sum(a["op"] == "encrypt" for a in history), 1, f"seed {seed}")
                never = generate(seed, Parameters(steps=150, devices=3, mode=mode, encrypted=True,
                                                  encrypt_probability=0))
                self.assertEqual(never, plain, "an encrypted history without encrypt is the plain one")

    def test_encrypt_lands_part_way_through_and_only_inserts_itself(self):
        placed = 0
        for seed in range(1, 30):
            p = dict(steps=120, devices=3, mode="faults")
            plain = generate(seed, Parameters(**p))
            history = generate(seed, Parameters(encrypted=True, encrypt_probability=1, **p))
            self.assertEqual(history, generate(seed, Parameters(encrypted=True, encrypt_probability=1, **p)))
            [index] = [i for i, a in enumerate(history) if a["op"] == "encrypt"]
            self.assertEqual(history[:index] + history[index + 1:], plain, f"seed {seed}: encrypt changed the rest")
            steps_before = sum(1 for a in history[:index] if a["op"] not in ("barrier", "chaos", "wipe"))
            self.assertTrue(30 <= steps_before <= 60, f"seed {seed}: encrypt after {steps_before} steps")
            self.assertIn(history[index]["device"], range(3))
            self.assertNotIn("sync", history[index])
            self.assert_conflict_free(seed, history)
            placed += 1
        self.assertEqual(placed, 29)

    def test_encrypt_after_the_first_barrier_syncs_at_once(self):
        for seed in range(1, 20):
            history = generate(seed, Parameters(steps=40, devices=2, mode="faults", encrypted=True,
                                                encrypt_probability=1, encrypt_after_barrier=True))
            [index] = [i for i, a in enumerate(history) if a["op"] == "encrypt"]
            self.assertTrue(history[index]["sync"])
            before = [a["op"] for a in history[:index]]
            self.assertEqual(before.count("barrier"), 1, f"seed {seed}: not the epoch after the first barrier")
            following = [op for op in before[before.index("barrier") + 1:]]
            self.assertTrue(set(following) <= {"wipe", "chaos"}, f"seed {seed}: not first in its epoch: {following}")

    def test_shrinking_never_leaves_two_encrypts_or_a_dangling_one(self):
        history = generate(2, Parameters(steps=80, devices=2, mode="faults", encrypted=True, encrypt_probability=1))
        index = next(i for i, a in enumerate(history) if a["op"] == "encrypt")
        self.assertFalse(any(a["op"] == "encrypt" for a in without(history, {index})))
        self.assertEqual(sum(a["op"] == "encrypt" for a in truncated(history, index + 3)), 1)
        self.assertFalse(any(a["op"] == "encrypt" for a in truncated(history, index)))
        for end in range(1, len(history)):
            self.assertLessEqual(sum(a["op"] == "encrypt" for a in without_empty_epochs(truncated(history, end))), 1)


def _operator_actions(history):
    return [a for a in history if a["op"] == "operator"]


class HostileGeneratorTests(Claims, unittest.TestCase):
    """Operator actions: only in hostile runs, inserted between device steps, seeded apart."""

    def params(self, **kw):
        return Parameters(**dict(dict(steps=200, devices=3, mode="faults", encrypted=True), **kw))

    def test_a_hostile_history_is_the_encrypted_one_with_operator_actions_inserted(self):
        for seed in range(1, 25):
            encrypted = generate(seed, self.params())
            hostile = generate(seed, self.params(hostile=True))
            self.assertEqual([a for a in hostile if a["op"] != "operator"], encrypted, f"seed {seed}")
            self.assertEqual(hostile, generate(seed, self.params(hostile=True)))
            self.assertFalse(_operator_actions(encrypted))
            self.assert_conflict_free(seed, hostile)
            for index, action in enumerate(hostile):
                if action["op"] == "operator":
                    self.assertIn(hostile[index + 1]["op"], ("add", "edit", "remove", "read", "sync", "burst"),
                                  "an operator action comes right before a device's step")

    def test_a_shorter_hostile_history_is_a_prefix_of_a_longer_one(self):
        short, long = generate(5, self.params(steps=40, hostile=True)), generate(5, self.params(steps=120, hostile=True))
        self.assertEqual(short[:-1], long[:len(short) - 1])

    def test_the_mix_and_the_probability_decide_what_the_operator_does(self):
        history = generate(3, self.params(steps=500, hostile=True))
        actions = _operator_actions(history)
        steps = sum(1 for a in history if a["op"] in ("add", "edit", "remove", "read", "sync"))
        self.assertTrue(0.15 < len(actions) / steps < 0.25, len(actions) / steps)
        self.assertEqual({a["kind"] for a in actions}, set(OPERATOR_MIX))
        self.assertEqual({a.get("scope") for a in actions if a["kind"] == "delete"}, {"some", "all"})
        self.assertEqual({a.get("target") for a in actions if a["kind"] == "forge"}, {"new", "existing"})
        self.assertEqual({a.get("variant") for a in actions if a["kind"] == "keyring"}, {"rollback", "tamper", "delete"})
        only = _operator_actions(generate(3, self.params(steps=300, hostile=True,
                                                         operator_mix={"replay": 0, "forge": 0, "delete": 1})))
        self.assertTrue(only and all(a["kind"] == "delete" for a in only))
        self.assertFalse(_operator_actions(generate(3, self.params(hostile=True, operator_probability=0))))

    def test_a_hostile_operator_needs_an_encrypted_account(self):
        with self.assertRaises(ValueError):
            Parameters(steps=10, hostile=True)
        with self.assertRaises(ValueError):
            self.params(hostile=True, operator_mix={"replay": 0})
        self.assertFalse(_operator_actions(generate(1, Parameters(steps=200, encrypted=True))))


def _model():
    """A book, a task done, a note added and removed: what both checker suites compare against."""
    model = Model()
    model.add("books", "b-1", {"title": "Dune", "author": "Frank Herbert"})
    model.add("tasks", "t-1", {"title": "Read"})
    model.edit("tasks", "t-1", {"isDone": True})
    model.add("notes", "n-gone", {"title": "x", "body": "y"})
    model.remove("notes", "n-gone")
    return model


class CheckerTests(unittest.TestCase):
    def setUp(self):
        self.model = _model()

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

    def test_a_device_lacking_a_record_the_server_holds(self):
        good = _snapshot([BOOK], tasks=[TASK])
        findings = check(self.model, {0: good, 1: _snapshot(tasks=[TASK])}, server=good)
        self.assertEqual(findings.counts["differs_from_server"], 1)
        self.assertIn("[differs_from_server] device 1: lacks 1 of the server's 1 books: b-1", findings.lines)
        self.assertEqual(findings.counts["missing_edits"], 1)

    def test_the_server_comparison_catches_what_the_model_cannot(self):
        # The server holds a book the model never heard of (written by another client)
        # and no device has it: against the model the devices look right; against the
        # server each of them lacks it.
        good = _snapshot([BOOK], tasks=[TASK])
        stranger = {"id": "b-9", "title": "Kindred", "author": "Octavia E. Butler", "isFinished": False}
        findings = check(self.model, {0: good, 1: good}, server=_snapshot([BOOK, stranger], tasks=[TASK]))
        self.assertEqual(findings.counts["differs_from_server"], 2)
        self.assertEqual(findings.counts["missing_edits"], 0)

    def test_a_device_with_other_values_or_records_than_the_server(self):
        good = _snapshot([BOOK], tasks=[TASK])
        finished = _snapshot([dict(BOOK, isFinished=True)], tasks=[TASK])
        self.assertIn("differs_from_server", self.kinds({0: good}, server=finished))
        extra = {"id": "t-9", "title": "nobody wrote this", "isDone": False}
        findings = check(self.model, {0: _snapshot([BOOK], tasks=[TASK, extra])}, server=good)
        self.assertIn("[differs_from_server] device 0: holds 1 tasks the server does not: t-9", findings.lines)

    def test_many_missing_records_make_one_line_with_a_count(self):
        books = [dict(BOOK, id=f"b-{i:03}", title=f"Dune {i}") for i in range(40)]
        findings = check(Model(), {0: _snapshot(books[:10])}, server=_snapshot(books))
        self.assertEqual(findings.counts["differs_from_server"], 30)
        line = [x for x in findings.lines if x.startswith("[differs_from_server]")]
        self.assertEqual(len(line), 1)
        self.assertIn("lacks 30 of the server's 40 books: b-010, b-011, b-012, b-013, b-014 … (25 more)", line[0])

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


# MARK: - Writes on a device without the key

class _RefusingDevice:
    """A device whose every `shelf` write exits 78: it knows the account is encrypted and
    holds no key yet."""

    def __init__(self):
        self.index, self.calls = 1, []

    def shelf_command(self, *argv):
        self.calls.append(argv)
        reply = _Reply(list(argv), 78, {})
        reply.stdout, reply.stderr = "", ("Error: account harness is encrypted end to end and this device holds no "
                                          "key, so nothing can be written here …; nothing was written\n")
        return reply


class WritesWithoutTheKeyTests(unittest.TestCase):
    def state(self, must_join):
        from driver import RunStats, _RunState
        from checker import Findings
        state = _RunState(Model(), RunStats(), Findings(), [], "u", "p")
        state.must_join = must_join
        return state

    def test_a_device_waiting_to_join_is_refused_nothing_enters_the_model_and_its_writes_wait(self):
        from driver import Driver
        state, device, driver = self.state({1}), _RefusingDevice(), Driver(None, "shelf", "shelf-sync")
        add = {"op": "add", "device": 1, "collection": "books", "ref": "b1", "fields": {"title": "Dune", "author": "Frank Herbert"}}
        edit = {"op": "edit", "device": 1, "collection": "books", "ref": "b1", "fields": {"title": "Dune II"}}
        self.assertIsNone(driver._edit(state, device, add))
        self.assertIsNone(driver._edit(state, device, edit), "a later write waits behind the refused one")
        self.assertEqual(len(device.calls), 1)
        self.assertEqual(state.deferred, {1: [add, edit]}, "both go again, in order, once the device joins")
        self.assertEqual(state.model.count(), 0)
        self.assertEqual(state.stats.counts["writes_refused_without_key"], 1)
        self.assertEqual(state.stats.counts["edits_acknowledged"], 0)

    def test_a_burst_writers_later_writes_wait_behind_one_refused_for_want_of_the_key(self):
        # Seed 44 of the concurrent hostile soak: a burst writer's add was refused, and its
        # edit of that book then failed the run as "b1 was never created".
        from driver import Driver
        state, device, driver = self.state({1}), _RefusingDevice(), Driver(None, "shelf", "shelf-sync")
        add = {"op": "add", "device": 1, "collection": "books", "ref": "b1", "fields": {"title": "Dune", "author": "Frank Herbert"}}
        edit = {"op": "edit", "device": 1, "collection": "books", "ref": "b1", "fields": {"title": "Dune II"}}
        errors = []
        driver._burst_writes(state, device, [add, edit], threading.Lock(), errors)
        self.assertEqual(errors, [])
        self.assertEqual(len(device.calls), 1, "the edit is not tried before the device joins")
        self.assertEqual(state.deferred, {1: [add, edit]})

    def test_the_same_refusal_on_a_device_that_joined_fails_the_run(self):
        from driver import Driver
        state, device = self.state(set()), _RefusingDevice()
        add = {"op": "add", "device": 1, "collection": "books", "ref": "b1", "fields": {"title": "Dune", "author": "Frank Herbert"}}
        self.assertIn("an edit was refused", Driver(None, "shelf", "shelf-sync")._edit(state, device, add))


# MARK: - A barrier and the server's Backoff

class BackoffWaitTests(unittest.TestCase):
    def test_a_run_stopped_for_a_backoff_waits_until_its_deadline_and_a_second(self):
        from driver import backoff_wait
        report = {"exit_code": 75, "exit_reason": "backoff",
                  "accounts": [{"account": "harness", "outcome": "backoff", "backoff_until": "2026-12-08T01:01:08Z"}]}
        deadline = 1796691668.0   # 2026-12-08T01:01:08Z
        self.assertAlmostEqual(backoff_wait(report, now=deadline - 2.5), 3.5)
        self.assertEqual(backoff_wait(report, now=deadline + 5), 0.0)

    def test_any_other_run_does_not_wait(self):
        from driver import backoff_wait
        self.assertIsNone(backoff_wait(None))
        self.assertIsNone(backoff_wait({"exit_code": 0, "exit_reason": "synced", "accounts": [{"outcome": "synced"}]}))
        self.assertIsNone(backoff_wait({"exit_code": 75, "exit_reason": "backoff", "accounts": [{"outcome": "backoff"}]}))


# MARK: - Bursts in the driver

class _Reply:
    def __init__(self, argv, status, payload):
        self.argv, self.status, self.payload, self.seconds = argv, status, payload, 0.01
        self.stdout, self.stderr = json.dumps(payload), ""

    def json(self):
        return self.payload

    def __str__(self):
        return f"shelf {' '.join(self.argv)} -> {self.status}"


class _FakeRun:
    """A `shelf-sync` that takes `seconds`, on the device's timeline."""

    def __init__(self, device, seconds):
        self.device, self.killed, self.via, self.status = device, False, "shelf-sync", None
        self.timer = None
        self.started = time.monotonic()
        self.ends = self.started + seconds

    def wait(self):
        time.sleep(max(0.0, self.ends - time.monotonic()))
        self.status = 0
        self.device.timeline.append((self.started, time.monotonic()))
        return 0

    def pushed(self):
        return 0


class _BurstDevice:
    """A device whose CLI writes succeed (or not, from `refuse_after` writes on) and whose
    syncs take `sync_seconds`; it remembers when each sync ran and each write happened."""

    def __init__(self, index, sync_seconds=0.15, refuse_after=None, meet=None):
        self.index, self.sync_seconds, self.refuse_after = index, sync_seconds, refuse_after
        self.running, self.timeline, self.writes, self.lock = None, [], [], threading.Lock()
        # A barrier the first write waits at: it passes only when every device sharing
        # it is inside its first write at once (it breaks after 10 s otherwise).
        self.meet, self.met = meet, None

    def shelf_command(self, *argv):
        with self.lock:
            self.writes.append((time.monotonic(), argv))
            first = len(self.writes) == 1
            if self.refuse_after is not None and len(self.writes) > self.refuse_after:
                return _Reply(argv, 1, {})
        if first and self.meet is not None:
            try:
                self.meet.wait()
                self.met = True
            except threading.BrokenBarrierError:
                self.met = False
        time.sleep(0.02)
        if argv[1:3] == ("book", "add"):
            return _Reply(argv, 0, {"id": f"id-{self.index}-{len(self.writes)}"})
        return _Reply(argv, 0, {"id": argv[3]})

    def start_sync(self, kill_after_ms=None, via="shelf-sync"):
        assert self.running is None, "a sync is already running"
        self.running = _FakeRun(self, self.sync_seconds)
        return self.running

    def wait_sync(self):
        run, self.running = self.running, None
        if run is not None:
            run.wait()
        return run

    def sync(self):
        self.start_sync()
        return self.wait_sync()


class _QuietServers:
    def calm(self, *_):
        pass

    def control(self, *_):
        return []


def _book_add(device, ref):
    return {"op": "add", "device": device, "collection": "books", "ref": ref,
            "fields": {"title": f"{ref} title", "author": f"{ref} author"}}


class BurstDriverTests(unittest.TestCase):
    def burst(self, devices, writers, readers, reader_syncs=5):
        from driver import Driver, RunStats, _RunState
        from checker import Findings
        state = _RunState(Model(), RunStats(), Findings(), devices, "u", "p")
        action = {"op": "burst", "collection": "books", "writers": writers, "readers": readers,
                  "reader_syncs": reader_syncs}
        threads = threading.active_count()
        failure = Driver(_QuietServers(), "shelf", "shelf-sync")._burst(state, action)
        self.assertEqual(threading.active_count(), threads, "every thread of the burst is joined")
        return state, failure

    def test_the_writers_sync_at_once_while_the_readers_loop(self):
        meet = threading.Barrier(2, timeout=10)
        devices = [_BurstDevice(0, meet=meet), _BurstDevice(1, meet=meet), _BurstDevice(2, sync_seconds=0.03)]
        writers = [{"device": d, "before": [_book_add(d, f"b{d}{k}") for k in range(3)],
                    "sync": {"via": "shelf-sync"}, "during": [_book_add(d, f"b{d}9")]} for d in (0, 1)]
        state, failure = self.burst(devices, writers, [2])
        self.assertIsNone(failure)
        # Every writer's sync started before any of them ended: they ran at the same time.
        spans = [devices[d].timeline[0] for d in (0, 1)]
        self.assertLess(max(s for s, _ in spans), min(e for _, e in spans))
        # The writers' first writes overlapped too (one thread each): both were inside
        # their first write at once, or the barrier they meet at would have broken.
        self.assertEqual([devices[d].met for d in (0, 1)], [True, True])
        # The `during` writes happened while the writer's own sync ran.
        for d in (0, 1):
            start, end = devices[d].timeline[0]
            self.assertTrue(start <= devices[d].writes[-1][0] <= end, d)
        # The reader synced more than once, within its bound, and during the writers' syncs.
        reader = devices[2].timeline
        self.assertTrue(2 <= len(reader) <= 5, reader)
        self.assertLess(reader[0][0], min(e for _, e in spans))
        # Every acknowledged write is in the model; nothing left running.
        self.assertEqual(state.model.count(), 8)
        self.assertEqual(state.stats.counts["bursts"], 1)
        self.assertEqual(state.stats.counts["edits_acknowledged"], 8)
        self.assertEqual(state.stats.counts["burst_syncs"], 2 + len(reader))
        self.assertTrue(all(d.running is None for d in devices))

    def test_a_refused_write_fails_the_burst_and_nothing_keeps_running(self):
        devices = [_BurstDevice(0), _BurstDevice(1, refuse_after=1), _BurstDevice(2)]
        writers = [{"device": d, "before": [_book_add(d, f"b{d}{k}") for k in range(3)],
                    "sync": {"via": "shelf-sync"}, "during": []} for d in (0, 1)]
        state, failure = self.burst(devices, writers, [2])
        self.assertIn("an edit was refused", failure)
        self.assertEqual(state.model.count(), 4, "device 0's three and device 1's first are acknowledged")
        self.assertTrue(all(d.running is None for d in devices))


# MARK: - The concurrent scenario's count

class ScenarioTallyTests(unittest.TestCase):
    def test_a_device_that_missed_books_fails_the_run(self):
        server = [f"b{i}" for i in range(10)]
        rows, lost, ok = tally(server, server, [(0, "writer", server), (3, "reader", server[:7])])
        self.assertFalse(ok)
        self.assertEqual(lost, 0)
        self.assertEqual(rows[1], {"device": 3, "role": "reader", "holds": 7, "server": 10, "missing": 3, "extra": 0})
        self.assertEqual(row_line(rows[1]), "  device 3 (reader): 7 of the server's 10 books — 3 missing")
        self.assertEqual(row_line(rows[0]), "  device 0 (writer): 10 of the server's 10 books")

    def test_every_device_with_the_server_books_passes_and_a_lost_book_fails(self):
        server = [f"b{i}" for i in range(10)]
        self.assertTrue(tally(server, server, [(0, "writer", server), (1, "reader", list(reversed(server)))])[2])
        rows, lost, ok = tally(server + ["b99"], server, [(0, "writer", server)])
        self.assertEqual((lost, ok), (1, False))
        self.assertFalse(tally(server, server, [(0, "writer", server + ["x"])])[2], "an extra book fails too")


# MARK: - Command line

class HarnessOptionsTests(unittest.TestCase):
    def test_concurrent_mode_runs_on_postgresql_unless_told_otherwise(self):
        from harness import parse, server_shape
        self.assertEqual(server_shape(parse(["--mode", "concurrent"]), "concurrent"), "production")
        self.assertEqual(server_shape(parse([]), "faults"), "memory")
        self.assertEqual(server_shape(parse(["--workers", "4"]), "faults"), "production")
        self.assertEqual(server_shape(parse(["--mode", "concurrent", "--server", "memory"]), "concurrent"), "memory")
        # A replayed history's mode decides, not the command line's default.
        self.assertEqual(server_shape(parse(["--replay", "x.json"]), "concurrent"), "production")

    def test_burst_writes_is_a_range(self):
        from harness import parse
        self.assertEqual(parse(["--burst-writes", "8-16"]).burst_writes, (8, 16))
        self.assertEqual(parse(["--burst-writes", "5"]).burst_writes, (5, 5))
        with self.assertRaises(SystemExit), open(os.devnull, "w") as quiet:
            stderr, sys.stderr = sys.stderr, quiet
            try:
                parse(["--burst-writes", "6-2"])
            finally:
                sys.stderr = stderr

    def test_hostile_needs_encrypted_and_the_mix_is_kind_weight_pairs(self):
        from harness import parse
        self.assertUsageError(["--hostile"])
        args = parse(["--encrypted", "--hostile", "--operator-mix", "replay=3,delete=1"])
        self.assertEqual(args.operator_mix, {"replay": 3, "forge": 0, "delete": 1, "keyring": 0})
        self.assertEqual(parse(["--encrypted", "--hostile"]).operator_mix, OPERATOR_MIX)
        for bad in ("rollback=1", "replay=x", "replay=0"):
            self.assertUsageError(["--encrypted", "--hostile", "--operator-mix", bad])
        self.assertUsageError(["--encrypted", "--inject-divergence", "forged"])

    def assertUsageError(self, argv):
        from harness import parse
        with self.assertRaises(SystemExit), open(os.devnull, "w") as quiet:
            stderr, sys.stderr = sys.stderr, quiet
            try:
                parse(argv)
            finally:
                sys.stderr = stderr

    def test_workers_need_the_production_server_and_reach_the_supervisor(self):
        from cluster import HarnessError, kinto_arguments
        self.assertIn("--postgresql", kinto_arguments("production"))
        self.assertNotIn("--postgresql", kinto_arguments("memory"))
        with self.assertRaises(HarnessError):
            kinto_arguments("memory", workers=2)
        self.assertEqual(kinto_arguments("production", workers=4)[-2:], ["--workers", "4"])
        from cluster import PRODUCTION_WORKERS, production_workers
        self.assertEqual(production_workers("production", None), PRODUCTION_WORKERS)
        self.assertEqual(production_workers("production", 2), 2)
        self.assertIsNone(production_workers("memory", None))


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

    def test_removing_an_add_removes_the_burst_writes_that_name_it_and_a_burst_takes_its_records(self):
        burst = {"op": "burst", "collection": "books", "readers": [2], "reader_syncs": 3, "writers": [
            {"device": 0, "before": [_book_add(0, "b5"),
                                     {"op": "edit", "device": 0, "collection": "books", "ref": "b0",
                                      "fields": {"title": "x"}}],
             "sync": {"via": "shelf-sync"}, "during": []}]}
        history = [_book_add(1, "b0"), burst,
                   {"op": "edit", "device": 1, "collection": "books", "ref": "b5", "fields": {"author": "y"}},
                   {"op": "barrier", "final": True}]
        shrunk = without(history, {0})
        self.assertEqual(shrunk[0]["writers"][0]["before"], [_book_add(0, "b5")])
        self.assertEqual(len(shrunk), 3)
        self.assertEqual(without(history, {1}), [_book_add(1, "b0"), {"op": "barrier", "final": True}])

    def test_empty_epochs_go_the_final_barrier_stays(self):
        sync = {"op": "sync", "device": 0}
        history = [{"op": "barrier"}, sync, {"op": "barrier"}, {"op": "barrier"}, {"op": "barrier", "final": True}]
        self.assertEqual(without_empty_epochs(history), [sync, {"op": "barrier"}, {"op": "barrier", "final": True}])


def _sealed(rid, stamp=1, deleted=False):
    envelope = {"v": 2, "kid": "k1", "seq": 1, "n": "bm9uY2U=", "c": "c2VhbGVk"}
    if deleted:
        envelope["del"] = True
    return {"id": rid, "last_modified": stamp, "shelf_enc": envelope}


class SealedServerCheckerTests(unittest.TestCase):
    """An encrypted account: the server is read as Kinto holds it and compared by id."""

    def setUp(self):
        self.model = _model()
        self.good = _snapshot([BOOK], tasks=[TASK])
        self.server = {"books": [_sealed("b-1")], "notes": [{"id": "n-gone", "last_modified": 3, "deleted": True}],
                       "tasks": [_sealed("t-1", 2)], "cart": [], "preferences": [], "sessions": []}

    def findings(self, sealed, snapshots=None):
        return check(self.model, snapshots or {0: self.good, 1: self.good}, sealed=sealed)

    def test_sealed_records_and_tombstones_that_match_pass(self):
        findings = self.findings(self.server)
        self.assertTrue(findings.ok, findings.lines)

    def test_a_plaintext_record_on_the_server_is_flagged(self):
        leaked = dict(self.server, books=[{"id": "b-1", "last_modified": 1, "title": "Dune",
                                            "author_name": "Frank Herbert"}])
        findings = self.findings(leaked)
        self.assertEqual(findings.counts["plaintext_on_server"], 1)
        self.assertIn("[plaintext_on_server] server: 1 books record(s) not sealed: b-1 (author_name, title)",
                      findings.lines)
        # A sealed record that also carries a field in the clear, a tombstone with a
        # field, and a record of another reader collection are plaintext too.
        beside = dict(_sealed("b-1"), title="Dune")
        half = dict(self.server, books=[beside], notes=[{"id": "n-gone", "last_modified": 3, "deleted": True,
                                                          "title": "x"}],
                    cart=[{"id": "c-1", "last_modified": 4, "product": "p-1"}])
        self.assertEqual(self.findings(half).counts["plaintext_on_server"], 3)

    def test_a_device_that_lacks_or_holds_more_or_lists_a_tombstone_differs(self):
        lacking = _snapshot(tasks=[TASK])
        back = {"id": "n-gone", "title": "x", "body": "y", "bookID": None}
        findings = self.findings(self.server, {0: self.good, 1: lacking, 2: _snapshot([BOOK], [back], [TASK])})
        self.assertIn("[differs_from_server] device 1: lacks 1 of the server's 1 books: b-1", findings.lines)
        self.assertIn("[differs_from_server] device 2: lists 1 notes the server holds as deleted: n-gone",
                      findings.lines)
        self.assertEqual(findings.counts["plaintext_on_server"], 0)

    def test_the_server_is_compared_with_the_model_by_id(self):
        missing = dict(self.server, books=[])
        self.assertIn("[missing_edits] server: books/b-1 is missing (expected {'title': 'Dune', 'author': "
                      "'Frank Herbert', 'isFinished': False})", self.findings(missing).lines)
        back = dict(self.server, notes=[_sealed("n-gone", 5)])
        self.assertEqual(self.findings(back).counts["resurrected_deletes"], 1)

    def test_a_sealed_deletion_counts_as_deleted(self):
        sealed_away = dict(self.server, notes=[_sealed("n-gone", 5, deleted=True)])
        findings = self.findings(sealed_away)
        self.assertTrue(findings.ok, findings.lines)
        # A format 1 envelope is no longer what the server may hold.
        old = dict(self.server, books=[dict(_sealed("b-1"), shelf_enc={"v": 1, "kid": "k1", "n": "bm9uY2U=", "c": "c2VhbGVk"})])
        self.assertEqual(self.findings(old).counts["plaintext_on_server"], 1)


def _keyring(version, plaintext="closed", mac="bWFj"):
    return {"id": "keyring", "last_modified": version, "format": 2, "keys": {"k1": {}},
            "manifest": {"version": version, "current": "k1", "identity": "k1", "plaintext": plaintext,
                         "keys": {"k1": {"state": "current", "wrap": "00"}}},
            "auth": {"k1": mac}}


class HostileCheckerTests(unittest.TestCase):
    """What a hostile operator wrote must reach no device, and the devices must undo it."""

    def setUp(self):
        self.model = _model()
        self.model.edit("books", "b-1", {"title": "Dune Messiah"})
        self.book = dict(BOOK, title="Dune Messiah")
        self.good = _snapshot([self.book], tasks=[TASK])
        self.ledger = OperatorLedger()
        self.server = {"books": [dict(_sealed("b-1"), shelf_enc=dict(_sealed("b-1")["shelf_enc"], seq=2))],
                       "notes": [_sealed("n-gone", 5, deleted=True)], "tasks": [_sealed("t-1", 2)],
                       "cart": [], "preferences": [], "sessions": []}
        self.ledger.copy_records("books", self.server["books"])
        self.ledger.copy_keyring(_keyring(2))

    def findings(self, snapshots=None, sealed=None, keyring=None):
        return check(self.model, snapshots or {0: self.good, 1: self.good}, sealed=sealed or self.server,
                     operator=self.ledger, keyring=_keyring(2) if keyring is None else keyring)

    def kinds(self, *args, **kwargs):
        return {k for k, v in self.findings(*args, **kwargs).counts.items() if v}

    def test_devices_and_a_server_that_undid_the_operator_pass(self):
        findings = self.findings()
        self.assertTrue(findings.ok, findings.lines)

    def test_a_device_listing_a_forged_record_or_a_forged_title_fails(self):
        self.ledger.forged["books"].add("b-forged")
        forged = {"id": "b-forged", "title": "Kindred", "author": "x", "isFinished": False}
        findings = self.findings({0: self.good, 1: _snapshot([self.book, forged], tasks=[TASK])})
        self.assertEqual(findings.counts["forged_accepted"], 1)
        self.assertIn("[forged_accepted] device 1: books/b-forged shows what the operator forged", findings.lines[0])
        over = _snapshot([dict(self.book, title=f"{FORGE_MARKER} 0000002a")], tasks=[TASK])
        self.assertIn("forged_accepted", self.kinds({0: self.good, 1: over}))
        self.assertIn("missing_edits", self.kinds({0: self.good, 1: over}), "the reader's record is not shown either")

    def test_an_older_value_of_a_replayed_record_is_a_replay_accepted(self):
        older = _snapshot([BOOK], tasks=[TASK])   # the title before the reader's edit
        self.assertEqual(self.kinds({0: self.good, 1: older}) & {"replay_accepted", "wrong_fields"}, {"wrong_fields"},
                         "a record the operator did not replay shows a wrong field, not a replay")
        self.ledger.replayed["books"].add("b-1")
        findings = self.findings({0: self.good, 1: older})
        self.assertEqual(findings.counts["replay_accepted"], 1)
        self.assertEqual(findings.counts["wrong_fields"], 0)
        self.assertIn("[replay_accepted] device 1: books/b-1.title is 'Dune', an older value (the operator put an "
                      "older version of the record back); expected 'Dune Messiah'", findings.lines)
        never = _snapshot([dict(self.book, title="a value nobody wrote")], tasks=[TASK])
        self.assertEqual(self.kinds({0: self.good, 1: never}) & {"replay_accepted", "wrong_fields"}, {"wrong_fields"})

    def test_a_removed_record_the_operator_put_back_is_a_replay_accepted(self):
        back = {"id": "n-gone", "title": "x", "body": "y", "bookID": None}
        snapshots = {0: self.good, 1: _snapshot([self.book], [back], [TASK])}
        self.ledger.replayed["notes"].add("n-gone")
        self.ledger.deleted["notes"].add("n-gone")
        findings = self.findings(snapshots)
        self.assertEqual((findings.counts["replay_accepted"], findings.counts["resurrected_deletes"]), (0, 1),
                         "a replay over a live version does not bring a removed record back")
        self.assertIn("[resurrected_deletes] device 1: notes/n-gone was deleted but is back: " + str(back)
                      + " (the operator deleted it and put older versions of it back on the server)", findings.lines)
        self.ledger.revived["notes"].add("n-gone")
        findings = self.findings(snapshots)
        self.assertEqual((findings.counts["replay_accepted"], findings.counts["resurrected_deletes"]), (1, 0))

    def test_a_server_left_with_an_older_version_or_keyring_fails(self):
        replayed = dict(self.server, books=[_sealed("b-1")])   # seq 1, after seq 2 was seen
        findings = self.findings(sealed=replayed)
        self.assertIn("[rollback_on_server] server: 1 books hold a version older than one it held before: "
                      "b-1 (seq 1 < 2)", findings.lines)
        self.assertEqual(self.kinds(keyring=_keyring(1)), {"rollback_on_server"})
        self.assertIn("[rollback_on_server] server: no keyring (the newest it held was version 2)",
                      check(self.model, {0: self.good}, sealed=self.server, operator=self.ledger, keyring=None).lines)
        tampered = _keyring(3, mac="Zm9yZ2Vk")
        self.ledger.forged_keyrings.add(keyring_digest(tampered))
        self.assertEqual(self.kinds(keyring=tampered), {"rollback_on_server"})
        self.assertEqual(self.kinds(keyring=_keyring(3)), set(), "a newer keyring a device wrote is fine")

    def test_records_the_operator_forged_under_new_ids_stay_on_the_server_unreported(self):
        self.ledger.forged["books"].add("b-forged")
        left = dict(self.server, books=self.server["books"] + [{"id": "b-forged", "last_modified": 9, "title": "x"}])
        findings = self.findings(sealed=left)
        self.assertTrue(findings.ok, findings.lines)
        # Plaintext over a reader's id is not the operator's to keep: the devices write over it.
        over = dict(self.server, books=[{"id": "b-1", "last_modified": 9, "title": "x"}])
        self.assertIn("plaintext_on_server", self.kinds(sealed=over))

    def test_a_record_the_operator_deleted_and_nobody_put_back_is_missing(self):
        self.ledger.deleted["books"].add("b-1")
        self.assertIn("[missing_edits] device 1: books/b-1 is missing (expected {'title': 'Dune Messiah', 'author': "
                      "'Frank Herbert', 'isFinished': False}) (the operator deleted it on the server)",
                      self.findings({0: self.good, 1: _snapshot(tasks=[TASK])}).lines)

    def test_records_kept_for_put_back_at_a_barrier_are_pending(self):
        kept = dict(self.good, encryption={"deleted_by_server": 2})
        self.assertIn("[pending] device 1: 2 record(s) the server deleted without the reader still wait for "
                      "'shelf encryption put-back'", self.findings({0: self.good, 1: kept}).lines)


# MARK: - The operator against a fake Kinto

class _FakeKinto:
    """Kinto's records of one user in memory, as `Servers` shows them to the operator."""

    def __init__(self, records, keyring):
        self.records, self.keyring, self.requests = records, keyring, []

    def sealed_view(self, user, password, collections):
        return {c: [dict(r) for r in self.records.get(c, [])] for c in collections}

    def kinto_request(self, user, password, method, path, body=None):
        self.requests.append((method, path, body))
        parts = path.split("/")
        if parts[1] == "shelf-keys":
            if method == "GET":
                return (200, {"data": self.keyring}) if self.keyring else (404, None)
            self.keyring = None if method == "DELETE" else dict(body["data"], id="keyring")
            return 200, None
        collection = parts[1]
        rows = self.records.setdefault(collection, [])
        if method == "DELETE" and len(parts) == 3:
            self.records[collection] = [{"id": r["id"], "last_modified": 99, "deleted": True} for r in rows]
            return 200, None
        rid = parts[3]
        rows[:] = [r for r in rows if r["id"] != rid]
        if method == "DELETE":
            rows.append({"id": rid, "last_modified": 99, "deleted": True})
        else:
            rows.append(dict(body["data"], id=rid, last_modified=99))
        return 200, None


class HostileOperatorTests(unittest.TestCase):
    def setUp(self):
        first = {"id": "b-1", "last_modified": 1, "shelf_enc": {"v": 2, "kid": "k1", "seq": 1, "n": "n1", "c": "c1"}}
        self.kinto = _FakeKinto({"books": [first], "notes": [], "tasks": []}, _keyring(1, plaintext="open"))
        self.ledger = OperatorLedger()
        self.operator = HostileOperator(self.kinto, "u", "p", self.ledger)

    def newer(self):
        """The reader edits b-1 (seq 2) and closes the plaintext period (keyring version 2)."""
        self.kinto.records["books"] = [
            {"id": "b-1", "last_modified": 2, "shelf_enc": {"v": 2, "kid": "k1", "seq": 2, "n": "n2", "c": "c2"}}]
        self.kinto.keyring = _keyring(2)

    def test_a_replay_puts_back_an_older_copy_and_only_an_older_one(self):
        said = self.operator.act({"op": "operator", "kind": "replay", "count": 2, "pick": 1})
        self.assertTrue(said.endswith("nothing done"), said)
        self.newer()
        said = self.operator.act({"op": "operator", "kind": "replay", "count": 2, "pick": 1})
        self.assertEqual(said, "replay: put back books/b-1 seq 1")
        self.assertEqual(self.kinto.requests[-1], ("PUT", "collections/books/records/b-1",
                                                   {"data": {"shelf_enc": {"v": 2, "kid": "k1", "seq": 1, "n": "n1",
                                                                           "c": "c1"}}}))
        self.assertEqual(self.ledger.replayed["books"], {"b-1"})
        self.assertEqual(self.ledger.newest_seq[("books", "b-1")], 2)
        self.assertEqual((self.ledger.counts["operator_actions"], self.ledger.counts["operator_skipped"]), (1, 1))

    def test_a_replay_over_the_readers_deletion_brings_a_removed_record_back(self):
        self.operator.copy_everything()
        self.kinto.records["books"] = [{"id": "b-1", "last_modified": 2, "shelf_enc": {
            "v": 2, "kid": "k1", "seq": 2, "del": True, "n": "n2", "c": "c2"}}]
        said = self.operator.act({"op": "operator", "kind": "replay", "count": 1, "pick": 1})
        self.assertEqual(said, "replay: put back books/b-1 seq 1 over the reader’s deletion")
        self.assertEqual(self.ledger.revived["books"], {"b-1"})
        self.assertEqual(self.ledger.counts["removed_records_replayed"], 1)
        # A sealed deletion is never what is put back.
        self.kinto.records["books"] = [{"id": "b-1", "last_modified": 3, "shelf_enc": {
            "v": 2, "kid": "k1", "seq": 3, "n": "n3", "c": "c3"}}]
        said = self.operator.act({"op": "operator", "kind": "replay", "count": 3, "pick": 1})
        self.assertEqual(said, "replay: put back books/b-1 seq 1")

    def test_a_forge_writes_in_the_clear_under_a_new_id_or_over_a_sealed_one(self):
        self.operator.act({"op": "operator", "kind": "forge", "collection": "books", "target": "new", "pick": 3})
        [forged] = self.ledger.forged["books"]
        record = next(r for r in self.kinto.records["books"] if r["id"] == forged)
        self.assertTrue(record["title"].startswith(FORGE_MARKER))
        self.assertNotIn("shelf_enc", record)
        self.operator.act({"op": "operator", "kind": "forge", "collection": "books", "target": "existing", "pick": 3})
        over = next(r for r in self.kinto.records["books"] if r["id"] == "b-1")
        self.assertTrue(over["title"].startswith(FORGE_MARKER))
        self.assertNotIn("shelf_enc", over)
        self.assertEqual(self.ledger.forged["books"], {forged}, "a reader's id is not the operator's")

    def test_deletions_one_by_one_or_the_whole_list(self):
        said = self.operator.act({"op": "operator", "kind": "delete", "collection": "books", "scope": "some",
                                  "count": 3, "pick": 1})
        self.assertEqual(said, "delete: books/b-1 (Kinto [200])")
        self.assertEqual(self.ledger.deleted["books"], {"b-1"})
        self.assertTrue(self.operator.act({"op": "operator", "kind": "delete", "collection": "books", "scope": "all",
                                           "count": 1, "pick": 1}).endswith("nothing done"))
        self.newer()
        self.operator.act({"op": "operator", "kind": "delete", "collection": "books", "scope": "all", "count": 1,
                           "pick": 1})
        self.assertEqual(self.kinto.requests[-1][:2], ("DELETE", "collections/books/records"))

    def test_the_keyring_goes_back_is_altered_or_goes(self):
        self.operator.copy_everything()
        self.newer()
        said = self.operator.act({"op": "operator", "kind": "keyring", "variant": "rollback", "pick": 1})
        self.assertIn("put back version 1 over version 2", said)
        self.assertEqual(self.kinto.keyring["manifest"]["version"], 1)
        self.assertTrue(self.ledger.wrote_keyring(self.kinto.keyring))
        self.assertEqual(self.ledger.newest_keyring_version, 2, "its own write is not a copy")
        for pick in range(6):
            self.kinto.keyring = _keyring(2)
            self.operator.act({"op": "operator", "kind": "keyring", "variant": "tamper", "pick": pick})
            self.assertNotEqual(self.kinto.keyring, _keyring(2), pick)
            self.assertTrue(self.ledger.wrote_keyring(self.kinto.keyring))
        self.operator.act({"op": "operator", "kind": "keyring", "variant": "delete", "pick": 1})
        self.assertIsNone(self.kinto.keyring)


# MARK: - What a run refused

def _report(outcome="needs_attention", message="", keyring=None, unavailable=None, **collection):
    return {"accounts": [{"outcome": outcome, "message": message, "keyring": keyring, "unavailable": unavailable or {},
                          "collections": {"books": dict(collection), "notes": {}}}]}


class IntegrityExitTests(unittest.TestCase):
    """A run that exits 1 only for what it refused of the operator's writes is quiet."""

    def test_only_refusals_count_as_integrity(self):
        from driver import integrity_only
        self.assertTrue(integrity_only(_report(message="the server put back 1 older version (refused; this "
                                                       "device's go back)", rolled_back=1)))
        self.assertTrue(integrity_only(_report(message="the server showed 2 records in the clear (refused); the "
                                                       "server deleted 1 record without you (kept here: 'shelf "
                                                       "encryption put-back' uploads them again)")))
        self.assertTrue(integrity_only(_report(message="refused the server's keyring: x; put back version 2 this "
                                                       "device verified")))
        self.assertFalse(integrity_only(_report(message="1 conflict to resolve ('shelf conflicts'); the server put "
                                                        "back 1 older version (refused; this device's go back)")))
        self.assertFalse(integrity_only(_report(message="1 change refused by the server ('shelf failed')")))
        self.assertFalse(integrity_only(_report(message="the server put back 1 older version", unavailable={"x": "y"})))
        self.assertFalse(integrity_only(_report(outcome="temporary_failure", message="the server put back 1 older")))
        self.assertFalse(integrity_only(_report(message="the account's records are encrypted and this device holds "
                                                        "no key: run 'shelf encryption join'")))
        self.assertFalse(integrity_only(None))

    def test_refusals_are_counted_by_kind(self):
        from driver import integrity_refusals, keeps_server_deletions
        report = _report(message="the server deleted 1 record without you (kept here)", keyring="refused the "
                         "server's keyring: older", rolled_back=2, in_the_clear=1, deleted_by_server=1)
        self.assertEqual(integrity_refusals(report),
                         {"rolled_back": 2, "in_the_clear": 1, "deleted_by_server": 1, "keyring": 1})
        self.assertTrue(keeps_server_deletions(report))
        self.assertFalse(keeps_server_deletions(_report(message="synced", outcome="synced")))
        self.assertEqual(integrity_refusals(_report(keyring="learnt keyring version 3"))["keyring"], 0)


# MARK: - End to end

def _binaries_built():
    return os.access(SHELF, os.X_OK) and os.access(SHELF_SYNC, os.X_OK) and os.access(
        ROOT / ".venv" / "bin" / "python", os.X_OK)


def _harness(*argv):
    """A run of the harness whose files go to a folder of its own, removed after it: the
    self-tests make runs diverge on purpose, and a diverged run keeps its devices' folders
    (and its history) for whoever reads its failure, which no one does here."""
    with tempfile.TemporaryDirectory(prefix="shelf-harness-selftest-") as scratch:
        return subprocess.run([sys.executable, str(HERE / "harness.py"), "--shelf", SHELF, "--shelf-sync", SHELF_SYNC,
                               "--save-dir", scratch + "/saved", *argv],
                              env={**os.environ, "TMPDIR": scratch}, capture_output=True, text=True, timeout=600)


def _hostile_harness(seed, steps, divergence):
    """A calm hostile run, encrypted from the setup, in which the operator acts only to
    inject `divergence` after the last barrier."""
    return _harness("--mode", "calm", "--seed", str(seed), "--steps", str(steps), "--latency-ms", "5", "--encrypted",
                    "--encrypt-probability", "0", "--hostile", "--operator-probability", "0",
                    "--inject-divergence", divergence)


@unittest.skipUnless(_binaries_built(), "needs .build/debug/shelf, shelf-sync and .venv (make build setup)")
class SelfTests(unittest.TestCase):
    """The harness fails when the data diverged: a checker that cannot fail is worthless."""

    def test_a_barrier_waits_out_a_retry_after_the_last_sync_met(self):
        # A 503 with Retry-After just before a barrier (Kinto sends one when its storage fails
        # under load): the device keeps to it, and the barrier waits it out instead of
        # calling the devices stuck (concurrent hostile soak, seeds 45 and 46).
        run = _harness("--replay", str(HERE / "histories" / "retry-after-before-a-barrier.json"), "--latency-ms", "5", "-v")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("device 0: shelf-sync -> 75", run.stdout)
        self.assertRegex(run.stdout, r"barrier: waiting \d+\.\d s for the server's Backoff / Retry-After")
        self.assertIn(" barrier_backoff_waits=1 ", run.stdout)

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

    def test_a_device_missing_a_record_the_server_holds_fails_the_run(self):
        # A book written straight into Kinto after the devices went quiet, as a pull that
        # moved past a late commit leaves it: the server holds it, no device does.
        run = _harness("--mode", "calm", "--seed", "3", "--steps", "12", "--latency-ms", "5",
                       "--inject-divergence", "server-only")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        for device in (0, 1):
            self.assertRegex(run.stdout, rf"\[differs_from_server\] device {device}: lacks 1 of the server's \d+ books")
        self.assertIn(" differs_from_server=2 ", run.stdout)
        self.assertNotIn("[missing_edits] server:", run.stdout)

    def test_a_record_in_the_clear_on_an_encrypted_server_fails_the_run(self):
        # Encrypted from the setup on; a book written straight into Kinto in the clear
        # after the devices went quiet must be reported as plaintext on the server.
        run = _harness("--mode", "calm", "--seed", "4", "--steps", "12", "--latency-ms", "5", "--encrypted",
                       "--encrypt-probability", "0", "--inject-divergence", "plaintext")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"\[plaintext_on_server\] server: 1 books record\(s\) not sealed: [0-9a-f-]+ "
                                     r"\(author_name, title\)")
        self.assertIn(" encrypted=1 encryptions=1 joins=1 held_syncs=0 unheld_syncs=0 plaintext_on_server=1 ", run.stdout)

    def test_forged_content_on_a_device_fails_a_hostile_run(self):
        # What a device that took the operator's record in the clear would list.
        run = _hostile_harness(seed=4, steps=12, divergence="forged")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"\[forged_accepted\] device 0: books/[0-9a-f-]+ shows what the operator forged")
        self.assertIn(" hostile=1 operator_actions=0 ", run.stdout)
        self.assertIn(" forged_accepted=1 ", run.stdout)
        self.assertIn("HOSTILE=1", run.stdout)

    def test_an_older_version_the_devices_left_on_the_server_fails_a_hostile_run(self):
        # The operator copies the server at the first barrier; a record is edited after it;
        # after the last barrier the operator puts the copy back and no device syncs again.
        run = _hostile_harness(seed=14, steps=20, divergence="replay")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"\[rollback_on_server\] server: \d+ \w+ hold a version older than one it "
                                     r"held before: [0-9a-f-]+ \(seq 1 < \d+\)")
        self.assertIn("injected divergence: operator: replay: put back ", run.stdout)


if __name__ == "__main__":
    unittest.main()
