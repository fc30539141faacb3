"""Plots of the Status page as inline SVG, drawn from counts (no chart library, no network).

Series differ by pattern as well as colour (solid, hatched, dotted, ...) and every bar
carries its numbers in a ``<title>``; the page also gives the same counts as a table, so
the plots read without colour and with a screen reader.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass
class YearTable:
    """Counts per (year, source) for the years drawn, plus what falls before them."""

    sources: list[str]
    by_year: dict[int, dict[str, int]]
    years: list[int]
    older: int

    @classmethod
    def of(cls, counts: Sequence[dict[str, Any]]) -> YearTable | None:
        dated = [row for row in counts if row["year"] is not None]
        if not dated:
            return None
        by_year: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for row in dated:
            by_year[int(row["year"])][row["source"]] += row["count"]
        first, last = min(by_year), max(by_year)
        if last - first + 1 > MAX_COLUMNS:  # keep bars readable: the latest years only
            first = last - MAX_COLUMNS + 1
        older = sum(sum(v.values()) for y, v in by_year.items() if y < first)
        return cls(_series_order(dated), by_year, list(range(first, last + 1)), older)

    def total(self, year: int) -> int:
        return sum(self.by_year.get(year, {}).values())

    def title(self, year: int) -> str:
        parts = self.by_year.get(year, {})
        detail = ", ".join(f"{source_label(s)} {parts[s]}" for s in self.sources if parts.get(s))
        return f"{year}: {self.total(year)} work(s) ({escape(detail)})"

    def segments(self, year: int) -> list[tuple[int, int]]:
        """``(series index, count)`` of one year, in series order."""
        parts = self.by_year.get(year, {})
        return [(i, parts[s]) for i, s in enumerate(self.sources) if parts.get(s)]


def _open_svg(css: str, prefix: str, width: int, height: int, title: str, series: int) -> str:
    return (
        f'<svg class="{css}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{prefix}-title" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{prefix}-title">{title}</title>{_pattern_defs(prefix, series)}'
    )


def works_per_year_svg(counts: Sequence[dict[str, Any]], prefix: str = "year") -> Markup | None:
    """Stacked columns: works per publication year, one pattern per source (None: no years)."""
    table = YearTable.of(counts)
    if table is None:
        return None
    years = table.years
    top = _nice_max(max(table.total(y) for y in years))
    width, height, left, right, bottom, head = 720, 300, 44, 12, 40, 16
    plot_w, plot_h = width - left - right, height - bottom - head
    step = plot_w / len(years)
    bar_w = min(48.0, max(2.0, step * 0.8))
    out = [
        _open_svg(
            "plot plot-columns",
            prefix,
            width,
            height,
            "Works per publication year, by source",
            len(table.sources),
        )
    ]
    for tick in sorted({0, top} | ({top // 2} if top >= 4 and top % 2 == 0 else set())):
        y = head + plot_h * (1 - tick / top)
        out.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
            'stroke="#999" stroke-width="0.5"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="12" '
            f'fill="#222">{tick}</text>'
        )
    label_every = max(1, round(len(years) / 12))
    for index, year in enumerate(years):
        x = left + index * step + (step - bar_w) / 2
        base = head + plot_h
        if table.total(year):
            out.append(f"<g><title>{table.title(year)}</title>")
            for series, n in table.segments(year):
                h = plot_h * n / top
                base -= h
                out.append(
                    f'<rect x="{x:.1f}" y="{base:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                    f'fill="{_fill(prefix, series)}" stroke="#222" stroke-width="0.6"/>'
                )
            out.append("</g>")
        if index % label_every == 0 or index == len(years) - 1:
            out.append(
                f'<text x="{x + bar_w / 2:.1f}" y="{head + plot_h + 16}" text-anchor="middle" '
                f'font-size="12" fill="#222">{year}</text>'
            )
    if table.older:
        out.append(
            f'<text x="{left}" y="{height - 4}" font-size="12" fill="#222">'
            f"plus {table.older} work(s) before {years[0]}</text>"
        )
    out.append("</svg>")
    return Markup("".join(out))


def works_per_year_rows_svg(
    counts: Sequence[dict[str, Any]], prefix: str = "yrows"
) -> Markup | None:
    """The same counts as one labelled row per year: what a narrow screen shows instead."""
    table = YearTable.of(counts)
    if table is None:
        return None
    shown = [y for y in table.years if table.total(y)]
    top = max(table.total(y) for y in shown)
    row_h, label_w, width = 24, 48, 360
    bar_space = width - label_w - 44
    height = row_h * len(shown) + (22 if table.older else 4)
    out = [
        _open_svg(
            "plot plot-rows",
            prefix,
            width,
            height,
            "Works per publication year, by source",
            len(table.sources),
        )
    ]
    for index, year in enumerate(shown):
        y = 2 + index * row_h
        x = float(label_w)
        out.append(
            f"<g><title>{table.title(year)}</title>"
            f'<text x="{label_w - 6}" y="{y + 16}" text-anchor="end" font-size="13" '
            f'fill="#222">{year}</text>'
        )
        for series, n in table.segments(year):
            w = max(1.5, bar_space * n / top)
            out.append(
                f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
                f'fill="{_fill(prefix, series)}" stroke="#222" stroke-width="0.6"/>'
            )
            x += w
        out.append(
            f'<text x="{x + 5:.1f}" y="{y + 16}" font-size="13" fill="#222">'
            f"{table.total(year)}</text></g>"
        )
    if table.older:
        out.append(
            f'<text x="0" y="{height - 4}" font-size="13" fill="#222">'
            f"plus {table.older} work(s) before {table.years[0]}</text>"
        )
    out.append("</svg>")
    return Markup("".join(out))


def legend_html(counts: Sequence[dict[str, Any]], prefix: str = "legend") -> Markup:
    """The legend of the per-year plots: each source's pattern swatch and name."""
    sources = _series_order([r for r in counts if r["year"] is not None])
    defs = (
        '<svg width="0" height="0" aria-hidden="true" focusable="false" class="defs" '
        f'xmlns="http://www.w3.org/2000/svg">{_pattern_defs(prefix, len(sources))}</svg>'
    )
    items = [
        '<li><svg width="18" height="18" aria-hidden="true" '
        'xmlns="http://www.w3.org/2000/svg">'
        f'<rect x="1" y="1" width="16" height="16" fill="{_fill(prefix, index)}" '
        f'stroke="#222"/></svg> {escape(source_label(source))}</li>'
        for index, source in enumerate(sources)
    ]
    return Markup(defs + '<ul class="legend">' + "".join(items) + "</ul>")


def works_by_source_svg(counts: Sequence[dict[str, Any]], prefix: str = "src") -> Markup | None:
    """Horizontal bars: works per source, each labelled with its name and count."""
    totals: dict[str, int] = defaultdict(int)
    for row in counts:
        totals[row["source"]] += row["count"]
    if not totals:
        return None
    sources = sorted(totals, key=lambda s: (-totals[s], s))
    row_h, label_w, width = 30, 100, 360
    height = row_h * len(sources) + 8
    top = max(totals.values())
    bar_space = width - label_w - 56
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
            f'<text x="{label_w - 8}" y="{y + 19}" text-anchor="end" font-size="14" '
            f'fill="#222">{escape(source_label(source))}</text>'
            f'<rect x="{label_w}" y="{y + 4}" width="{w:.1f}" height="{row_h - 10}" '
            f'fill="{_fill(prefix, index)}" stroke="#222" stroke-width="0.8"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 19}" font-size="14" fill="#222">'
            f"{totals[source]}</text></g>"
        )
    out.append("</svg>")
    return Markup("".join(out))
