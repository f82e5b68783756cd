"""Line charts as SVG text, standard library only: the scale curve's and the device load's plots.

`chart` draws one panel — a few named series of (x, y) points on a log-scale x axis
(records, or simulated devices: the panel's `x_label`) and a linear y axis from 0 — and
`figure` stacks panels into one SVG document. No plotting library: the harness runs on a
bare `.venv`, and a plot that a browser opens is all the benchmarks need.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

# Distinguishable in colour and in grey (dash patterns differ too).
STYLES = [("#1f77b4", ""), ("#d62728", "6 3"), ("#2ca02c", "2 3"), ("#9467bd", "8 3 2 3")]


@dataclass
class Series:
    name: str
    points: list[tuple[float, float]]


@dataclass
class Panel:
    title: str
    y_label: str
    series: list[Series] = field(default_factory=list)
    x_label: str = "records (log scale)"


# MARK: - Axes

def log_ticks(low: float, high: float) -> list[float]:
    """Powers of ten covering [low, high] (at least two)."""
    if low <= 0 or high <= 0:
        raise ValueError("a log axis needs positive values")
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    if first == last:
        last += 1
    return [10.0 ** e for e in range(first, last + 1)]


def linear_ticks(high: float, count: int = 5) -> list[float]:
    """0 and round steps (1, 2 or 5 × 10^k) up to at least `high`."""
    if high <= 0:
        return [0.0, 1.0]
    raw = high / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    ticks = [0.0]
    while ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def human(value: float) -> str:
    """1000 → 1k, 1000000 → 1M, 0.25 → 0.25."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            number = value / size
            return f"{number:g}{suffix}"
    return f"{value:g}"


# MARK: - Drawing

WIDTH, PANEL_HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 70, 160, 34, 46


def chart(panel: Panel, top: float) -> list[str]:
    """SVG elements of one panel whose box starts `top` pixels down."""
    points = [p for s in panel.series for p in s.points]
    parts = [f'<text x="{LEFT}" y="{top + 20}" font-size="14" font-weight="bold">{escape(panel.title)}</text>']
    if not points:
        parts.append(f'<text x="{LEFT}" y="{top + PANEL_HEIGHT / 2}" font-size="12">no data</text>')
        return parts
    xs = log_ticks(min(x for x, _ in points), max(x for x, _ in points))
    ys = linear_ticks(max(y for _, y in points))
    x0, x1 = LEFT, WIDTH - RIGHT
    y0, y1 = top + PANEL_HEIGHT - BOTTOM, top + TOP

    def px(x: float) -> float:
        span = math.log10(xs[-1]) - math.log10(xs[0])
        return x0 + (x1 - x0) * (math.log10(x) - math.log10(xs[0])) / span

    def py(y: float) -> float:
        return y0 - (y0 - y1) * y / ys[-1]

    parts.append(f'<rect x="{x0}" y="{y1}" width="{x1 - x0}" height="{y0 - y1}" fill="none" stroke="#444"/>')
    for tick in xs:
        parts.append(f'<line x1="{px(tick):.1f}" y1="{y1}" x2="{px(tick):.1f}" y2="{y0}" stroke="#ddd"/>')
        parts.append(f'<text x="{px(tick):.1f}" y="{y0 + 16}" font-size="11" text-anchor="middle">{human(tick)}</text>')
    for tick in ys:
        parts.append(f'<line x1="{x0}" y1="{py(tick):.1f}" x2="{x1}" y2="{py(tick):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{x0 - 6}" y="{py(tick) + 4:.1f}" font-size="11" text-anchor="end">{human(tick)}</text>')
    parts.append(f'<text x="{(x0 + x1) / 2}" y="{y0 + 34}" font-size="12" text-anchor="middle">{escape(panel.x_label)}</text>')
    parts.append(f'<text x="16" y="{(y0 + y1) / 2}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 16 {(y0 + y1) / 2})">{escape(panel.y_label)}</text>')
    for index, series in enumerate(panel.series):
        colour, dash = STYLES[index % len(STYLES)]
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        path = sorted(series.points)
        if len(path) > 1:
            coords = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in path)
            parts.append(f'<polyline class="series" data-name="{escape(series.name)}" points="{coords}" '
                         f'fill="none" stroke="{colour}" stroke-width="2"{dashes}/>')
        for x, y in path:
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        legend_y = y1 + 16 + 18 * index
        parts.append(f'<line x1="{x1 + 12}" y1="{legend_y - 4}" x2="{x1 + 36}" y2="{legend_y - 4}" '
                     f'stroke="{colour}" stroke-width="2"{dashes}/>')
        parts.append(f'<text x="{x1 + 42}" y="{legend_y}" font-size="12">{escape(series.name)}</text>')
    return parts


def figure(title: str, panels: list[Panel]) -> str:
    """One SVG document: a title, then the panels one under the other."""
    height = 30 + PANEL_HEIGHT * len(panels)
    parts = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
             f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">',
             f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
             f'<text x="{WIDTH / 2}" y="20" font-size="15" text-anchor="middle">{escape(title)}</text>']
    for index, panel in enumerate(panels):
        parts += chart(panel, 30 + PANEL_HEIGHT * index)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
