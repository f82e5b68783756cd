"""The regression guard of `make bench-quick`: this run's ratios against the ones committed.

Benchmarks/README.md keeps, between `<!-- bench-guard:begin -->` and `<!-- bench-guard:end -->`,
one table row per figure: its name, the value last measured, the noise band around it (what
repeated runs on this shared machine spread over), and which way is better. After a run,
`verdicts` reads the same figures from the results and says, for each, whether it stayed
within its band, got better, or got worse by more than its noise — and `bench.py` exits 3 when
one got worse, so `make bench-quick` says so.

A ratio, not a time: Shelf against kinto-http and curl measured in the same run, alternated,
so that the machine's load moves both sides.
"""
from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass

from measure import median_of

BEGIN, END = "<!-- bench-guard:begin -->", "<!-- bench-guard:end -->"


@dataclass(frozen=True)
class Guard:
    name: str
    value: float
    noise: float
    better: str  # "lower" or "higher"


def committed(readme: str) -> list[Guard]:
    """The guarded figures as README.md commits them (rows `| name | value | noise | lower |`)."""
    if BEGIN not in readme or END not in readme:
        return []
    block = readme.split(BEGIN, 1)[1].split(END, 1)[0]
    guards = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[3] not in ("lower", "higher"):
            continue
        try:
            guards.append(Guard(cells[0], float(cells[1].rstrip("×")), float(cells[2].lstrip("±").rstrip("×")), cells[3]))
        except ValueError:
            continue
    return guards


def measured(results: dict) -> dict[str, float]:
    """The guarded figures of one run, by name."""
    found: dict[str, float] = {}
    for entry in results.get("scenarios", []):
        shelf = entry.get("contenders", {}).get("shelf", {})
        if entry.get("scenario") == "first_sync" and "summary" in shelf:
            size = entry.get("size")
            label = f"{size // 1000}k" if size and size < 1_000_000 else f"{(size or 0) // 1_000_000}M"
            ratios = shelf.get("ratios", {})
            if "cpu_s_vs_peer" in ratios:
                found[f"first sync {label}: Shelf CPU / kinto-http CPU"] = ratios["cpu_s_vs_peer"]
            if "wall_s_vs_floor" in ratios:
                found[f"first sync {label}: Shelf wall / curl wall"] = ratios["wall_s_vs_floor"]
        if entry.get("scenario") == "no_change" and "summary" in shelf:
            requests = median_of(shelf["summary"], "requests")
            if requests is not None:
                found["nothing changed: Shelf requests"] = requests
        if entry.get("scenario") == "json" and "swift_vs_python_storage" in entry:
            found["storage race: Shelf / Python storage"] = entry["swift_vs_python_storage"]
    return found


def verdicts(guards: list[Guard], figures: dict[str, float]) -> tuple[list[str], bool]:
    """One line per guarded figure, and whether any got worse by more than its noise."""
    lines, worse = [], False
    for guard in guards:
        value = figures.get(guard.name)
        if value is None:
            lines.append(f"guard: {guard.name}: not measured in this run")
            continue
        delta = value - guard.value if guard.better == "lower" else guard.value - value
        if delta > guard.noise:
            worse = True
            verdict = f"WORSE by {delta:.2f}, more than its noise ±{guard.noise:g}"
        elif delta < -guard.noise:
            verdict = "better than committed (update README.md's figure)"
        else:
            verdict = "within its noise"
        lines.append(f"guard: {guard.name}: {value:.2f} (committed {guard.value:g} ±{guard.noise:g}, "
                     f"{guard.better} is better): {verdict}")
    return lines, worse


def check(results: dict, readme: pathlib.Path) -> tuple[list[str], bool]:
    guards = committed(readme.read_text()) if readme.exists() else []
    if not guards:
        return [f"guard: no committed figures in {readme} ({BEGIN} … {END})"], False
    return verdicts(guards, measured(results))
