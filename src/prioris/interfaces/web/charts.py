"""Plots of the Status page as inline SVG, drawn from counts (no chart library, no network).

Series differ by pattern as well as colour (solid, hatched, dotted, ...) and every bar
carries its numbers in a ``<title>``; the page also gives the same counts as a table, so
the plots read without colour and with a screen reader.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from prioris.interfaces.web.views import source_label

COLOURS = ("#1f5fa8", "#c26a00", "#2e7d32", "#8e24aa", "#b71c1c", "#455a64")
PATTERNS = ("solid", "hatch", "dots", "cross", "lines", "back")
MAX_COLUMNS = 60


def _pattern_defs(prefix: str, count: int) -> str:
    parts = []
    for index in range(count):
        colour, kind = COLOURS[index % len(COLOURS)], PATTERNS[index % len(PATTERNS)]
        pid = f"{prefix}-p{index}"
        body = {
            "solid": f'<rect width="8" height="8" fill="{colour}"/>',
            "hatch": f'<rect width="8" height="8" fill="#fff"/>'
            f'<path d="M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4" stroke="{colour}" stroke-width="2.5"/>',
            "dots": f'<rect width="8" height="8" fill="#fff"/>'
            f'<circle cx="4" cy="4" r="2.2" fill="{colour}"/>',
            "cross": f'<rect width="8" height="8" fill="#fff"/>'
            f'<path d="M0,4 h8 M4,0 v8" stroke="{colour}" stroke-width="2"/>',
            "lines": f'<rect width="8" height="8" fill="#fff"/>'
            f'<path d="M0,2 h8 M0,6 h8" stroke="{colour}" stroke-width="1.8"/>',
            "back": f'<rect width="8" height="8" fill="#fff"/>'
            f'<path d="M-2,6 l4,4 M0,0 l8,8 M6,-2 l4,4" stroke="{colour}" stroke-width="2.5"/>',
        }[kind]
        parts.append(
            f'<pattern id="{pid}" width="8" height="8" patternUnits="userSpaceOnUse">{body}'
            "</pattern>"
        )
    return "<defs>" + "".join(parts) + "</defs>"


def _fill(prefix: str, index: int) -> str:
    return f"url(#{prefix}-p{index})"


def _nice_max(value: int) -> int:
    if value <= 5:
        return max(value, 1)
    magnitude = 10 ** (len(str(value)) - 1)
    for step in (1, 2, 5, 10):
        top = step * magnitude
        if top >= value:
            return top
    return value


def _series_order(counts: Sequence[dict[str, Any]]) -> list[str]:
    totals: dict[str, int] = defaultdict(int)
    for row in counts:
        totals[row["source"]] += row["count"]
    return sorted(totals, key=lambda s: (-totals[s], s))


def works_per_year_svg(counts: Sequence[dict[str, Any]], prefix: str = "year") -> Markup | None:
    """Stacked columns: works per publication year, one pattern per source (None: no years)."""
    dated = [row for row in counts if row["year"] is not None]
    if not dated:
        return None
    sources = _series_order(dated)
    by_year: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in dated:
        by_year[int(row["year"])][row["source"]] += row["count"]
    first, last = min(by_year), max(by_year)
    if last - first + 1 > MAX_COLUMNS:  # keep columns readable: the latest years only
        first = last - MAX_COLUMNS + 1
    years = list(range(first, last + 1))
    older = sum(sum(v.values()) for y, v in by_year.items() if y < first)
    top = _nice_max(max((sum(by_year[y].values()) for y in years), default=1))
    width, height, left, right, bottom, head = 720, 300, 44, 12, 40, 16
    plot_w, plot_h = width - left - right, height - bottom - head
    step = plot_w / len(years)
    bar_w = max(2.0, step * 0.8)
    out = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{prefix}-title" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{prefix}-title">Works per publication year, by source</title>',
        _pattern_defs(prefix, len(sources)),
    ]
    for fraction in (0, 0.5, 1):
        y = head + plot_h * (1 - fraction)
        out.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
            'stroke="#999" stroke-width="0.5"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="12" '
            f'fill="#222">{round(top * fraction)}</text>'
        )
    label_every = max(1, round(len(years) / 12))
    for index, year in enumerate(years):
        x = left + index * step + (step - bar_w) / 2
        base = head + plot_h
        parts = by_year.get(year, {})
        total = sum(parts.values())
        if total:
            detail = ", ".join(f"{source_label(s)} {parts[s]}" for s in sources if parts.get(s))
            out.append(f"<g><title>{year}: {total} work(s) ({escape(detail)})</title>")
            for s_index, source in enumerate(sources):
                n = parts.get(source, 0)
                if not n:
                    continue
                h = plot_h * n / top
                base -= h
                out.append(
                    f'<rect x="{x:.1f}" y="{base:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                    f'fill="{_fill(prefix, s_index)}" stroke="#222" stroke-width="0.6"/>'
                )
            out.append("</g>")
        if index % label_every == 0 or index == len(years) - 1:
            out.append(
                f'<text x="{x + bar_w / 2:.1f}" y="{head + plot_h + 16}" text-anchor="middle" '
                f'font-size="12" fill="#222">{year}</text>'
            )
    if older:
        out.append(
            f'<text x="{left}" y="{height - 4}" font-size="12" fill="#222">'
            f"plus {older} work(s) before {first}</text>"
        )
    out.append("</svg>")
    return Markup("".join(out))


def legend_html(counts: Sequence[dict[str, Any]], prefix: str = "year") -> Markup:
    """The legend of :func:`works_per_year_svg` (whose patterns it reuses: same page)."""
    sources = _series_order([r for r in counts if r["year"] is not None])
    items = []
    for index, source in enumerate(sources):
        items.append(
            '<li><svg width="18" height="18" aria-hidden="true" '
            'xmlns="http://www.w3.org/2000/svg">'
            f'<rect x="1" y="1" width="16" height="16" fill="{_fill(prefix, index)}" '
            f'stroke="#222"/></svg> {escape(source_label(source))}</li>'
        )
    return Markup('<ul class="legend">' + "".join(items) + "</ul>")


def works_by_source_svg(counts: Sequence[dict[str, Any]], prefix: str = "src") -> Markup | None:
    """Horizontal bars: works per source, each labelled with its name and count."""
    totals: dict[str, int] = defaultdict(int)
    for row in counts:
        totals[row["source"]] += row["count"]
    if not totals:
        return None
    sources = sorted(totals, key=lambda s: (-totals[s], s))
    row_h, label_w, width = 34, 120, 560
    height = row_h * len(sources) + 8
    top = max(totals.values())
    bar_space = width - label_w - 70
    out = [
        f'<svg class="plot plot-bars" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{prefix}-title" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{prefix}-title">Works by source</title>',
        _pattern_defs(prefix, len(sources)),
    ]
    for index, source in enumerate(sources):
        y = 4 + index * row_h
        w = max(2.0, bar_space * totals[source] / top)
        out.append(
            f"<g><title>{escape(source_label(source))}: {totals[source]} work(s)</title>"
            f'<text x="{label_w - 8}" y="{y + 21}" text-anchor="end" font-size="14" '
            f'fill="#222">{escape(source_label(source))}</text>'
            f'<rect x="{label_w}" y="{y + 4}" width="{w:.1f}" height="{row_h - 10}" '
            f'fill="{_fill(prefix, index)}" stroke="#222" stroke-width="0.8"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 21}" font-size="14" fill="#222">'
            f"{totals[source]}</text></g>"
        )
    out.append("</svg>")
    return Markup("".join(out))
