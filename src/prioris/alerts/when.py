"""Dates as the alert sources compare them: ``since`` checked once, every provider's date
(arXiv's and Atom's RFC 3339, RSS's RFC 822, Europe PMC's and OpenAlex's plain days, a
feed's bare year) read into one sortable ISO form, and "is this new?" decided at the
coarser of the two precisions.

Separate from the sources because every one of them asks the same question, and a
source that answered it its own way would show a paper twice or never: a candidate dated
only ``2026-03-02`` is new since ``2026-03-02T09:00:00Z`` (the day cannot tell which side
it falls on, so it is kept), and one dated ``2026`` is new since any day of 2026.
"""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime

from prioris.errors import InvalidRequestError

_DAY_RE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def _iso_datetime(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def normalise_date(text: str | None) -> str | None:
    """``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM:SSZ`` (UTC) for any date
    a provider or feed writes, else None (an unreadable date is no date: the entry stays
    undated rather than failing the whole source)."""
    if not isinstance(text, str) or not text.strip():
        return None
    value = text.strip()
    day = _DAY_RE.match(value)
    if day:
        year, month, dom = day.groups()
        try:
            datetime(int(year), int(month or 1), int(dom or 1))
        except ValueError:
            return None
        return value
    try:  # RFC 3339 / ISO 8601 (arXiv, Atom, dc:date); 3.11 reads a trailing Z
        return _iso_datetime(datetime.fromisoformat(value.replace("z", "Z")))
    except ValueError:
        pass
    try:  # RFC 822 (RSS 2.0 pubDate): "Tue, 02 Jan 2024 10:00:00 GMT"
        return _iso_datetime(email.utils.parsedate_to_datetime(value))
    except (TypeError, ValueError, IndexError):
        return None


def check_since(since: str | None) -> str | None:
    """``since`` in the normal form, None for none; anything else is invalid_request (the
    caller passes a day or an ISO moment, usually the last run)."""
    if since is None or (isinstance(since, str) and not since.strip()):
        return None
    value = normalise_date(since) if isinstance(since, str) else None
    if value is None or len(value) < 10:
        raise InvalidRequestError(
            f"since must be a day (2026-03-02) or an ISO moment (2026-03-02T09:00:00Z), "
            f"got {since!r}"
        )
    return value


def is_new(published: str | None, since: str | None) -> bool:
    """Whether a candidate dated ``published`` (normal form) counts as new since ``since``:
    compared at the coarser precision of the two; an undated candidate is kept (a feed
    entry without a date cannot be shown to be old)."""
    if since is None or published is None:
        return True
    width = min(len(published), len(since))
    return published[:width] >= since[:width]


def since_day(since: str) -> str:
    """The day of ``since`` (``YYYY-MM-DD``), what the providers' date filters take."""
    return since[:10]
