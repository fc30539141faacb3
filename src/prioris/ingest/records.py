"""One imported JSONL record, validated: what ``prioris import`` accepts and why a line fails.

Besides the work, a record may say which ``collections`` (paths, ``"A / B"``) and ``tags``
the work has: they are stored as the import's labels (origin ``import``), replaced by a
later import of the same record that gives them.

A JSONL file is user data of any provenance (BEIR corpora, exports, hand edits), so each
record is checked by :class:`ImportRecord` before anything is stored: the types of every
field the pipeline reads, a plausible year, and text that SQLite and UTF-8 can hold (lone
surrogates from ``\\ud800`` escapes are replaced). A record that fails becomes one
``invalid_request`` naming the field and the reason; the records around it are imported.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from prioris.errors import InvalidRequestError
from prioris.strings import without_surrogates as clean_text

MIN_YEAR, MAX_YEAR = 1, 9999
_DIGITS = re.compile(r"[0-9]{1,4}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_LABELS = 200  # collections or tags of one record
MAX_LABEL_CHARS = 1000
NO_DATE = frozenset({"n.d.", "n.d", "nd", "s.d.", "no date", "unknown", "n/a"})


def _clean_deep(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): _clean_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_deep(v) for v in value]
    return value


class ImportRecord(BaseModel):
    """A record of ``prioris import``: ``{"_id"|"id", "title", "text", ...}`` (BEIR works)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: str = Field(validation_alias=AliasChoices("_id", "id"), min_length=1)
    title: str | None = None
    text: str | None = None
    abstract: str | None = None
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    source: str | None = None
    metadata: dict[str, Any] | None = None
    collections: list[str] | None = None
    """The collections the work is in (paths as ``"Thesis / Chapter 2"``); None: not given,
    so a re-import leaves the ones an earlier import gave."""
    tags: list[str] | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_is_text(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError("must be a string or an integer")
        return str(value).strip()

    @field_validator("authors", mode="before")
    @classmethod
    def _author_names(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [name.strip() for name in value.split(";") if name.strip()]
        if not isinstance(value, list):
            raise ValueError("must be a list of names or one string of names separated by ';'")
        return value

    @field_validator("year", mode="before")
    @classmethod
    def _plausible_year(cls, value: Any) -> int | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if isinstance(value, str) and value.strip().lower() in NO_DATE:
            return None  # the bibliographic "no date" markers say the year is unknown
        if isinstance(value, bool):
            raise ValueError("must be a year such as 2021")
        if isinstance(value, str):
            if not _DIGITS.fullmatch(value.strip()):
                raise ValueError(f"must be a year such as 2021, not {value[:20]!r}")
            value = int(value.strip())
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise ValueError("must be a year such as 2021")
        if not MIN_YEAR <= value <= MAX_YEAR:
            raise ValueError(f"must be between {MIN_YEAR} and {MAX_YEAR}")
        return value

    @field_validator("collections", "tags", mode="before")
    @classmethod
    def _label_list(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None:
            return None
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("must be a list of names")
        if len(value) > MAX_LABELS:
            raise ValueError(f"at most {MAX_LABELS} names")
        if any(len(v) > MAX_LABEL_CHARS for v in value):
            raise ValueError(f"a name is at most {MAX_LABEL_CHARS} characters")
        names = [" ".join(clean_text(v).split()) for v in value if v.strip()]
        if info.field_name == "collections":  # "A/B" and "A / B" are one path
            names = [" / ".join(s.strip() for s in n.split("/") if s.strip()) for n in names]
        if any(_CONTROL.search(n) for n in names):
            raise ValueError("a name must not hold control characters")
        return [n for n in names if n]

    @field_validator("title", "text", "abstract", "venue", "source", "authors", "metadata")
    @classmethod
    def _clean(cls, value: Any) -> Any:
        return _clean_deep(value)

    def author_list(self) -> list[str]:
        """Authors with blanks dropped."""
        return [name.strip() for name in self.authors if name.strip()]


def _reason(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "record"
        message = str(item["msg"]).removeprefix("Value error, ")
        parts.append(f"{field}: {message}")
    return "; ".join(dict.fromkeys(parts))


def validate_record(value: Any) -> ImportRecord:
    """The record as an :class:`ImportRecord`, or InvalidRequestError saying what is wrong."""
    if not isinstance(value, dict):
        raise InvalidRequestError("a record must be a JSON object")
    if not any(key in value for key in ("_id", "id")):
        raise InvalidRequestError("record has no '_id' or 'id'")
    try:
        record = ImportRecord.model_validate(value)
    except ValidationError as exc:
        raise InvalidRequestError(f"invalid record: {_reason(exc)}") from None
    if not record.id:
        raise InvalidRequestError("record has an empty '_id' or 'id'")
    if not (record.title or "").strip() and not (record.text or record.abstract or "").strip():
        raise InvalidRequestError(f"record {record.id!r} has neither title nor text")
    return record
