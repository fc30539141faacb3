"""Settings from a TOML file, merged underneath the environment.

The file holds the same settings as the ``PRIORIS_MCP_*`` variables, named without the
prefix in lower or upper case (``ocr = "always"``, ``port = 9000``, ``cors_origins =
["https://a.example"]``). Rather than a second schema, its values are turned into the
strings the variables would hold and laid under the environment, so ``load_settings``
validates them with the same code and every setting added later is configurable from the
file for free. Precedence: CLI options > environment > file > defaults.

Where: ``$PRIORIS_MCP_CONFIG`` if set (the file must then exist), else
``$XDG_CONFIG_HOME/prioris/config.toml``, else ``~/.config/prioris/config.toml``; a missing
default file is simply no file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TypeVar

from prioris.errors import ConfigurationError

PREFIX = "PRIORIS_MCP_"
CONFIG_VARIABLE = "PRIORIS_MCP_CONFIG"
T = TypeVar("T")


def config_path(env: Mapping[str, str]) -> Path | None:
    """Where the config file is looked for (``None``: no home to look in)."""
    explicit = (env.get(CONFIG_VARIABLE) or "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / "prioris" / "config.toml"
    home = env.get("HOME")
    return Path(home) / ".config" / "prioris" / "config.toml" if home else None


def _as_text(path: Path, key: str, value: object) -> str:
    """A TOML value as the string an environment variable would hold."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, list) and all(
        isinstance(v, str | int | float) and not isinstance(v, bool) for v in value
    ):
        return ",".join(str(v) for v in value)
    raise ConfigurationError(
        f"{path}: key {key!r} has a {type(value).__name__} value; accepted: a string, "
        "number, boolean or list of strings/numbers (tables are not settings)"
    )


def read_config_file(path: Path) -> dict[str, tuple[str, str]]:
    """``{VARIABLE: (key as written, value as text)}`` from a TOML file."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{path}: not valid TOML ({exc})") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8; tomllib lets this one through
        raise ConfigurationError(
            f"{path}: not valid TOML (not UTF-8 text: byte {exc.start} is "
            f"0x{exc.object[exc.start]:02x})"
        ) from None
    except OSError as exc:
        raise ConfigurationError(f"{path}: cannot be read ({exc.strerror})") from None
    values: dict[str, tuple[str, str]] = {}
    for key, value in data.items():
        name = PREFIX + key.strip().upper().replace("-", "_")
        if name in values:
            raise ConfigurationError(f"{path}: key {key!r} is given twice (keys ignore case)")
        text = _as_text(path, key, value)
        if "\x00" in text:  # TOML's \u0000: a value no path or setting can hold
            raise ConfigurationError(f"{path}: key {key!r} holds a NUL byte")
        values[name] = (key, text)
    return values


class _Layered(Mapping[str, str]):
    """The environment over the file's values, remembering which names were read."""

    def __init__(self, env: Mapping[str, str], below: Mapping[str, str]) -> None:
        self._env = env
        self._below = below
        self.read: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.read.add(name)
        if name in self._env:
            return self._env[name]
        return self._below[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._env
        yield from (name for name in self._below if name not in self._env)

    def __len__(self) -> int:
        return len(set(self._env) | set(self._below))


def load_with_config_file(env: Mapping[str, str], build: Callable[[Mapping[str, str]], T]) -> T:
    """Run ``build`` (the settings reader) on the environment layered over the config file.

    An error about a value taken from the file is re-raised naming the file and key; a key
    that no setting read is refused, so a typo does not silently do nothing."""
    path = config_path(env)
    if path is None or not (path.is_file() or env.get(CONFIG_VARIABLE)):
        return build(env)
    if not path.is_file():
        raise ConfigurationError(f"{CONFIG_VARIABLE}={str(path)!r}: no such file")
    from_file = read_config_file(path)
    layered = _Layered(env, {name: text for name, (_key, text) in from_file.items()})
    try:
        settings = build(layered)
    except ConfigurationError as exc:
        named = [
            name
            for name in from_file
            if name not in env and re.search(rf"\b{re.escape(name)}\b", exc.message)
        ]
        if not named:
            raise
        key = from_file[max(named, key=len)][0]
        raise ConfigurationError(f"{path}: key {key!r}: {exc.message}") from None
    unknown = [key for name, (key, _text) in from_file.items() if name not in layered.read]
    if unknown:
        raise ConfigurationError(
            f"{path}: unknown setting {unknown[0]!r} (keys are the PRIORIS_MCP_* variable "
            "names without the prefix; see docs/configuration.md)"
        )
    return settings
