"""Shrinking a failing history to a small one that still fails the same way.

Runs are real processes with real timing, so a removal that makes a run pass may only
have been lucky; the shrinker therefore keeps a removal only when the smaller history
*failed* with a divergence of the same kind, which is always a valid witness. Barriers
are never removed: merging two epochs could turn allowed edits into real concurrent
edits of one field. Removing the `add` of a record removes every action that names it,
inside bursts too; a burst is removed whole or kept whole (less the writes of removed
records).
"""
SECONDARY = {"pending", "devices_differ", "differs_from_server"}


def failure_kinds(result):
    kinds = {k for k, v in result.findings.counts.items() if v}
    if result.failure:
        kinds.add("refused")
    primary = kinds - SECONDARY
    return primary or kinds


def without(history, indexes):
    """`history` minus the actions at `indexes` and every action naming a removed record."""
    removed_refs = set()
    for i in indexes:
        removed_refs |= _created(history[i])
    kept = []
    for i, action in enumerate(history):
        if i in indexes:
            continue
        if action["op"] == "burst":
            kept.append(_burst_without(action, removed_refs))
        elif not _names_removed(action, removed_refs):
            kept.append(action)
    return kept


def _created(action):
    """The refs an action (or a burst's writes) creates."""
    if action["op"] == "burst":
        return {w["ref"] for writer in action["writers"] for w in writer["before"] + writer["during"]
                if w["op"] == "add"}
    return {action["ref"]} if action["op"] == "add" else set()


def _names_removed(action, removed_refs):
    """True when the action names a removed record; a dropped add removes its ref too."""
    if action.get("ref") in removed_refs or action.get("fields", {}).get("bookID") in removed_refs:
        if action["op"] == "add":
            removed_refs.add(action["ref"])
        return True
    return False


def _burst_without(burst, removed_refs):
    """The burst with the writes that name a removed record dropped (its syncs stay)."""
    writers = [dict(writer, **{phase: [w for w in writer[phase] if not _names_removed(w, removed_refs)]
                               for phase in ("before", "during")})
               for writer in burst["writers"]]
    return dict(burst, writers=writers)


def without_empty_epochs(history):
    """Drops a barrier that follows another barrier (or the start): an empty epoch."""
    kept = []
    for action in history:
        if action["op"] == "barrier" and not action.get("final") and (not kept or kept[-1]["op"] == "barrier"):
            continue
        kept.append(action)
    return kept


def truncated(history, end):
    """The first `end` actions, closed by a final barrier."""
    head = [a for a in history[:end] if not a.get("final")]
    while head and head[-1]["op"] == "barrier":
        head.pop()
    return head + [{"op": "barrier", "final": True}]


def shrink(history, run, kinds, budget=40, log=print):
    """Greedy delta debugging. `run(history)` returns a RunResult; at most `budget` runs."""
    runs = 0

    def fails(candidate):
        nonlocal runs
        runs += 1
        result = run(candidate)
        same = not result.ok and bool(failure_kinds(result) & kinds)
        log(f"shrink: {len(candidate)} actions -> {'fails' if same else 'passes'} (run {runs}/{budget})")
        return same

    # 1. The shortest prefix: the run stops at the first barrier that fails.
    current = history
    low, high = 1, len(history)
    while low < high and runs < budget:
        middle = (low + high) // 2
        candidate = without_empty_epochs(truncated(history, middle))
        if fails(candidate):
            high, current = middle, candidate
        else:
            low = middle + 1
    # 2. Chunks of actions (never barriers), halving the chunk size.
    size = max(1, len(current) // 2)
    while size >= 1 and runs < budget:
        index, changed = 0, False
        while index < len(current) and runs < budget:
            chunk = {i for i in range(index, min(index + size, len(current))) if current[i]["op"] != "barrier"}
            if chunk:
                candidate = without_empty_epochs(without(current, chunk))
                if len(candidate) < len(current) and fails(candidate):
                    current, changed = candidate, True
                    continue
            index += size
        if not changed:
            size //= 2
    return current
