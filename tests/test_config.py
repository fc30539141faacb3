"""Settings from the environment: defaults of SPEC section 2 and clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from prioris.config import load_settings
from prioris.errors import ConfigurationError


def test_defaults() -> None:
    settings = load_settings({"HOME": "/home/u"})
    assert settings.data_dir == Path("/home/u/.local/share/prioris")
    assert settings.db_path == settings.data_dir / "library.sqlite"
    assert settings.ocr_mode == "auto" and settings.ocr_languages == "eng"
    assert settings.min_intervals == {
        "arxiv": 3.0,
        "europepmc": 1.0,
        "openalex": 0.1,
        "discovery": 1.0,
    }
    assert settings.backoff_budget_seconds == 60 and settings.http_timeout_seconds == 30
    assert settings.max_file_bytes == 104_857_600
    assert (settings.transport, settings.host, settings.port) == ("stdio", "127.0.0.1", 8000)
    assert settings.arxiv_api_url == "https://export.arxiv.org/api/query"
    assert settings.openalex_api_key is None and settings.embedding_model is None


def test_xdg_and_explicit_paths() -> None:
    assert load_settings({"XDG_DATA_HOME": "/x"}).data_dir == Path("/x/prioris")
    settings = load_settings({"PRIORIS_MCP_DATA_DIR": "/d", "PRIORIS_MCP_DB": "/e/lib.db"})
    assert settings.data_dir == Path("/d") and settings.db_path == Path("/e/lib.db")


def test_values_are_read() -> None:
    settings = load_settings(
        {
            "PRIORIS_MCP_OCR": "ALWAYS",
            "PRIORIS_MCP_ARXIV_MIN_INTERVAL_SECONDS": "0",
            "PRIORIS_MCP_OPENALEX_BASE_URL": "http://127.0.0.1:9/",
            "PRIORIS_MCP_PORT": "9000",
            "PRIORIS_MCP_CORS_ORIGINS": "https://a.example, https://b.example",
            "PRIORIS_MCP_HYBRID_METHOD": "rrf",
            "PRIORIS_MCP_HYBRID_RRF_K": "10",
        }
    )
    assert settings.ocr_mode == "always" and settings.min_intervals["arxiv"] == 0
    assert settings.openalex_base_url == "http://127.0.0.1:9" and settings.port == 9000
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert settings.fusion_method == "rrf" and settings.fusion_weights == (0.5, 0.5)
    assert settings.rrf_k == 10


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("PRIORIS_MCP_OCR", "sometimes", "auto, always, never"),
        ("PRIORIS_MCP_TRANSPORT", "carrier-pigeon", "stdio, http"),
        ("PRIORIS_MCP_HTTP_TIMEOUT_SECONDS", "soon", "a number"),
        ("PRIORIS_MCP_MAX_FILE_BYTES", "0", "an integer from 1 to"),
        ("PRIORIS_MCP_ARXIV_MIN_INTERVAL_SECONDS", "-1", "a number from 0 to 3600"),
        ("PRIORIS_MCP_EUROPEPMC_BASE_URL", "ftp://x", "an http(s) URL"),
        ("PRIORIS_MCP_HYBRID_WEIGHTS", "0.5", "two numbers"),
    ],
)
def test_invalid_values_name_the_variable(name: str, value: str, accepted: str) -> None:
    with pytest.raises(ConfigurationError) as err:
        load_settings({name: value})
    assert name in err.value.message and accepted in err.value.message


def test_input_limits_have_defaults_and_variables() -> None:
    settings = load_settings({"PRIORIS_MCP_DATA_DIR": "/tmp/x"})
    assert settings.pdf_max_pages == 2000 and settings.pdf_time_limit_seconds == 300
    assert settings.max_query_chars == 4096 and settings.max_record_bytes == 4 << 20
    tuned = load_settings(
        {
            "PRIORIS_MCP_DATA_DIR": "/tmp/x",
            "PRIORIS_MCP_PDF_MAX_PAGES": "10",
            "PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES": str(64 << 20),
            "PRIORIS_MCP_MAX_QUERY_CHARS": "100",
            "PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS": "5",
        }
    )
    assert (tuned.pdf_max_pages, tuned.max_query_chars) == (10, 100)
    assert tuned.ocr_page_timeout_seconds == 5 and tuned.pdf_memory_limit_bytes == 64 << 20


def test_the_postings_threshold_defaults_to_100k_and_0_turns_it_off() -> None:
    assert load_settings({"PRIORIS_MCP_DATA_DIR": "/tmp/x"}).postings_min_chunks == 100_000
    off = load_settings({"PRIORIS_MCP_DATA_DIR": "/tmp/x", "PRIORIS_MCP_POSTINGS_MIN_CHUNKS": "0"})
    assert off.postings_min_chunks == 0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PRIORIS_MCP_PDF_MAX_PAGES", "0"),
        ("PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS", "many"),
        ("PRIORIS_MCP_PDF_TIME_LIMIT_SECONDS", "-1"),
        ("PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES", "1000"),
        ("PRIORIS_MCP_MAX_RECORD_BYTES", "1.5"),
        ("PRIORIS_MCP_MAX_QUERY_CHARS", "0"),
        ("PRIORIS_MCP_POSTINGS_MIN_CHUNKS", "-1"),
    ],
)
def test_an_invalid_limit_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigurationError, match=name):
        load_settings({"PRIORIS_MCP_DATA_DIR": "/tmp/x", name: value})


def test_a_postgres_url_names_the_library_and_its_settings_are_read() -> None:
    url = "postgresql://lab:pw@db.example/library?sslmode=verify-full"
    settings = load_settings({"PRIORIS_MCP_DATA_DIR": "/d", "PRIORIS_MCP_DB": url})
    assert settings.db_url == url and settings.library_location == url
    assert settings.db_path == Path("/d/library.sqlite")  # uploads stay under the data dir
    assert load_settings({"PRIORIS_MCP_DB": "postgres://h/x"}).db_url == "postgres://h/x"
    file = load_settings({"PRIORIS_MCP_DB": "/tmp/x.sqlite"})
    assert file.db_url is None and file.library_location == Path("/tmp/x.sqlite")
    assert settings.with_library("/tmp/y.sqlite").library_location == Path("/tmp/y.sqlite")
    assert file.with_library(url).library_location == url
    tuned = load_settings(
        {
            "PRIORIS_MCP_PG_POOL_SIZE": "8",
            "PRIORIS_MCP_PG_CONNECT_TIMEOUT_SECONDS": "3",
            "PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS": "60",
            "PRIORIS_MCP_PG_EF_SEARCH": "200",
        }
    )
    assert (tuned.pg_pool_size, tuned.pg_connect_timeout_seconds) == (8, 3)
    assert (tuned.pg_statement_timeout_seconds, tuned.pg_ef_search) == (60, 200)
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_PG_POOL_SIZE"):
        load_settings({"PRIORIS_MCP_PG_POOL_SIZE": "0"})


OUT_OF_RANGE = [
    ("PRIORIS_MCP_PORT", "65536"),
    ("PRIORIS_MCP_UI_PORT", "99999"),
    ("PRIORIS_MCP_HYBRID_RRF_K", "1" * 401),
    ("PRIORIS_MCP_PDF_TIME_LIMIT_SECONDS", "1e300"),
    ("PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS", "inf"),
    ("PRIORIS_MCP_HTTP_TIMEOUT_SECONDS", "nan"),
    ("PRIORIS_MCP_MAX_FILE_BYTES", "1" + "0" * 30),
    ("PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES", "1" + "0" * 30),
    ("PRIORIS_MCP_PG_CONNECT_TIMEOUT_SECONDS", "1" + "0" * 15),
    ("PRIORIS_MCP_HYBRID_WEIGHTS", "nan,inf"),
    ("PRIORIS_MCP_HYBRID_WEIGHTS", "0.5,1e400"),
    ("PRIORIS_MCP_WORK_VECTOR_WEIGHT", "1.5"),
]


@pytest.mark.parametrize(("name", "value"), OUT_OF_RANGE)
def test_values_out_of_range_are_one_line_errors(name: str, value: str) -> None:
    """Numbers a setting cannot use (a port over 65535, a 401-digit k, inf, NaN, 10^30
    bytes) are refused when read, naming the variable and the range, never later as an
    OverflowError from the code that uses them."""
    with pytest.raises(ConfigurationError) as err:
        load_settings({name: value})
    message = err.value.message
    assert message.startswith(f"{name}=") and "accepted:" in message and " to " in message
    assert len(message) < 200 and "\n" not in message


def test_every_numeric_setting_has_a_range_that_its_default_is_in() -> None:
    import dataclasses

    from prioris.config import RANGES, Settings

    defaults = load_settings({})
    for name, (low, high) in RANGES.items():
        assert low <= high, name
        assert load_settings({name: str(high if name != "PRIORIS_MCP_HYBRID_WEIGHTS" else "")})
    from prioris.config import _KEYWORD_VARIABLES

    for f in dataclasses.fields(Settings):
        value = getattr(defaults, f.name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        variable = _KEYWORD_VARIABLES.get(f.name, f"PRIORIS_MCP_{f.name.upper()}")
        assert variable in RANGES, f"{f.name} ({variable}) has no range"
        low, high = RANGES[variable]
        assert low <= value <= high, f.name
    documented = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text()
    ranges = documented[documented.index("## Ranges") :]
    for name, (_low, high) in RANGES.items():
        row = next((line for line in ranges.splitlines() if f"| `{name}` |" in line), "")
        assert f"{high:,.0f}" in row or f"{high:g}" in row, f"{name}: not in the docs' Ranges"
