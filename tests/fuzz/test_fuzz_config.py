"""``config.toml`` as hostile input: arbitrary bytes, arbitrary text, and TOML documents
whose keys are real settings (and near misses) with values of every TOML type and size.

Whatever the file holds, :func:`load_settings` returns settings or raises one
ConfigurationError whose message is one line (what the CLI prints after ``error
[configuration_error]:``); never another exception, a traceback or a hang."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

import prioris.config as config_module
from prioris.config import Settings, load_settings
from prioris.errors import ConfigurationError

# every setting's name as the file writes it: the variables the config package's modules
# read, less the prefix
_CONFIG_SOURCE = "".join(p.read_text() for p in Path(config_module.__file__).parent.glob("*.py"))
SETTINGS = sorted(set(re.findall(r'"PRIORIS_MCP_([A-Z0-9_]+)"', _CONFIG_SOURCE)) - {"CONFIG"})
_files = itertools.count()


def _load(tmp_path: Path, data: bytes) -> None:
    """Write ``data`` as the config file and read the settings over it."""
    path = tmp_path / f"config-{next(_files)}.toml"
    path.write_bytes(data)
    env = {"PRIORIS_MCP_CONFIG": str(path), "PRIORIS_MCP_DATA_DIR": str(tmp_path / "data")}
    try:
        settings = load_settings(env)
    except ConfigurationError as exc:
        assert exc.code == "configuration_error"
        assert exc.message and "\n" not in exc.message and "\r" not in exc.message, exc.message
        return
    assert isinstance(settings, Settings)


# -- TOML values ----------------------------------------------------------------------------
def _string(text: str) -> str:
    return json.dumps(text)  # a TOML basic string (JSON's escapes are TOML's)


def _float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


SCALAR = st.one_of(
    st.text(max_size=30).map(_string),
    st.sampled_from(["0", "-1", "65535", "65536", "1e300", "1e-300", "0x1F", "1_000"]).map(_string),
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.integers(-(10**40), 10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(_float),
    st.booleans().map(lambda b: "true" if b else "false"),
    st.sampled_from(["1979-05-27T07:32:00Z", "1979-05-27", "07:32:00", "'literal'", '""']),
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.dictionaries(st.sampled_from(["a", "b", "port"]), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k} = {v}" for k, v in d.items()) + "}"
        ),
    ),
    max_leaves=6,
)
KEY = st.one_of(
    st.sampled_from(SETTINGS),
    st.sampled_from(SETTINGS).map(str.lower),
    st.sampled_from(SETTINGS).map(lambda k: k.lower().replace("_", "-")),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=12),
    st.text(max_size=10).map(_string),  # a quoted key: anything
)
DOCUMENT = st.lists(st.tuples(KEY, VALUE), max_size=8).map(
    lambda pairs: "\n".join(f"{k} = {v}" for k, v in pairs) + "\n"
)


@given(document=DOCUMENT)
@example(document="port = 70000\nrrf_k = 1" + "0" * 400 + "\n")
@example(document="pdf_time_limit_seconds = inf\nhybrid_weights = [nan, inf]\n")
@example(document='max_file_bytes = 1000000000000000000000000000000\nocr = "sometimes"\n')
@example(document="[table]\nport = 1\n")
@example(document='data_dir = "\\u0000"\n')
@example(document="PORT = 1\nport = 2\n")
def test_any_toml_document_gives_settings_or_one_line(tmp_path: Path, document: str) -> None:
    _load(tmp_path, document.encode("utf-8", "surrogatepass"))


@given(text=st.text(max_size=300))
def test_any_text_gives_settings_or_one_line(tmp_path: Path, text: str) -> None:
    _load(tmp_path, text.encode("utf-8", "surrogatepass"))


@given(data=st.binary(max_size=300))
@example(data=b"port = 8000\n\xff\xfe")
@example(data=b"\xef\xbb\xbfport = 8000\n")  # a UTF-8 byte order mark
@example(data=b"a = [" * 2000)
def test_any_bytes_give_settings_or_one_line(tmp_path: Path, data: bytes) -> None:
    _load(tmp_path, data)


def test_the_setting_names_were_found() -> None:
    """The key strategy draws real settings (the regex over config.py still finds them)."""
    assert {"PORT", "OCR", "HYBRID_RRF_K", "MAX_FILE_BYTES"} <= set(SETTINGS)
