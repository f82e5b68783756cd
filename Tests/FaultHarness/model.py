"""The model: what the devices must end up showing, built from acknowledged edits only.

An edit is acknowledged when the `shelf` command that made it exited 0 and printed the
written object: the user was told it is kept. Because the generator never lets two
devices write the same field in one epoch (see generator.py), the expected value of a
field is simply the last acknowledged write in history order, and nothing the model
holds may ever conflict.
"""

FIELDS = {
    "books": ("title", "author", "isFinished"),
    "notes": ("bookID", "title", "body"),
    "tasks": ("title", "isDone"),
}
DEFAULTS = {"books": {"isFinished": False}, "notes": {"bookID": None, "body": ""}, "tasks": {"isDone": False}}


class Model:
    def __init__(self):
        self.live = {c: {} for c in FIELDS}      # collection -> id -> fields
        self.deleted = {c: set() for c in FIELDS}
        self.created = {c: set() for c in FIELDS}
        # Every value a field held before its current one: (collection, id, field) -> values.
        # Written values are unique in a run (generator.py), so a device showing one of
        # these shows an older version of the record.
        self.past = {}

    # MARK: Acknowledged edits

    def add(self, collection, record_id, fields):
        record = dict(DEFAULTS[collection])
        record.update({k: v for k, v in fields.items() if k in FIELDS[collection]})
        self.live[collection][record_id] = record
        self.created[collection].add(record_id)

    def edit(self, collection, record_id, fields):
        record = self.live[collection].get(record_id)
        if record is None:
            raise KeyError(f"model: edit of {collection}/{record_id}, which the model does not hold")
        for field, value in fields.items():
            if field in FIELDS[collection] and record.get(field) != value:
                self.past.setdefault((collection, record_id, field), set()).add(record.get(field))
        record.update({k: v for k, v in fields.items() if k in FIELDS[collection]})

    def remove(self, collection, record_id):
        self.live[collection].pop(record_id, None)
        self.deleted[collection].add(record_id)

    # MARK: Views

    def expected(self, collection):
        """id -> {field: value} of what every device must list."""
        return {rid: {f: rec.get(f) for f in FIELDS[collection]} for rid, rec in self.live[collection].items()}

    def is_past(self, collection, record_id, field, value):
        """Whether `value` is one the field held before its current value (text only: a
        flag has two values, so an old one cannot be told from a wrong one)."""
        return isinstance(value, str) and value in self.past.get((collection, record_id, field), ())

    def count(self):
        return sum(len(v) for v in self.live.values())

    # MARK: Self-tests of the checker

    def corrupt(self, kind):
        """Makes the model wrong on purpose, so the checker must report a divergence.

        Returns a description, or raises ValueError when the model holds nothing the
        corruption can use.
        """
        if kind == "missing":
            self.live["tasks"]["00000000-0000-4000-8000-00000000dead"] = {"title": "never written", "isDone": False}
            self.created["tasks"].add("00000000-0000-4000-8000-00000000dead")
            return "a task no device ever wrote was added to the model"
        candidates = [(c, rid) for c in sorted(self.live) for rid in sorted(self.live[c])]
        if not candidates:
            raise ValueError(f"cannot inject '{kind}': the model holds no record")
        collection, rid = candidates[0]
        if kind == "extra":
            del self.live[collection][rid]
            self.created[collection].discard(rid)
            return f"{collection}/{rid} was dropped from the model"
        if kind == "resurrected":
            self.remove(collection, rid)
            return f"{collection}/{rid} was marked deleted in the model"
        if kind == "wrong":
            self.live[collection][rid]["title"] = "a value nobody wrote"
            return f"{collection}/{rid}'s title was changed in the model"
        raise ValueError(f"unknown divergence {kind!r}")
