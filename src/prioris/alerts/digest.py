"""The day's alerts as one e-mail: per alert, its new candidates best first, each with its
score, why it is there and a link to read it; a plain-text part and an HTML part.

Pure: it composes an :class:`email.message.EmailMessage` from the rankings it is given
and sends nothing (:mod:`prioris.alerts.mailer` does). An alert with nothing new is left
out; an alert whose last run failed is named with the failing source (a broken alert is
news too). When no alert has anything new and none failed there is no message (None)
unless ``always`` asks for one that says so, so a daily cron job mails only when there is
something to read.
Every text in the HTML part is escaped, and only http(s) links are made.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any
from urllib.parse import quote

from prioris.alerts.atom import why_text

MAX_PER_ALERT = 25
"""Candidates one alert shows in a digest (the Alerts page and the feed have them all)."""


def candidate_link(item: dict[str, Any]) -> str:
    """Where a person reads a candidate: its own link, else its DOI's or arXiv's page, else
    its id when that is a web address; '' when none is known."""
    link = str(item.get("link") or "")
    if link.startswith(("http://", "https://")):
        return link
    ident = str(item.get("id") or "")
    kind, _, value = ident.partition(":")
    if kind == "doi" and value:
        return "https://doi.org/" + quote(value, safe="/:;()._-")
    if kind == "arxiv" and value:
        return "https://arxiv.org/abs/" + quote(value, safe="/.")
    if ident.startswith(("http://", "https://")):
        return ident
    return ""


def _fresh(candidates: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in candidates if not c.get("in_library")][:MAX_PER_ALERT]


def _failure(section: dict[str, Any]) -> str:
    """``The last run failed at SOURCE: code: message``, or '' when it did not fail."""
    error = section.get("error")
    if not error:
        return ""
    where = f" at {error['source']}" if error.get("source") else ""
    return f"The last run failed{where}: {error.get('code')}: {error.get('message')}"


def digest_subject(sections: Sequence[dict[str, Any]], day: str) -> str:
    """``Prioris alerts 2026-12-06: 5 new papers (graphs 3, folding 2)``."""
    counts = [(s["alert"], len(_fresh(s["candidates"]))) for s in sections]
    counts = [(name, n) for name, n in counts if n]
    total = sum(n for _, n in counts)
    failed = sum(1 for s in sections if s.get("error"))
    broken = f", {failed} alert{'s' if failed != 1 else ''} failed" if failed else ""
    if not total:
        return f"Prioris alerts {day}: nothing new{broken}"
    each = ", ".join(f"{name} {n}" for name, n in counts)
    return f"Prioris alerts {day}: {total} new paper{'s' if total != 1 else ''} ({each}){broken}"


def digest_text(sections: Sequence[dict[str, Any]], day: str) -> str:
    """The plain-text part."""
    lines = [digest_subject(sections, day), ""]
    for section in sections:
        fresh = _fresh(section["candidates"])
        failure = _failure(section)
        if not fresh and not failure:
            continue
        lines += [f"== {section['alert']} ({len(fresh)} new) ==", ""]
        if failure:
            lines += [failure, ""]
        for rank, item in enumerate(fresh, 1):
            lines.append(f"{rank}. {item.get('title') or item['id']}")
            lines.append(f"   score {float(item['score']):.3f} | {item['id']}")
            why = why_text(item.get("why") or {})
            if why:
                lines.append(f"   why: {why}")
            link = candidate_link(item)
            if link:
                lines.append(f"   {link}")
            lines.append("")
    if len(lines) == 2:
        lines.append("No alert found anything new since the last digest.")
    lines.append(
        "-- Prioris: triage them on the web app's Alerts page, or prioris alerts show NAME"
    )
    return "\n".join(lines) + "\n"


def digest_html(sections: Sequence[dict[str, Any]], day: str) -> str:
    """The HTML part: the same content, escaped, links only to http(s) addresses."""
    esc = html.escape
    parts = [
        "<!doctype html><html><body>",
        f"<h1>{esc(digest_subject(sections, day))}</h1>",
    ]
    shown = 0
    for section in sections:
        fresh = _fresh(section["candidates"])
        failure = _failure(section)
        if not fresh and not failure:
            continue
        shown += 1
        parts.append(f"<h2>{esc(section['alert'])} ({len(fresh)} new)</h2>")
        if failure:
            parts.append(f"<p><strong>{esc(failure)}</strong></p>")
        parts.append("<ol>")
        for item in fresh:
            title = esc(str(item.get("title") or item["id"]))
            link = candidate_link(item)
            head = f'<a href="{esc(link, quote=True)}">{title}</a>' if link else title
            why = why_text(item.get("why") or {})
            parts.append(
                f"<li><p><strong>{head}</strong><br>"
                f"score {float(item['score']):.3f} &middot; <code>{esc(str(item['id']))}</code>"
                + (f"<br><small>why: {esc(why)}</small>" if why else "")
                + "</p></li>"
            )
        parts.append("</ol>")
    if not shown:
        parts.append("<p>No alert found anything new since the last digest.</p>")
    parts.append("<p><small>Prioris: triage them on the web app's Alerts page.</small></p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def has_news(sections: Sequence[dict[str, Any]]) -> bool:
    """Whether any alert has a candidate the library does not hold, or failed."""
    return any(_fresh(s["candidates"]) or s.get("error") for s in sections)


def compose_digest(
    sections: Sequence[dict[str, Any]],
    *,
    sender: str,
    recipients: Sequence[str],
    day: str,
    always: bool = False,
) -> EmailMessage | None:
    """The digest of ``sections`` (``[{"alert": NAME, "candidates": [{"id", "title",
    "score", "why", "in_library", "link"?}]}]``, best first), or None when nothing is new
    and ``always`` is false."""
    if not always and not has_news(sections):
        return None
    message = EmailMessage()
    message["Subject"] = digest_subject(sections, day)
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain="prioris.invalid")
    message.set_content(digest_text(sections, day))
    message.add_alternative(digest_html(sections, day), subtype="html")
    return message
