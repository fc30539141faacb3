"""Settings from $XDG_CONFIG_HOME/prioris/config.toml: under the environment, over defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from prioris.config import load_settings
from prioris.errors import ConfigurationError

from conftest import start_library


def write_config(home: Path, text: str) -> Path:
    path = home / "prioris" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_file_values_are_read_in_either_case_and_any_toml_type(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        'ocr = "always"\nPORT = 9001\nhybrid_weights = [0.7, 0.3]\n'
        'cors_origins = ["https://a.example", "https://b.example"]\n'
        "arxiv_min_interval_seconds = 0.5\n",
    )
    settings = load_settings({"XDG_CONFIG_HOME": str(tmp_path)})
    assert settings.ocr_mode == "always" and settings.port == 9001
    assert settings.fusion_weights == (0.7, 0.3)
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert settings.min_intervals["arxiv"] == 0.5


def test_environment_wins_over_the_file(tmp_path: Path) -> None:
    write_config(tmp_path, 'ocr = "always"\nocr_languages = "deu"\n')
    settings = load_settings({"XDG_CONFIG_HOME": str(tmp_path), "PRIORIS_MCP_OCR": "never"})
    assert settings.ocr_mode == "never" and settings.ocr_languages == "deu"


def test_default_location_is_under_home_config(tmp_path: Path) -> None:
    write_config(tmp_path / ".config", 'data_dir = "/srv/papers"\n')
    settings = load_settings({"HOME": str(tmp_path)})
    assert settings.data_dir == Path("/srv/papers")
    assert settings.db_path == Path("/srv/papers/library.sqlite")


def test_explicit_config_variable_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text("port = 7000\n")
    assert load_settings({"PRIORIS_MCP_CONFIG": str(path)}).port == 7000
    with pytest.raises(ConfigurationError, match=r"PRIORIS_MCP_CONFIG.*no such file"):
        load_settings({"PRIORIS_MCP_CONFIG": str(tmp_path / "missing.toml")})
    assert load_settings({"XDG_CONFIG_HOME": str(tmp_path / "none")}).port == 8000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('ocr = "sometimes"\n', "key 'ocr': PRIORIS_MCP_OCR='sometimes' is invalid"),
        ("ocr_languages = 1\nport = -4\n", "key 'port'"),
        ('ocrr = "always"\n', "unknown setting 'ocrr'"),
        ("[server]\nport = 1\n", "key 'server' has a dict value"),
        ("port = \n", "not valid TOML"),
        ("port = 1\nPORT = 2\n", "given twice"),
    ],
)
def test_bad_file_values_name_the_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = write_config(tmp_path, text)
    with pytest.raises(ConfigurationError) as err:
        load_settings({"XDG_CONFIG_HOME": str(tmp_path)})
    assert err.value.message.startswith(str(path)) and expected in err.value.message


def test_a_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    path = write_config(tmp_path, "")
    path.write_bytes(b'ocr = "never"\n\xff\xfe bad\n')
    with pytest.raises(ConfigurationError) as err:
        load_settings({"XDG_CONFIG_HOME": str(tmp_path)})
    assert err.value.message == f"{path}: not valid TOML (not UTF-8 text: byte 14 is 0xff)"


def test_a_nul_in_a_file_value_is_refused_naming_the_key(tmp_path: Path) -> None:
    path = write_config(tmp_path, 'data_dir = "lib\\u0000rary"\n')
    with pytest.raises(ConfigurationError) as err:
        load_settings({"XDG_CONFIG_HOME": str(tmp_path)})
    assert err.value.message.startswith(str(path)) and "NUL byte" in err.value.message


def test_an_invalid_environment_value_is_not_blamed_on_the_file(tmp_path: Path) -> None:
    write_config(tmp_path, 'ocr = "always"\n')
    with pytest.raises(ConfigurationError) as err:
        load_settings({"XDG_CONFIG_HOME": str(tmp_path), "PRIORIS_MCP_OCR": "bad"})
    assert err.value.message.startswith("PRIORIS_MCP_OCR='bad'")


def test_cli_options_win_over_file_and_environment(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from prioris.interfaces.cli import main

    config_home = tmp_path / "cfg"
    write_config(config_home, f'db = "{tmp_path / "from-file.sqlite"}"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    monkeypatch.setenv("PRIORIS_MCP_DATA_DIR", str(tmp_path / "data"))
    for db in ("from-file.sqlite", "cli.sqlite"):
        start_library(tmp_path / db)
    assert main(["status", "--json"]) == 0
    assert str(tmp_path / "from-file.sqlite") in capsys.readouterr().out
    assert main(["status", "--json", "--db", str(tmp_path / "cli.sqlite")]) == 0
    assert str(tmp_path / "cli.sqlite") in capsys.readouterr().out
