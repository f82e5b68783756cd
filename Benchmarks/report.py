"""The results: an aligned table for people, a JSON file for machines.

Each scenario is an entry with one row per contender. Process rows carry spreads
(median, min, max over the runs) of wall time, client CPU (user+sys), peak RSS and,
when the run went through the counting proxy, requests and bytes; ratios compare a
contender's medians with the peer's (and, for first syncs, with the curl floor's).
"""
from __future__ import annotations

import datetime
import json
import pathlib

from measure import median_of

PEER, FLOOR, SHELF = "peer", "curl", "shelf"
NAMES = {PEER: "kinto-http (peer)", FLOOR: "curl (floor)", SHELF: "Shelf"}


# MARK: - Ratios

def add_ratios(entry: dict) -> None:
    """`x/peer` and `x/floor` for wall and CPU medians, written into each row."""
    rows = entry["contenders"]
    peer = rows.get(PEER, {}).get("summary")
    floor = rows.get(FLOOR, {}).get("summary") if entry.get("floor") else None
    for name, row in rows.items():
        summary = row.get("summary")
        if not summary:
            continue
        ratios = {}
        for key in ("wall_s", "cpu_s", "maxrss_kb", "requests"):
            if name != PEER:
                ratios[f"{key}_vs_peer"] = _ratio(median_of(summary, key), median_of(peer, key))
            if floor is not None and name != FLOOR and key in ("wall_s", "cpu_s"):
                ratios[f"{key}_vs_floor"] = _ratio(median_of(summary, key), median_of(floor, key))
        row["ratios"] = {k: v for k, v in ratios.items() if v is not None}


def _ratio(value: float | None, base: float | None) -> float | None:
    if value is None or not base:
        return None
    return round(value / base, 3)


# MARK: - Table

def _spread(summary: dict | None, key: str, unit: str, scale: float = 1.0, digits: int = 2) -> str:
    if not summary or not summary.get(key):
        return "—"
    s = summary[key]
    med, lo, hi = (s[k] * scale for k in ("median", "min", "max"))
    if s["n"] == 1 or lo == hi:
        return f"{med:.{digits}f} {unit}"
    return f"{med:.{digits}f} [{lo:.{digits}f}–{hi:.{digits}f}] {unit}"


def _count(summary: dict | None, key: str, scale: float = 1.0, unit: str = "") -> str:
    value = median_of(summary, key)
    if value is None:
        return "—"
    value *= scale
    return (f"{value:.0f}" if value >= 100 or float(value).is_integer() else f"{value:.1f}") + unit


def _times(ratios: dict, key: str) -> str:
    value = ratios.get(key)
    return "—" if value is None else f"{value:.2f}×"


def table(results: dict) -> str:
    header = ["scenario", "contender", "wall median [min–max]", "CPU user+sys", "peak RSS",
              "req", "KB down", "wall/peer", "CPU/peer", "wall/floor"]
    lines = [header]
    for entry in results["scenarios"]:
        label = entry["label"]
        for name, row in entry["contenders"].items():
            who = NAMES.get(name, name)
            if "skipped" in row:
                lines.append([label, who, "skipped: " + row["skipped"]])
            elif entry["kind"] == "process":
                s, r = row.get("summary"), row.get("ratios", {})
                wall = _spread(s, "wall_s", "s", digits=3 if (median_of(s, "wall_s") or 1) < 0.1 else 2)
                if s and s.get("failed"):
                    wall += f" ({s['failed']}/{s['runs']} failed)"
                lines.append([label, who, wall, _spread(s, "cpu_s", "s"),
                              _count(s, "maxrss_kb", 1 / 1024, " MB"), _count(s, "requests"),
                              _count(s, "bytes_down", 1 / 1024), _times(r, "wall_s_vs_peer"),
                              _times(r, "cpu_s_vs_peer"), _times(r, "wall_s_vs_floor")])
            elif entry["kind"] == "value":
                lines.append([label, who, row["text"]])
            label = ""
    # Free-text rows (skips, throughputs, ratios) do not widen the figure columns.
    measured = [line for line in lines if len(line) == len(header)]
    widths = [max(len(line[i]) for line in (lines if i < 2 else measured)) for i in range(len(header))]
    rendered = []
    for index, line in enumerate(lines):
        if len(line) == len(header):
            rendered.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip())
        else:
            rendered.append(f"{line[0].ljust(widths[0])}  {line[1].ljust(widths[1])}  {line[2]}")
        if index == 0:
            rendered.append("  ".join("-" * w for w in widths))
    rendered += request_breakdown(results)
    for note in results.get("notes", []):
        rendered.append("note: " + note)
    return "\n".join(rendered)


def request_breakdown(results: dict) -> list[str]:
    """Which requests each client made in the counted scenarios (its last good run)."""
    lines = []
    for entry in results["scenarios"]:
        if entry["scenario"] not in ("no_change", "delta") and not entry["scenario"].startswith("push"):
            continue
        for name, row in entry["contenders"].items():
            good = [s for s in row.get("samples", []) if s.get("exit_code") == 0 and "by_kind" in s]
            if not good:
                continue
            kinds = ", ".join(f"{_short(kind)} ×{count}" for kind, count in good[-1]["by_kind"].items())
            statuses = ", ".join(f"{status} ×{count}" for status, count in good[-1].get("statuses", {}).items())
            lines.append(f"requests: {entry['label']}, {NAMES.get(name, name)}: {kinds} (HTTP {statuses})")
    return lines


# Shelf's push of 1,000 edits should take at most half kinto-http's wall, with the same requests.
PUSH_TARGET_RATIO = 0.5
PUSH_TARGET_RECORDS = 1000


def push_summary(results: dict) -> list[str]:
    """One line per push: Shelf's wall over kinto-http's, and the requests each made.

    The push is where several Kinto processes can matter (Shelf sends batches of different
    collections side by side), so the line names the server it ran against; the 1,000-edit
    lines are judged against PUSH_TARGET_RATIO.
    """
    server = results.get("meta", {}).get("kinto_server", {}).get("description", "kinto start")
    lines = []
    for entry in results["scenarios"]:
        if not entry["scenario"].startswith("push"):
            continue
        rows = entry["contenders"]
        peer, shelf = rows.get(PEER, {}), rows.get(SHELF, {})
        where = "into books" if entry.get("layout") == "books" else "across 4 collections"
        head = f"push {entry['records']:,} edits {where} ({server}):"
        if "summary" not in peer or "summary" not in shelf:
            lines.append(f"{head} not compared ({shelf.get('skipped') or peer.get('skipped') or 'a contender failed'})")
            continue
        peer_wall, shelf_wall = median_of(peer["summary"], "wall_s"), median_of(shelf["summary"], "wall_s")
        if not peer_wall or not shelf_wall:
            lines.append(f"{head} not compared (no successful run of both)")
            continue
        ratio = shelf_wall / peer_wall
        text = (f"{head} Shelf {shelf_wall:.2f} s, kinto-http {peer_wall:.2f} s = {ratio:.2f}× wall; "
                f"requests Shelf {_sample_median(shelf, 'requests')} ({_sample_median(shelf, 'batch_requests')} "
                f"POST /v1/batch), kinto-http {_sample_median(peer, 'requests')} "
                f"({_sample_median(peer, 'batch_requests')} POST /v1/batch)")
        server_cpu = [_sample_median(row, "server_cpu_s") for row in (shelf, peer)]
        if "—" not in server_cpu:
            text += f"; Kinto+PostgreSQL CPU Shelf {server_cpu[0]} s, kinto-http {server_cpu[1]} s"
        if entry["records"] == PUSH_TARGET_RECORDS:
            met = ratio <= PUSH_TARGET_RATIO
            text += f" — target ≤ {PUSH_TARGET_RATIO}×: {'MET' if met else 'MISSED'}"
        lines.append(text)
    return lines


def _sample_median(row: dict, key: str) -> str:
    """The median of one per-run figure over a contender's successful runs, as text."""
    values = sorted(s[key] for s in row.get("samples", []) if s.get("exit_code") == 0 and key in s)
    if not values:
        return "—"
    middle = len(values) // 2
    value = values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
    return f"{value:g}" if isinstance(value, int) or float(value).is_integer() else f"{value:.2f}"


def _short(kind: str) -> str:
    """`GET /v1/buckets/default/collections/books/records` → `GET default/books/records`."""
    return kind.replace("/v1/buckets/", "").replace("/collections/", "/")


# MARK: - JSON file

def write(results: dict, folder: pathlib.Path, prefix: str = "") -> pathlib.Path:
    """`<prefix><timestamp>.json` and `<prefix>latest.json` in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = folder / f"{prefix}{stamp}.json"
    text = json.dumps(results, indent=2, sort_keys=False)
    path.write_text(text)
    (folder / f"{prefix}latest.json").write_text(text)
    return path
