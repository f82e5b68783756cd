"""Runs one history against real processes and checks it at every barrier.

For each action: `add`/`edit`/`remove` run the `shelf` CLI on that device and, when it
exits 0 and prints the written object, become acknowledged edits in the model; `sync`
runs `shelf-sync` (in the background or not), maybe with one fault rule on the proxy
for its requests and a SIGKILL after `kill_after_ms`. A `barrier` clears the faults,
waits for background syncs, has every device sync until a round pushes nothing and
leaves nothing pending (bounded rounds), then checks every device, and the server,
against the model.

An `operator` action (hostile runs) is Kinto's operator writing the account by hand,
straight against Kinto (hostile.py); the devices' syncs then exit 1 ("needs attention")
for what they refused, and a barrier has each device that kept records the server deleted
without the reader run `shelf encryption put-back`, as the reader is told to.

A `burst` (concurrent mode) runs on several threads at once: the writers' writes in
parallel, then every writer's `shelf-sync` started back to back while the readers sync
in a loop; see `Driver._burst`. Acknowledged writes enter the model under one lock, in
the order they complete, which the generator's claims make irrelevant.
"""
import datetime
import json
import pathlib
import shutil
import tempfile
import threading
import time
import uuid

from checker import Findings, check, forged_records
from cluster import Device, HarnessError
from hostile import FORGE_MARKER, NOTHING_DONE, HostileOperator, OperatorLedger
from model import Model

QUIET_ROUNDS_MAX = 8
# The longest Backoff / Retry-After a barrier waits out, as a cron user's next tick would;
# Kinto's own is 3 s (`kinto.retry_after_seconds`, sent with a 503 when its storage fails).
BACKOFF_WAIT_MAX = 30.0
# What a device that holds no key says when its sync leaves an encrypted account alone.
JOIN_MESSAGE = "shelf encryption join"
# What a write on an encrypted account says on a device that holds no key (exit 78): it is
# refused, as an import is, and nothing is written (docs/cli.md).
NO_KEY_MESSAGE = "this device holds no key"
CLI_FLAGS = {"books": ("finish", "unfinish"), "tasks": ("done", "undo")}


# `--hide-from-pulls`: how long a hidden version stays out of pulls, and the devices'
# commit window (`shelf-sync --commit-window`), shorter, so that they move past it.
HIDE_SECONDS = 6.0
HIDDEN_COMMIT_WINDOW = "1s"


def backoff_wait(report, now=None):
    """Seconds until the Backoff deadline a run stopped for (`shelf-sync --report`: exit reason
    `backoff`, each account's `backoff_until`), a second added for the report's whole seconds;
    None when the run did not stop for one."""
    if not report or report.get("exit_reason") != "backoff":
        return None
    until = [a["backoff_until"] for a in report.get("accounts", []) if a.get("backoff_until")]
    if not until:
        return None
    deadline = max(datetime.datetime.fromisoformat(u).timestamp() for u in until)
    return max(0.0, deadline + 1.0 - (time.time() if now is None else now))


class RunStats:
    COUNTERS = ("steps", "syncs", "kills_sent", "kills_mid_run", "faults_armed",
                "lost_replies", "cut_replies", "resets", "barriers", "barrier_rounds", "barrier_backoff_waits",
                "edits_acknowledged", "server_wipes",
                "bursts", "burst_syncs", "encryptions", "joins", "held_syncs",
                "unheld_syncs", "writes_refused_without_key", "integrity_exits", "refused_rolled_back", "refused_in_the_clear",
                "refused_deleted", "keyrings_refused", "put_backs", "hidden_from_pulls",
                "found_by_reconciliation") + OperatorLedger.COUNTERS

    def __init__(self):
        self.counts = {k: 0 for k in self.COUNTERS}
        self.sync_exits = {}

    def bump(self, key, n=1):
        self.counts[key] += n


class RunResult:
    def __init__(self, seed, history, stats, findings, failure, transcript, seconds):
        self.seed, self.history, self.stats = seed, history, stats
        self.findings, self.failure, self.transcript, self.seconds = findings, failure, transcript, seconds

    @property
    def ok(self):
        return self.failure is None and self.findings.ok


class Driver:
    def __init__(self, servers, shelf, shelf_sync, latency_ms=60, jitter_ms=10, devices=2,
                 inject_divergence=None, workdir=None, cold_start=False, encrypted=False, hostile=False,
                 hide_from_pulls=0.0):
        self.servers = servers
        self.shelf, self.shelf_sync = shelf, shelf_sync
        self.latency_ms, self.jitter_ms = latency_ms, jitter_ms
        self.device_count = devices
        self.inject_divergence = inject_divergence
        self.workdir = workdir
        self.cold_start = cold_start
        self.encrypted = encrypted
        self.hostile = hostile
        # Versions of records the proxy takes out of pulls for HIDE_SECONDS (writes that
        # commit late), while every shelf-sync's commit window is shorter: a device that
        # pulled past one meanwhile finds it only by reconciling, which barrier syncs do.
        self.hide_from_pulls = hide_from_pulls

    def run(self, seed, history):
        started = time.monotonic()
        root = tempfile.mkdtemp(prefix=f"shelf-harness-{seed}-", dir=self.workdir)
        user, password = f"harness-{seed}-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
        # One reader, one passphrase, on every device (each in its own file).
        passphrase = f"harness passphrase {uuid.uuid4().hex}" if self.encrypted else None
        devices = [Device(i, root, self.shelf, self.shelf_sync, passphrase,
                          commit_window=HIDDEN_COMMIT_WINDOW if self.hide_from_pulls else None)
                   for i in range(self.device_count)]
        state = _RunState(Model(), RunStats(), Findings(), devices, user, password)
        state.root = root
        if self.hostile:
            state.ledger = OperatorLedger()
            state.operator = HostileOperator(self.servers, user, password, state.ledger)
        # Encrypted from the setup on, unless the history turns encryption on itself.
        encrypt_at_setup = self.encrypted and not any(a["op"] == "encrypt" for a in history)
        self.servers.calm(self.latency_ms, self.jitter_ms)
        if self.hide_from_pulls:
            self.servers.control("hide", {"seed": seed, "probability": self.hide_from_pulls, "seconds": HIDE_SECONDS})
        state.hidden_before = self.servers.control("stats").get("hidden", 0) if self.hide_from_pulls else 0
        state.proxy_seen = state.proxy_start = len(self.servers.control("log"))
        failure = None
        try:
            for device in devices:
                device.add_account(self.servers.proxy_url, user, password, create=device.index == 0)
                if encrypt_at_setup:
                    # The first device turns encryption on before anything is uploaded;
                    # the others, told to join when they add the account, join.
                    self._encryption_command(state, device, "enable" if device.index == 0 else "join", "setup")
                    state.encryption_on = True
                if not self.cold_start:
                    # Set up as a reader would: add the account, sync once. (A history that
                    # starts on a store nobody opened yet is `cold_start`.)
                    first = device.sync()
                    state.transcript.append(f"    setup: device {device.index} shelf-sync -> {first.status}")
                    if first.status != 0:
                        failure = f"device {device.index}: the first sync exited {first.status}"
            if failure:
                raise HarnessError(failure)
            for index, action in enumerate(history):
                state.transcript.append(f"#{index} {json.dumps(action, ensure_ascii=False)}")
                failure = self._perform(state, action)
                if action["op"] in ("sync", "burst", "barrier"):
                    self._note_proxy_faults(state)
                if failure or not state.findings.ok:
                    break
        except HarnessError as error:
            failure = f"harness: {error}"
        finally:
            for device in devices:
                if device.running is not None:
                    # A run that stopped early leaves no worker behind.
                    if device.running.timer is not None:
                        device.running.timer.cancel()
                    device.running.process.kill()
                    device.wait_sync()
        self._count_proxy_faults(state)
        if state.ledger is not None:
            for key, value in state.ledger.counts.items():
                state.stats.bump(key, value)
        if self.hide_from_pulls:
            try:
                state.stats.bump("hidden_from_pulls", self.servers.control("stats").get("hidden", 0) - state.hidden_before)
                self.servers.control("hide", {"probability": 0})
            except OSError:
                pass
        result = RunResult(seed, history, state.stats, state.findings, failure, state.transcript,
                           time.monotonic() - started)
        if result.ok:
            shutil.rmtree(root, ignore_errors=True)
        else:
            state.transcript.append(f"    the devices' folders are kept in {root}")
        return result

    # MARK: Actions

    def _perform(self, state, action):
        op = action["op"]
        if op == "barrier":
            return self._barrier(state, final=action.get("final", False))
        if op == "wipe":
            self.servers.wipe(state.user, state.password, action["collection"])
            state.stats.bump("server_wipes")
            return None
        if op == "chaos":
            state.chaos = {k: v for k, v in action.items() if k != "op"}
            self._arm(state)
            return None
        if op == "encrypt":
            return self._encrypt(state, state.devices[action["device"]], action.get("sync", False))
        if op == "operator":
            return self._operate(state, action)
        state.stats.bump("steps")
        if op == "burst":
            return self._burst(state, action)
        device = state.devices[action["device"]]
        if op == "sync":
            return self._sync(state, device, action)
        if op == "read":
            return self._read(state, device, action["collection"])
        return self._edit(state, device, action)

    def _edit(self, state, device, action):
        if self._waits_for_join(state, device, action):
            return None
        return self._acknowledge(state, device, action, *self._write(state, device, action))

    @staticmethod
    def _waits_for_join(state, device, action):
        """Whether the device's earlier write was refused for want of the key: this one then
        waits behind it, in order, until the device joins (an edit of a book whose add
        waits could not be made before it anyway)."""
        if device.index not in state.deferred:
            return False
        state.deferred[device.index].append(action)
        state.transcript.append(f"    device {device.index}: {action['op']} {action['ref']} waits until it joins")
        return True

    def _write(self, state, device, action):
        """Runs the CLI command of an add, edit or remove: (argv, result), or (None, why)."""
        collection, ref = action["collection"], action["ref"]
        fields = action.get("fields", {})
        if action["op"] == "add":
            argv = _add_argv(collection, fields, state.ids)
        else:
            rid = state.ids.get(ref)
            if rid is None:
                return None, f"history: {ref} was never created"
            argv = _remove_argv(collection, rid) if action["op"] == "remove" else _edit_argv(collection, rid, fields)
        return argv, device.shelf_command("--json", *argv)

    def _acknowledge(self, state, device, action, argv, result):
        """An edit the CLI confirmed enters the model; a refused one fails the run."""
        if argv is None:
            return result
        collection, ref = action["collection"], action["ref"]
        fields = action.get("fields", {})
        state.transcript.append(f"    device {device.index}: shelf --json {' '.join(argv)} -> {result.status} "
                                f"({result.seconds * 1000:.0f} ms)")
        if result.status == 78 and device.index in state.must_join and NO_KEY_MESSAGE in result.stderr:
            # Expected: the device learned the account is encrypted and has no key yet, so
            # the write is refused and nothing enters the model. The reader does it again
            # once the device has joined (before the barrier's syncs, as the history
            # assumes of a write not synced yet), and the device's later writes wait behind it.
            state.stats.bump("writes_refused_without_key")
            state.deferred.setdefault(device.index, []).append(action)
            state.transcript[-1] += " (refused: no key yet; again once it joins)"
            return None
        if result.status != 0:
            return f"an edit was refused: {result}"
        try:
            written = result.json()
        except ValueError:
            return f"an edit printed no JSON: {result}"
        state.stats.bump("edits_acknowledged")
        own = state.own_writes.setdefault(device.index, {})
        if action["op"] == "add":
            own[(collection, written["id"])] = dict(_model_fields(collection, fields, state.ids))
        elif action["op"] == "remove":
            own[(collection, state.ids[ref])] = None
        else:
            own.setdefault((collection, state.ids[ref]), {}).update(fields)
        if action["op"] == "add":
            state.ids[ref] = written["id"]
            state.refs[written["id"]] = ref
            state.model.add(collection, written["id"], _model_fields(collection, fields, state.ids))
        elif action["op"] == "remove":
            state.model.remove(collection, state.ids[ref])
        else:
            state.model.edit(collection, state.ids[ref], fields)
        return None

    def _read(self, state, device, collection):
        """Lists a collection on `device`: its own writes of this epoch must all be there."""
        result = device.shelf_command("--json", collection)
        state.transcript.append(f"    device {device.index}: shelf --json {collection} -> {result.status} "
                                f"({result.seconds * 1000:.0f} ms)")
        if result.status != 0:
            return f"a read failed: {result}"
        listed = {r["id"]: r for r in result.json()[collection]}
        if state.ledger is not None:
            for record in forged_records(listed.values(), collection, state.ledger):
                state.findings.add("forged_accepted", f"device {device.index}: {collection}/{record.get('id')} shows "
                                   f"what the operator forged: {record}")
        for (written_collection, rid), fields in sorted(state.own_writes.get(device.index, {}).items(),
                                                        key=lambda item: item[0]):
            if written_collection != collection:
                continue
            got = listed.get(rid)
            if fields is None:
                if got is not None:
                    state.findings.add("resurrected_deletes", f"device {device.index}: {collection}/{rid}, which it "
                                       f"deleted, is listed again: {got}")
            elif got is None:
                state.findings.add("missing_edits", f"device {device.index}: {collection}/{rid}, which it wrote, is "
                                   f"not listed (read-your-writes)")
            else:
                for field, value in fields.items():
                    if got.get(field) != value:
                        state.findings.add("wrong_fields", f"device {device.index}: {collection}/{rid}.{field} reads "
                                           f"{got.get(field)!r}; it wrote {value!r} (read-your-writes)")
        return None

    def _sync(self, state, device, action):
        previous = device.wait_sync()
        if previous is not None:
            self._note_sync(state, device, previous)
        fault = action.get("fault")
        if fault:
            # One rule for this run's requests; whatever it did not use is cleared at the
            # next armed sync or barrier.
            self._arm(state, fault)
            state.stats.bump("faults_armed")
        run = device.start_sync(action.get("kill_after_ms"), action.get("via", "shelf-sync"))
        state.stats.bump("syncs")
        if action.get("kill_after_ms") is not None:
            state.stats.bump("kills_sent")
        if not action.get("background"):
            device.wait_sync()
            self._note_sync(state, device, run)
        return None

    # MARK: Encryption

    def _encryption_command(self, state, device, verb, when):
        """`shelf encryption enable|join` on `device`; anything but exit 0 stops the run
        (the passphrase is right, so a refusal is Shelf's failure, not a finding)."""
        result = device.encryption(verb)
        state.transcript.append(f"    {when}: device {device.index} shelf encryption {verb} -> {result.status} "
                                f"({result.seconds * 1000:.0f} ms)")
        if result.status != 0:
            raise HarnessError(f"device {device.index}: shelf encryption {verb} exited {result.status}: {result}")
        state.stats.bump("encryptions" if verb == "enable" else "joins")

    def _encrypt(self, state, device, sync_after=False):
        """One device turns encryption on over the account's data, while the others go on
        editing and syncing. Its own background sync is waited for first (the command
        and its worker would share the store); the epoch's faults are paused for the
        command itself — a lost reply of the keyring write is not what this step tests —
        and armed again after. Every other device must now join: its syncs until then
        leave the account alone (exit 1, counted as `held_syncs`), and it joins right
        before the next barrier's syncs. With `sync_after` the enabling device also
        syncs at once, still without faults, so the sealed records are up before anyone
        else syncs."""
        previous = device.wait_sync()
        if previous is not None:
            self._note_sync(state, device, previous)
        self.servers.calm(self.latency_ms, self.jitter_ms)
        try:
            self._encryption_command(state, device, "enable", "encrypt")
            if sync_after:
                run = device.sync()
                state.stats.bump("syncs")
                self._note_sync(state, device, run)
        finally:
            self._arm(state)
        state.encryption_on = True
        state.must_join = {d.index for d in state.devices if d is not device}
        return None

    def _join_waiting_devices(self, state):
        """Before a barrier's syncs: every device that must join does (its background
        sync is already waited for)."""
        for index in sorted(state.must_join):
            self._encryption_command(state, state.devices[index], "join", "barrier")
        state.must_join = set()
        for index in sorted(state.deferred):
            device = state.devices[index]
            for action in state.deferred.pop(index):
                failure = self._acknowledge(state, device, action, *self._write(state, device, action))
                if failure:
                    return failure
        return None

    # MARK: The hostile operator

    def _operate(self, state, action):
        """Kinto's operator writes the account by hand (hostile.py), once it is sealed for
        every device: all have joined, and before a forge or a delete all know the
        plaintext period is closed (during a migration records in the clear, and
        tombstones of records never seen sealed, are still taken, by design). Otherwise the
        action is skipped, and says so."""
        if state.operator is None:
            raise HarnessError("an operator action in a history run without --hostile")
        kind = action["kind"]
        why_not = None
        if not state.encryption_on:
            why_not = "the account is not encrypted yet"
        elif state.must_join:
            why_not = "a device has not joined yet"
        elif kind in ("forge", "delete") and not self._all_know_sealed(state):
            why_not = "a device does not know yet that the plaintext period is closed"
        if why_not:
            state.ledger.bump("operator_skipped")
            state.transcript.append(f"    operator: {kind} skipped: {why_not}")
            return None
        state.transcript.append(f"    operator: {state.operator.act(action)}")
        return None

    def _all_know_sealed(self, state):
        """Whether every device knows the account's plaintext period is closed (its
        `shelf encryption status`); a device that learnt it never forgets it."""
        for device in state.devices:
            if device.index in state.knows_sealed:
                continue
            result = device.shelf_command("--json", "encryption", "status")
            if result.status != 0:
                raise HarnessError(f"device {device.index}: {result}")
            if result.json().get("plaintext_closed"):
                state.knows_sealed.add(device.index)
        return len(state.knows_sealed) == len(state.devices)

    def _put_back(self, state, device):
        """`shelf encryption put-back` on a device that kept records the server deleted
        without the reader: what the reader is told to run."""
        result = device.shelf_command("--json", "encryption", "put-back")
        state.stats.bump("put_backs")
        device.keep_output(f"put-back-{state.stats.counts['put_backs']}.log", result)
        state.transcript.append(f"    device {device.index}: shelf --json encryption put-back -> {result.status} "
                                f"({result.seconds * 1000:.0f} ms)")
        if result.status not in (0, 1):
            state.findings.add("pending", f"device {device.index}: shelf encryption put-back exited {result.status}: "
                               f"{result}")

    # MARK: Bursts

    def _burst(self, state, action):
        """Several devices push into one collection at the same moment (see the generator).

        1. Every writer makes its `before` writes, each writer on its own thread.
        2. The readers start syncing in a loop (each on its thread), and every writer's
           `shelf-sync` is started back to back — processes, so truly in parallel —
           with its `during` writes made while it runs.
        3. The writers' syncs are waited for; then each reader stops after the sync it
           is in (at most `reader_syncs` syncs each).
        Every thread is joined before this returns, whatever failed; each `shelf` call
        and each sync has its own timeout, so the whole burst is bounded."""
        state.stats.bump("bursts")
        writers = [(state.devices[w["device"]], w) for w in action["writers"]]
        readers = [state.devices[r] for r in action["readers"]]
        for device in [d for d, _ in writers] + readers:
            previous = device.wait_sync()
            if previous is not None:
                self._note_sync(state, device, previous)
        if action.get("fault"):
            self._arm(state, action["fault"])
            state.stats.bump("faults_armed")
        lock, errors = threading.Lock(), []
        state.transcript.append(f"    burst: devices {[d.index for d, _ in writers]} write and sync at once into "
                                f"{action['collection']}; devices {[d.index for d in readers]} sync meanwhile")
        _together([(self._burst_writes, (state, device, plan["before"], lock, errors)) for device, plan in writers],
                  errors)
        if errors:
            return errors[0]
        writers_done = threading.Event()
        reader_threads = _started([(self._reader_loop, (state, device, action["reader_syncs"], writers_done, lock))
                                   for device in readers], errors)
        runs = []
        try:
            for device, plan in writers:
                runs.append((device, device.start_sync(plan["sync"].get("kill_after_ms"),
                                                       plan["sync"].get("via", "shelf-sync"))))
            with lock:
                for _, plan in writers:
                    state.stats.bump("syncs")
                    state.stats.bump("burst_syncs")
                    if plan["sync"].get("kill_after_ms") is not None:
                        state.stats.bump("kills_sent")
            _together([(self._burst_writes, (state, device, plan["during"], lock, errors))
                       for device, plan in writers if plan["during"]], errors)
        finally:
            for device, run in runs:
                device.wait_sync()
                with lock:
                    self._note_sync(state, device, run)
            writers_done.set()
            for thread in reader_threads:
                thread.join()
        return errors[0] if errors else None

    def _burst_writes(self, state, device, actions, lock, errors):
        """One writer's writes, in order; the first refused one stops them, and one refused
        for want of the key makes the rest wait behind it (`_waits_for_join`)."""
        for action in actions:
            with lock:
                if self._waits_for_join(state, device, action):
                    continue
            argv, result = self._write(state, device, action)
            with lock:
                failure = self._acknowledge(state, device, action, argv, result)
            if failure:
                errors.append(failure)
                return

    def _reader_loop(self, state, device, most, writers_done, lock):
        """`shelf-sync` again and again while the writers' syncs run: at least once, at
        most `most` times."""
        for _ in range(most):
            run = device.sync()
            with lock:
                state.stats.bump("syncs")
                state.stats.bump("burst_syncs")
                self._note_sync(state, device, run)
            if writers_done.is_set():
                break

    def _arm(self, state, rule=None):
        """The epoch's random faults, and `rule` for the next matching request."""
        self.servers.calm(self.latency_ms, self.jitter_ms)
        if state.chaos:
            self.servers.control("random", state.chaos)
        if rule:
            self.servers.control("rules", {"rules": [rule]})

    def _note_sync(self, state, device, run):
        if run.killed:
            state.stats.bump("kills_mid_run")
        state.stats.sync_exits[str(run.status)] = state.stats.sync_exits.get(str(run.status), 0) + 1
        held = device.index in state.must_join and run.status == 1 and run.says(JOIN_MESSAGE)
        unheld = device.index in state.must_join and run.status == 0
        if held:
            # Expected: the account is encrypted and this device has not joined yet.
            state.stats.bump("held_syncs")
        elif unheld:
            # The device has not joined, yet its run went over the account as if it were
            # plain (it learns of encryption only from sealed records): what it pushed
            # shows at the barrier, as plaintext on the server or as edits refused.
            state.stats.bump("unheld_syncs")
        refusals = self._note_refusals(state, run, run.report()) if state.encryption_on else ""
        state.transcript.append(f"    device {device.index}: {'shelf sync' if run.via == 'shelf' else 'shelf-sync'} -> {run.status}"
                                f"{' (killed mid-run)' if run.killed else ''}"
                                f"{' (held: not joined yet)' if held else ''}"
                                f"{' (NOT held, though not joined yet)' if unheld else ''}"
                                f"{f' (refused: {refusals})' if refusals else ''}")
        if run.status == "timeout":
            state.findings.add("pending", f"device {device.index}: shelf-sync did not finish in time")

    def _note_refusals(self, state, run, report):
        """Counts what a run refused of the server's (its report): versions put back, records
        in the clear, deletions without the reader, a keyring. Returns them in words."""
        refused = integrity_refusals(report)
        for key, stat in (("rolled_back", "refused_rolled_back"), ("in_the_clear", "refused_in_the_clear"),
                          ("deleted_by_server", "refused_deleted"), ("keyring", "keyrings_refused")):
            state.stats.bump(stat, refused.get(key, 0))
        if run.status == 1 and integrity_only(report):
            state.stats.bump("integrity_exits")
        return ", ".join(f"{k} {v}" for k, v in refused.items() if v)

    # MARK: Barrier and check

    def _barrier(self, state, final):
        state.stats.bump("barriers")
        state.chaos = None
        state.own_writes = {}
        self.servers.calm(self.latency_ms, self.jitter_ms)
        for device in state.devices:
            run = device.wait_sync()
            if run is not None:
                self._note_sync(state, device, run)
        failure = self._join_waiting_devices(state)
        if failure:
            return failure
        quiet, previous = False, None
        for round_number in range(1, QUIET_ROUNDS_MAX + 1):
            if self.hide_from_pulls:
                time.sleep(HIDE_SECONDS)   # every write so far has committed, late ones too
            state.stats.bump("barrier_rounds")
            pushed, statuses, settled, waits = 0, [], True, []
            for device in state.devices:
                run = device.sync(reconcile=bool(self.hide_from_pulls))
                statuses.append(run.status)
                if self.hide_from_pulls:
                    state.stats.bump("found_by_reconciliation", run.reconciled())
                pushed += run.pushed()
                report = run.report()
                waits.append(backoff_wait(report))
                refused = self._note_refusals(state, run, report) if state.encryption_on else ""
                state.transcript.append(f"    barrier round {round_number}: device {device.index} shelf-sync -> "
                                        f"{run.status}, pushed {run.pushed()}{f', refused: {refused}' if refused else ''}")
                # A hostile run's exit 1 that only says what the device refused of the
                # operator's writes is as good as 0: the device did its part.
                settled = settled and (run.status == 0 or (state.ledger is not None and run.status == 1
                                                           and integrity_only(report)))
                if state.ledger is not None and keeps_server_deletions(report):
                    self._put_back(state, device)
                    settled = False
            if pushed == 0 and settled:
                quiet = True
                break
            wait = max((w for w in waits if w is not None), default=None)
            if wait is not None and wait <= BACKOFF_WAIT_MAX:
                # A device stopped for the server's Backoff or Retry-After (a 503 under load
                # sends one): it keeps to it, so the next round comes once it has passed,
                # and a round spent waiting is not one that changed nothing.
                state.stats.bump("barrier_backoff_waits")
                state.transcript.append(f"    barrier: waiting {wait:.1f} s for the server's Backoff / Retry-After")
                time.sleep(wait)
                previous = None
                continue
            if pushed == 0 and statuses == previous:
                break   # stuck: another round would change nothing
            previous = statuses
        if final and self.inject_divergence == "server-only":
            self._inject_server_only(state)
        if final and self.inject_divergence in ("replay", "keyring"):
            self._inject_operator(state, self.inject_divergence)
        snapshots = {d.index: d.snapshot(encrypted=state.encryption_on) for d in state.devices}
        keyring = None
        if state.encryption_on:
            # Every device has joined and synced: every record must be sealed by now.
            server, sealed = None, self.servers.sealed_view(state.user, state.password)
            if final and self.inject_divergence == "plaintext":
                self._inject_plaintext(state, sealed)
            if state.operator is not None:
                keyring = state.operator.keyring()
                # Kept with the devices' folders when the run fails: what the server held.
                pathlib.Path(state.root, f"server-barrier-{state.stats.counts['barriers']}.json").write_text(
                    json.dumps({"records": sealed, "keyring": keyring}, indent=1))
        else:
            server, sealed = self.servers.server_records(state.user, state.password), None
        if final and self.inject_divergence and self.inject_divergence not in ("server-only", "plaintext", "replay",
                                                                              "keyring"):
            self._inject(state, snapshots)
        findings = check(state.model, snapshots, server, sealed,
                         operator=state.ledger if state.encryption_on else None, keyring=keyring)
        if state.operator is not None and state.encryption_on and findings.ok:
            # What the server holds now is the reader's: the operator's copies of it.
            state.operator.copy_everything()
        if not quiet:
            findings.add("pending", f"the devices did not become quiet ({state.stats.counts['barrier_rounds']} rounds of "
                                    f"syncs so far; the last ones exited {statuses})")
        state.findings.merge(findings)
        state.transcript.append(f"    barrier: {state.model.count()} records in the model, "
                                f"{'ok' if findings.ok else 'DIVERGED'}")
        return None

    def _inject(self, state, snapshots):
        """Breaks the model or a device on purpose: the checker must notice."""
        kind = self.inject_divergence
        if kind == "local-edit":
            # A real divergence: one device changes a task after the devices went quiet.
            device = state.devices[0]
            result = device.shelf_command("--json", "task", "add", "written after the barrier")
            if result.status != 0:
                raise HarnessError(f"could not inject a local edit: {result}")
            snapshots[0] = device.snapshot()
            what = "device 0 added a task after the last barrier and did not sync"
        elif kind == "forged":
            # What a device that took a forged record would list: the operator's text.
            device = state.devices[0]
            result = device.shelf_command("--json", "book", "add", "--title", f"{FORGE_MARKER} (injected)",
                                          "--author", "nobody")
            if result.status != 0:
                raise HarnessError(f"could not inject a forged title: {result}")
            snapshots[0] = device.snapshot(encrypted=state.encryption_on)
            what = "device 0 lists a book titled with the operator's forged text"
        else:
            what = state.model.corrupt(kind)
        state.transcript.append(f"    injected divergence: {what}")

    def _inject_operator(self, state, kind):
        """A hostile run's real divergence: after the devices went quiet, the operator puts
        older sealed versions back (`replay`) or deletes the keyring (`keyring`), and no
        device syncs again. The server must be found holding the operator's writes."""
        if kind == "replay":
            action = {"op": "operator", "kind": "replay", "count": 3, "pick": 1}
        else:
            action = {"op": "operator", "kind": "keyring", "variant": "delete", "pick": 1}
        said = state.operator.act(action)
        if said.endswith(NOTHING_DONE):
            raise HarnessError(f"could not inject a {kind}: {said}")
        state.transcript.append(f"    injected divergence: operator: {said}")

    def _inject_server_only(self, state):
        """A real divergence of the kind concurrent writers cause: a book the server
        holds and no device has (written straight into Kinto after the devices went
        quiet), counted as acknowledged. Every device must be found lacking it."""
        rid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"shelf-harness:{state.user}"))
        fields = {"title": "on the server only", "author": "written past every device", "isFinished": False}
        self.servers.put_record(state.user, state.password, "books",
                                {"id": rid, "title": fields["title"], "author_name": fields["author"],
                                 "finished": False})
        state.model.add("books", rid, fields)
        state.transcript.append(f"    injected divergence: books/{rid} written on Kinto only, after the last barrier")

    def _inject_plaintext(self, state, sealed):
        """A real divergence of an encrypted account: a book written straight into Kinto
        in the clear after the devices went quiet, as a device that leaked one would.
        Read back with the rest, it must be reported as plaintext on the server."""
        rid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"shelf-harness-plain:{state.user}"))
        self.servers.put_record(state.user, state.password, "books",
                                {"id": rid, "title": "in the clear", "author_name": "nobody sealed it"})
        sealed.clear()
        sealed.update(self.servers.sealed_view(state.user, state.password))
        state.transcript.append(f"    injected divergence: books/{rid} written on Kinto in the clear")

    def _note_proxy_faults(self, state):
        """Adds the faults the proxy injected since the last action to the transcript."""
        try:
            log = self.servers.control("log")
        except OSError:
            return
        for entry in log[state.proxy_seen:]:
            if entry.get("action") != "forward":
                state.transcript.append(f"    proxy: {entry['action']} {entry['method']} {entry['path']}"
                                        f"{'?' + entry['query'] if entry.get('query') else ''} "
                                        f"(upstream {entry.get('upstream_status')})")
        state.proxy_seen = len(log)

    def _count_proxy_faults(self, state):
        stats = state.stats
        try:
            log = self.servers.control("log")
        except OSError:
            return
        for entry in log[state.proxy_start:]:
            action = entry.get("action")
            if action == "lose_reply":
                stats.bump("lost_replies")
            elif action == "cut_reply":
                stats.bump("cut_replies")
            elif action == "reset":
                stats.bump("resets")


def _started(targets, errors):
    """Starts one thread per (function, arguments); an exception becomes an error."""
    def guarded(function, arguments):
        try:
            function(*arguments)
        except Exception as error:  # noqa: BLE001 — reported as the run's failure
            errors.append(f"harness: {type(error).__name__}: {error}")
    threads = [threading.Thread(target=guarded, args=target, daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    return threads


def _together(targets, errors):
    """Runs the targets on threads at once and waits for all of them."""
    for thread in _started(targets, errors):
        thread.join()


class _RunState:
    def __init__(self, model, stats, findings, devices, user, password):
        self.model, self.stats, self.findings, self.devices = model, stats, findings, devices
        self.user, self.password = user, password
        self.ids, self.refs, self.transcript = {}, {}, []
        self.root = None
        self.proxy_seen = 0
        self.chaos = None
        self.own_writes = {}   # device -> (collection, id) -> fields it wrote this epoch, None = deleted
        self.encryption_on = False   # the account is encrypted: the server is checked sealed
        self.must_join = set()       # devices that hold no key yet; they join at the next barrier
        self.ledger = None           # hostile runs: what the operator did (OperatorLedger)
        self.operator = None         # … and the operator itself (HostileOperator)
        self.knows_sealed = set()    # devices that know the plaintext period is closed
        self.deferred = {}           # device -> writes refused for want of the key, again once it joins


# MARK: - What a run refused

# What a run that refused the server's writes says, part by part (SyncEngine.integrityNotes).
INTEGRITY_NOTES = ("older version", "in the clear (refused)", "without you", "refused the server's keyring")


def integrity_refusals(report):
    """What a `shelf-sync` report says the run refused of the server's: counts by kind
    (`rolled_back`, `in_the_clear`, `deleted_by_server` over its collections, `keyring` 1
    when it refused the keyring)."""
    out = {"rolled_back": 0, "in_the_clear": 0, "deleted_by_server": 0, "keyring": 0}
    for account in (report or {}).get("accounts", []):
        for collection in (account.get("collections") or {}).values():
            for key in ("rolled_back", "in_the_clear", "deleted_by_server"):
                out[key] += collection.get(key, 0) or 0
        if str(account.get("keyring") or "").startswith("refused the server's keyring"):
            out["keyring"] += 1
    return out


def integrity_only(report):
    """Whether a run that needs attention needs it only for what it refused of the
    server's (docs/encryption.md): no conflict, no dead letter, no collection refused, no
    push held — the outcome a hostile operator's writes leave, and nothing else."""
    accounts = (report or {}).get("accounts", [])
    if not accounts:
        return False
    for account in accounts:
        message = account.get("message") or ""
        if account.get("outcome") != "needs_attention" or account.get("unavailable"):
            return False
        if "conflict" in message or "'shelf failed'" in message or "'shelf encryption join'" in message:
            return False
        if not any(note in message for note in INTEGRITY_NOTES):
            return False
    return True


def keeps_server_deletions(report):
    """Whether the run says the device keeps records the server deleted without the reader."""
    return any("without you" in (account.get("message") or "") for account in (report or {}).get("accounts", []))


# MARK: - Command lines

def _add_argv(collection, fields, ids):
    if collection == "books":
        return ["book", "add", "--title", fields["title"], "--author", fields["author"]]
    if collection == "notes":
        argv = ["note", "add", "--title", fields["title"], "--body", fields["body"]]
        if fields.get("bookID"):
            argv += ["--book", ids[fields["bookID"]]]
        return argv
    return ["task", "add", fields["title"]]


def _edit_argv(collection, rid, fields):
    flag = {"books": "isFinished", "tasks": "isDone"}.get(collection)
    if flag in fields:
        on, off = CLI_FLAGS[collection]
        return [{"books": "book", "tasks": "task"}[collection], on if fields[flag] else off, rid]
    argv = [{"books": "book", "notes": "note"}[collection], "edit", rid]
    for field, value in fields.items():
        argv += [f"--{field}", value]
    return argv


def _remove_argv(collection, rid):
    return [{"books": "book", "notes": "note", "tasks": "task"}[collection], "rm", rid]


def _model_fields(collection, fields, ids):
    out = dict(fields)
    if collection == "notes" and fields.get("bookID"):
        out["bookID"] = ids[fields["bookID"]]
    return out
