"""``Library.open`` with keyword settings: a named library from Python, checked as the
environment variables are."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from prioris.config import Settings, keyword_settings, load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ConfigurationError
from prioris.library import Library

from conftest import FakeOcr


def test_open_a_named_data_dir_and_use_it(tmp_path: Path, data_dir: Any) -> None:
    named = tmp_path / "papers"
    with Library.open(data_dir=named, embedder=FakeEmbedder(), ocr=FakeOcr()) as lib:
        assert lib.settings.data_dir == named
        assert lib.settings.db_path == named / "library.sqlite"
        lib.import_records(
            [{"_id": "a", "title": "Quokka habitats", "text": "Quokkas on islands."}]
        )
    assert (named / "library.sqlite").exists()
    with Library.open(data_dir=str(named), embedder=FakeEmbedder(), ocr=FakeOcr()) as lib:
        assert [h.id for h in lib.search("quokka", mode="fts").hits] == ["a"]


def test_db_names_the_file_and_other_settings_are_keywords(tmp_path: Path, data_dir: Any) -> None:
    db = tmp_path / "elsewhere" / "lab.db"
    with Library.open(
        db=db, ocr_mode="never", min_intervals={"arxiv": 0}, embedder=FakeEmbedder()
    ) as lib:
        assert lib.settings.db_path == db and db.exists()
        assert lib.settings.ocr_mode == "never"
        assert lib.settings.min_intervals["arxiv"] == 0


def test_a_data_dir_keyword_wins_over_the_environments_db(tmp_path: Path) -> None:
    env = {"PRIORIS_MCP_DB": str(tmp_path / "env.db"), "HOME": str(tmp_path)}
    settings = keyword_settings({"data_dir": tmp_path / "kw"}, env)
    assert settings.db_path == tmp_path / "kw" / "library.sqlite"
    assert keyword_settings({}, env).db_path == tmp_path / "env.db"


def test_keywords_are_checked_like_their_variables(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_OCR"):
        keyword_settings({"ocr_mode": "sometimes"}, env)
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_PDF_MAX_PAGES"):
        keyword_settings({"pdf_max_pages": 0}, env)
    with pytest.raises(ConfigurationError, match="data_dir holds a NUL byte"):
        keyword_settings({"data_dir": "a\x00b"}, env)
    with pytest.raises(TypeError, match=r"unknown setting 'data_directory'.*data_dir"):
        keyword_settings({"data_directory": "x"}, env)
    with pytest.raises(TypeError, match="unknown provider 'crossref'"):
        keyword_settings({"min_intervals": {"crossref": 1}}, env)
    assert keyword_settings({"http_allow_remote": True}, env).http_allow_remote is True
    assert keyword_settings({"fusion_weights": (0.3, 0.7)}, env).fusion_weights == (0.3, 0.7)
    assert keyword_settings({"fusion_method": "rrf"}, env).fusion_method == "rrf"


def test_every_setting_has_a_keyword(tmp_path: Path) -> None:
    """Each Settings field (but the derived db_path/db_url) can be given as a keyword and
    reaches the Settings: a new field without a variable would fail here."""
    env = {"HOME": str(tmp_path)}
    defaults = load_settings(env)
    samples = {
        str: "https://example.org/x",
        int: 7,
        float: 0.5,
    }
    special = {
        "data_dir": tmp_path / "d",
        "embedding_model_path": tmp_path / "m",
        "ocr_mode": "never",
        "transport": "http",
        "fusion_method": "rrf",
        "fusion_weights": (0.2, 0.8),
        "cors_origins": ("http://a.example",),
        "cluster": "local:2",
        "allowed_import_dirs": (tmp_path / "imports",),
        "http_allow_remote": True,
        "http_token": "t" * 20,
        "enrich": "off",
        "embedding_model": "some/model",
        "rerank_model": "some/reranker",
        "ocr_languages": "deu",
        "openalex_api_key": "key",
        "host": "0.0.0.0",
        "min_intervals": {"openalex": 0.5},
        "work_vector_weight": 0.5,
        "zotero_dir": Path("/papers/Zotero"),
        "zotero_base_dir": Path("/papers/linked"),
        "smtp_host": "mail.example.org",
        "smtp_security": "ssl",
        "smtp_user": "ana",
        "smtp_password": "secret words",
        "smtp_from": "Prioris <prioris@example.org>",
        "smtp_to": ("ana@example.org", "ben@example.org"),
        "allow_private_feeds": True,
        "db_shard_missing": "partial",
    }
    for f in dataclasses.fields(Settings):
        if f.name in ("db_path", "db_url", "db_replicas", "db_shards"):
            continue  # derived from db, or (replicas, shards) only beside a postgresql:// db
        value = special.get(f.name)
        if value is None:
            value = samples[type(getattr(defaults, f.name))]
            if isinstance(value, int) and f.name.endswith("_bytes"):
                value = 1 << 26
        got = getattr(keyword_settings({f.name: value}, env), f.name)
        if f.name == "min_intervals":
            assert got["openalex"] == 0.5
        elif isinstance(value, Path):
            assert got == value
        else:
            assert got == value, f.name


def test_settings_and_keywords_together_are_refused(data_dir: Any) -> None:
    with pytest.raises(TypeError, match="not both"):
        Library.open(load_settings(), data_dir="x")
