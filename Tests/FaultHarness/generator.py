"""Randomized multi-device histories for Shelf's convergence harness.

A history is a list of actions (plain dicts, JSON-serialisable) that is a pure function
of the seed and the parameters: the same `--seed`/`--steps` always gives the same
actions, so a failing run is replayed by its seed. Records are named by symbolic
references (`b3` = the fourth record created in the run, a book); the driver maps them
to the ids the CLI prints.

Concurrent edits of the same field to different values are *avoided*, never expected:
the history is cut into epochs that end with a barrier (every device syncs until
quiet), and within one epoch

- a field of a record is written by one device only (the first to write it claims it);
- a record is deleted only by a device that is the only one to touch it in the epoch,
  and nobody touches it after the delete;
- a device edits only records it is sure to have: those every device had at the last
  barrier, and those it created itself.

So every conflict the engine reports is a false conflict, and the model's final value
of each field is the last acknowledged write in history order.

In `concurrent` mode some actions are bursts (see `HistoryGenerator._burst`): several
devices write at the same moment and then push into the same collection at the same
moment. Their writes obey the same claims, so the order in which the devices' writes
land does not change any field's final value.
"""
import random

# MARK: - What can be written

COLLECTIONS = ("books", "notes", "tasks")
EDITABLE_FIELDS = {"books": ("title", "author"), "notes": ("title", "body"), "tasks": ()}
FLAG_FIELD = {"books": "isFinished", "tasks": "isDone"}
PREFIX = {"books": "b", "notes": "n", "tasks": "t"}

# Text values: every written value is unique in the run (the step number is in it), so a
# record seen twice under two ids is a duplicate, and a value is never "changed" to itself.
WORDS = ("Solaris", "Dune", "Kindred", "Ficciones", "Pedro Páramo", "Дар", "Ōkami", "Middlemarch",
         "Beloved", "Rayuela", "Stoner", "Lolita", "Emma", "Ubik", "Austerlitz", "Ensaio")


MODES = ("calm", "kills", "faults", "concurrent")
# The hostile operator's actions and how often each comes (`--operator-mix`), and how often
# it acts: the chance of an action before a device's step (`--operator-probability`).
OPERATOR_MIX = {"replay": 4, "forge": 2, "delete": 2, "keyring": 1}
OPERATOR_PROBABILITY = 0.2
# The actions a device takes: an operator action may come before any of them.
DEVICE_STEPS = ("add", "edit", "remove", "read", "sync", "burst")
# Modes with lost/cut replies, resets and the server forgetting a collection.
FAULTY_MODES = ("faults", "concurrent")


class Parameters:
    """Knobs of one generated history (all part of what `--seed` replays).

    `concurrent` is `faults` plus bursts: `burst_probability` of the actions are a burst
    of `burst_writes` writes per writer device (a range), then every writer's sync at
    once while the other devices sync up to `reader_syncs_max` times.

    `encrypted` runs every device with end-to-end encryption: with
    `encrypt_probability` the history holds one `encrypt` action part-way through (one
    device turns encryption on over the account's data while the others keep editing),
    otherwise the account is encrypted from its setup. The action lands at a random step
    in the middle of an epoch, where another device may have pushed records the
    enabling device has not pulled yet, and the enabling device's next sync comes when
    the history gives it; `encrypt_after_barrier` puts it first in the epoch after the
    first barrier instead, where every device holds every record, and has the enabling
    device sync right after (`"sync": true`), before any other device syncs.

    `hostile` (encrypted runs only) puts an `operator` action before a device's step with
    `operator_probability`: Kinto's operator replaying, forging, deleting or rolling the
    keyring back (hostile.py), of a kind drawn with the weights of `operator_mix`."""

    def __init__(self, steps=60, devices=2, mode="faults", kill_probability=0.35,
                 fault_probability=0.5, background_probability=0.25,
                 epoch_min=8, epoch_max=30, kill_max_ms=350, wipe_probability=0.15,
                 burst_probability=0.3, burst_writes=(2, 6), reader_syncs_max=6,
                 encrypted=False, encrypt_probability=0.75, encrypt_after_barrier=False,
                 hostile=False, operator_probability=OPERATOR_PROBABILITY, operator_mix=None):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r} ({', '.join(MODES)})")
        if devices < 2:
            raise ValueError("a history needs at least two devices")
        self.steps = steps
        self.devices = devices
        self.mode = mode
        self.kill_probability = kill_probability if mode in ("kills",) + FAULTY_MODES else 0.0
        self.fault_probability = fault_probability if mode in FAULTY_MODES else 0.0
        self.background_probability = background_probability
        self.epoch_min = epoch_min
        self.epoch_max = epoch_max
        self.kill_max_ms = kill_max_ms
        self.wipe_probability = wipe_probability
        self.burst_probability = burst_probability if mode == "concurrent" else 0.0
        self.burst_writes = tuple(burst_writes)
        self.reader_syncs_max = reader_syncs_max
        # Encrypted runs: the account is either encrypted from the start, or (with
        # `encrypt_probability`) turned encrypted part-way through by an `encrypt` action.
        self.encrypted = bool(encrypted)
        self.encrypt_probability = encrypt_probability if encrypted else 0.0
        self.encrypt_after_barrier = bool(encrypt_after_barrier) if encrypted else False
        # Hostile runs: the server's operator acts between the devices' steps.
        if hostile and not encrypted:
            raise ValueError("a hostile operator needs an encrypted account (--encrypted)")
        self.hostile = bool(hostile)
        self.operator_probability = operator_probability if hostile else 0.0
        self.operator_mix = dict(operator_mix or OPERATOR_MIX) if hostile else {}
        if hostile and (set(self.operator_mix) - set(OPERATOR_MIX) or not any(self.operator_mix.values())
                        or min(self.operator_mix.values()) < 0):
            raise ValueError(f"operator mix {self.operator_mix}: weights ≥ 0 of {', '.join(OPERATOR_MIX)}, not all 0")

    def as_dict(self):
        return dict(vars(self))


# MARK: - Generator

class HistoryGenerator:
    """Builds a history step by step, keeping the claims that keep it conflict-free."""

    def __init__(self, seed, parameters):
        self.rng = random.Random(seed)
        self.seed = seed
        self.p = parameters
        self.records = {}          # ref -> {"collection", "creator", "epoch"}
        self.next_ref = 0
        self.epoch = 0
        self.claims = {}           # (ref, field) -> device, this epoch
        self.touched = {}          # ref -> set of devices, this epoch
        self.doomed = set()        # refs deleted this epoch
        self.flags = {}            # ref -> current flag value as the writer device sees it
        self.unsynced = {}         # device -> refs it wrote since its last sync
        self.in_flight = None      # (device, refs) a killed or faulted sync may have sent

    def generate(self):
        encrypt_step, encrypt_action = self._encrypt_plan()
        actions = self._chaos()
        step = 0
        epoch_left = self._epoch_length()
        epoch_start = True
        while step < self.p.steps:
            if encrypt_action and (epoch_start and self.epoch == 1 if self.p.encrypt_after_barrier
                                   else step == encrypt_step):
                if self.p.encrypt_after_barrier:
                    # As a reader would in a quiet moment: turn it on, then sync at once.
                    encrypt_action["sync"] = True
                actions.append(encrypt_action)
                encrypt_action = None
            epoch_start = False
            actions.append(self._action(step))
            step += 1
            epoch_left -= 1
            if epoch_left == 0 and step < self.p.steps:
                actions.append({"op": "barrier"})
                self._new_epoch()
                actions.extend(self._wipe())
                actions.extend(self._chaos())
                epoch_left = self._epoch_length()
                epoch_start = True
        actions.append({"op": "barrier", "final": True})
        return self._with_operator(actions)

    # MARK: Encryption

    def _encrypt_plan(self):
        """Where the `encrypt` action goes, and which device runs it: (step, action), or
        (None, None) when the history has none.

        Drawn from a random source of its own (seeded by the seed), so an encrypted
        history is the plain history of its seed with the `encrypt` action inserted,
        and a plain history draws nothing new. The step lies in the second quarter of
        the history, so several epochs of edits follow it."""
        if not self.p.encrypted or self.p.steps < 2:
            return None, None
        rng = random.Random(f"shelf-encrypt-{self.seed}")
        if rng.random() >= self.p.encrypt_probability:
            return None, None
        low = max(1, self.p.steps // 4)
        step = rng.randint(low, max(low, self.p.steps // 2))
        return step, {"op": "encrypt", "device": rng.randrange(self.p.devices)}

    # MARK: The hostile operator

    def _with_operator(self, actions):
        """`actions` with an `operator` action before some device steps (hostile runs).

        Drawn from a random source of their own (seeded by the seed), one number per device
        step whatever the mix, so a hostile history is its encrypted history with operator
        actions inserted, a shorter history's are a prefix of a longer one's, and the
        other histories draw nothing new."""
        if not self.p.hostile:
            return actions
        rng = random.Random(f"shelf-operator-{self.seed}")
        kinds = sorted(k for k, w in self.p.operator_mix.items() if w > 0)
        weights = [self.p.operator_mix[k] for k in kinds]
        out = []
        for action in actions:
            if action["op"] in DEVICE_STEPS and rng.random() < self.p.operator_probability:
                out.append(self._operator_action(rng, rng.choices(kinds, weights=weights)[0]))
            out.append(action)
        return out

    @staticmethod
    def _operator_action(rng, kind):
        """One operator action; `pick` seeds what it picks among the records it finds then."""
        action = {"op": "operator", "kind": kind}
        if kind == "replay":
            action["count"] = rng.choice((1, 1, 2, 3))
        elif kind == "forge":
            action["collection"] = rng.choice(COLLECTIONS)
            action["target"] = rng.choice(("new", "existing"))
        elif kind == "delete":
            action["collection"] = rng.choice(COLLECTIONS)
            action["scope"] = "all" if rng.random() < 0.2 else "some"
            action["count"] = rng.randint(1, 3)
        else:
            action["variant"] = rng.choices(("rollback", "tamper", "delete"), weights=(3, 2, 1))[0]
        action["pick"] = rng.randrange(1 << 30)
        return action

    # MARK: Epochs and claims

    def _chaos(self):
        """In `faults` mode, seeded random faults on every write request of the epoch
        (besides the one rule some syncs arm): [] in the other modes."""
        if self.p.mode not in FAULTY_MODES:
            return []
        return [{"op": "chaos", "seed": self.rng.randrange(1 << 30), "lose_reply": 0.2,
                 "cut_reply": 0.05, "reset": 0.05, "methods": ["POST", "PUT", "PATCH", "DELETE"]}]

    def _wipe(self):
        """In `faults` mode, sometimes the server forgets a collection right after a
        barrier (every device then holds exactly the model): the devices must notice and
        upload it again, while the new epoch's edits go on."""
        if self.p.mode not in FAULTY_MODES or self.rng.random() >= self.p.wipe_probability:
            return []
        return [{"op": "wipe", "collection": self.rng.choice(COLLECTIONS)}]

    def _epoch_length(self):
        return self.rng.randint(self.p.epoch_min, self.p.epoch_max)

    def _new_epoch(self):
        self.epoch += 1
        for ref in self.doomed:
            self.records.pop(ref, None)
        self.claims, self.touched, self.doomed = {}, {}, set()
        self.unsynced, self.in_flight = {}, None

    def _visible(self, device, collection=None):
        """Records `device` is sure to have and may still touch this epoch."""
        return sorted(
            (ref for ref, r in self.records.items()
             if (collection is None or r["collection"] == collection)
             and ref not in self.doomed
             and (r["epoch"] < self.epoch or r["creator"] == device)),
            key=lambda ref: int(ref[1:]))

    def _may_write(self, device, ref, field):
        return self.claims.get((ref, field), device) == device

    def _claim(self, device, ref, field):
        self.claims[(ref, field)] = device
        self.touched.setdefault(ref, set()).add(device)

    # MARK: Actions

    def _action(self, step):
        follow_up = self._follow_up(step)
        if follow_up:
            return follow_up
        # Only `concurrent` mode draws this number: the other modes' histories stay
        # exactly what their seeds always gave.
        if self.p.burst_probability and self.rng.random() < self.p.burst_probability:
            return self._burst(step)
        device = self.rng.randrange(self.p.devices)
        roll = self.rng.random()
        if roll < 0.22:
            return self._add(step, device)
        if roll < 0.52:
            return self._edit(step, device) or self._add(step, device)
        if roll < 0.62:
            return self._flag(step, device) or self._add(step, device)
        if roll < 0.72:
            return self._remove(step, device) or self._add(step, device)
        if roll < 0.78:
            return {"op": "read", "device": device, "collection": self.rng.choice(COLLECTIONS)}
        return self._sync(device)

    def _follow_up(self, step):
        """Right after a sync that was killed or met a fault, often change again what it
        may have sent: edit or delete a record whose create or edit is in flight."""
        if not self.in_flight:
            return None
        device, refs = self.in_flight
        self.in_flight = None
        if self.rng.random() >= 0.6:
            return None
        refs = [r for r in refs if r in self._visible(device)]
        if not refs:
            return None
        ref = self.rng.choice(refs)
        roll = self.rng.random()
        if roll < 0.35:
            return self._remove(step, device, only=ref)
        if roll < 0.55 and self.records[ref]["collection"] in FLAG_FIELD:
            return self._flag(step, device, only=ref)
        return self._edit(step, device, only=ref)

    def _wrote(self, device, ref):
        self.unsynced.setdefault(device, set()).add(ref)

    def _text(self, step, device, what):
        return f"{self.rng.choice(WORDS)} {what} s{step} d{device}"

    def _add(self, step, device, collection=None):
        collection = collection or self.rng.choice(COLLECTIONS)
        ref = f"{PREFIX[collection]}{self.next_ref}"
        self.next_ref += 1
        self.records[ref] = {"collection": collection, "creator": device, "epoch": self.epoch}
        self.touched.setdefault(ref, set()).add(device)
        if collection == "books":
            fields = {"title": self._text(step, device, "title"), "author": self._text(step, device, "author")}
        elif collection == "notes":
            fields = {"title": self._text(step, device, "note"), "body": self._text(step, device, "body")}
            books = self._visible(device, "books")
            if books and self.rng.random() < 0.6:
                book = self.rng.choice(books)
                fields["bookID"] = book
                self.records[ref]["book"] = book
                # The note names the book; the book must not be deleted in this epoch by
                # anyone else, so the note is "touching" it.
                self.touched.setdefault(book, set()).add(device)
        else:
            fields = {"title": self._text(step, device, "task")}
        self.flags[ref] = False
        self._wrote(device, ref)
        return {"op": "add", "device": device, "collection": collection, "ref": ref, "fields": fields}

    def _edit(self, step, device, only=None, collection=None):
        candidates = [(ref, field) for ref in ([only] if only else self._visible(device, collection))
                      for field in EDITABLE_FIELDS[self.records[ref]["collection"]]
                      if self._may_write(device, ref, field)]
        if not candidates:
            return None
        ref, field = self.rng.choice(candidates)
        self._wrote(device, ref)
        fields = {field: self._text(step, device, field)}
        self._claim(device, ref, field)
        # Sometimes both editable fields at once (one command, one outbox entry).
        other = [f for f in EDITABLE_FIELDS[self.records[ref]["collection"]] if f != field]
        if other and self.rng.random() < 0.25 and self._may_write(device, ref, other[0]):
            fields[other[0]] = self._text(step, device, other[0])
            self._claim(device, ref, other[0])
        return {"op": "edit", "device": device, "collection": self.records[ref]["collection"],
                "ref": ref, "fields": fields}

    def _flag(self, step, device, only=None, collection=None):
        candidates = [ref for ref in ([only] if only else self._visible(device, collection))
                      if self.records[ref]["collection"] in FLAG_FIELD
                      and self._may_write(device, ref, FLAG_FIELD[self.records[ref]["collection"]])]
        if not candidates:
            return None
        ref = self.rng.choice(candidates)
        self._wrote(device, ref)
        collection = self.records[ref]["collection"]
        field = FLAG_FIELD[collection]
        value = not self.flags.get(ref, False)
        self.flags[ref] = value
        self._claim(device, ref, field)
        return {"op": "edit", "device": device, "collection": collection, "ref": ref, "fields": {field: value}}

    def _remove(self, step, device, only=None, collection=None):
        named = self._named_books()
        candidates = [ref for ref in ([only] if only else self._visible(device, collection))
                      if self.touched.get(ref, {device}) <= {device} and ref not in named]
        if not candidates:
            return None
        ref = self.rng.choice(candidates)
        self.doomed.add(ref)
        self.unsynced.get(device, set()).discard(ref)
        self.touched.setdefault(ref, set()).add(device)
        return {"op": "remove", "device": device, "collection": self.records[ref]["collection"], "ref": ref}

    def _named_books(self):
        """Books a note still names: `shelf book rm` refuses them (their notes would
        lose their book), so they are not removed. A note deleted in this epoch counts
        until its barrier: the device removing the book may not have the deletion yet."""
        return {r["book"] for r in self.records.values() if r.get("book")}

    def _sync(self, device):
        action = {"op": "sync", "device": device, "background": self.rng.random() < self.p.background_probability,
                  "via": "shelf" if self.rng.random() < 0.2 else "shelf-sync"}
        if self.rng.random() < self.p.kill_probability:
            action["kill_after_ms"] = self.rng.randint(0, self.p.kill_max_ms)
        if self.rng.random() < self.p.fault_probability:
            action["fault"] = self._fault_rule()
        written = sorted(self.unsynced.pop(device, set()), key=lambda ref: int(ref[1:]))
        if written and ("kill_after_ms" in action or "fault" in action or action["background"]):
            self.in_flight = (device, written)
        return action


    def _fault_rule(self):
        """One proxy rule: a lost or cut reply or a reset, mostly of a batch."""
        kind = self.rng.choices(("lose_reply", "cut_reply", "reset"), weights=(6, 2, 2))[0]
        rule = {"action": kind, "skip": self.rng.choice((0, 0, 0, 1, 2)), "count": 1}
        target = self.rng.random()
        if target < 0.7:
            rule.update(method="POST", path="/v1/batch")
        elif target < 0.85:
            rule["method"] = self.rng.choice(("PUT", "PATCH", "DELETE"))
        else:
            rule["method"] = "GET"
        return rule

    # MARK: Bursts (concurrent mode)

    def _burst(self, step):
        """Several devices push into one collection at the same moment.

        Kinto on PostgreSQL stamps a record inside its still-open transaction, so two
        batches into one collection can commit in the opposite order to their stamps,
        and a device that pulls `_since=<cursor>` between the two commits moves past a
        record it cannot see yet. A burst makes exactly that likely: W ≥ 2 writers each
        make a few writes (mostly into `collection`) at the same time, then every
        writer's `shelf-sync` starts at once — a few more writes on the writer while it
        runs — and the R other devices run `shelf-sync` in a loop meanwhile (at most
        `reader_syncs` times each). Writes follow the epoch's claims like any other."""
        devices = list(range(self.p.devices))
        count = self.rng.randint(2, max(2, self.p.devices - 1))
        writers = sorted(self.rng.sample(devices, count))
        collection = self.rng.choice(COLLECTIONS)
        plan, index, in_flight = [], 0, None
        for device in writers:
            before = []
            for _ in range(self.rng.randint(*self.p.burst_writes)):
                before.append(self._burst_write(f"{step}.{index}", device, collection))
                index += 1
            written = sorted(self.unsynced.pop(device, set()), key=lambda ref: int(ref[1:]))
            sync = {"via": "shelf" if self.rng.random() < 0.2 else "shelf-sync"}
            if self.rng.random() < self.p.kill_probability:
                sync["kill_after_ms"] = self.rng.randint(0, self.p.kill_max_ms)
                in_flight = in_flight or (device, written)
            during = []
            for _ in range(self.rng.choice((0, 0, 1, 2))):
                during.append(self._burst_write(f"{step}.{index}", device, collection))
                index += 1
            plan.append({"device": device, "before": before, "sync": sync, "during": during})
        action = {"op": "burst", "collection": collection, "writers": plan,
                  "readers": [d for d in devices if d not in writers],
                  "reader_syncs": self.rng.randint(2, max(2, self.p.reader_syncs_max))}
        if self.rng.random() < self.p.fault_probability:
            action["fault"] = self._fault_rule()
            in_flight = in_flight or (plan[0]["device"], [a["ref"] for a in plan[0]["before"]])
        self.in_flight = in_flight
        return action

    def _burst_write(self, step, device, collection):
        """One write of a burst: mostly new records of the burst's collection, some
        edits, finishes and deletes of it, now and then a write elsewhere."""
        if self.rng.random() < 0.15:
            collection = self.rng.choice(COLLECTIONS)
        roll = self.rng.random()
        if roll < 0.6:
            return self._add(step, device, collection)
        if roll < 0.8:
            return self._edit(step, device, collection=collection) or self._add(step, device, collection)
        if roll < 0.92:
            return self._flag(step, device, collection=collection) or self._add(step, device, collection)
        return self._remove(step, device, collection=collection) or self._add(step, device, collection)


def flattened(history):
    """The history's actions with every burst replaced by its writes (writer by writer,
    `before` then `during`): what the claims and the model see."""
    for action in history:
        if action["op"] == "burst":
            for writer in action["writers"]:
                yield from writer["before"]
                yield from writer["during"]
        else:
            yield action


def generate(seed, parameters):
    """The history of `seed` under `parameters` (a list of action dicts)."""
    return HistoryGenerator(seed, parameters).generate()
