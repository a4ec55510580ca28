"""The config file on disk: where it is, reading it, and writing a profile back into it.

A bad file is one error that names the file, the key and the line: an
operator fixing a typo at 3 a.m. should not have to read a pydantic dump.
Writing goes through tomlkit so that the operator's comments and layout
survive a save from the welcome form.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tui.config.errors import ConfigError
from tui.config.models import PROFILE_NAME_RE, ConfigFile
from tui.config.paths import config_dir
from tui.secrets.private_files import write_private

if TYPE_CHECKING:
    import tomlkit.items

CONFIG_FILE_NAME = "config.toml"


def config_path(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / CONFIG_FILE_NAME


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def _line_of(text: str, loc: Sequence[str | int]) -> int | None:
    """The line that sets the key at ``loc`` (e.g. ``("profiles", "us", "poll")``), found in the file's text.

    tomllib keeps no positions, so this reads the text: a table header naming
    the whole path, else the key inside its table (or before the first table
    for a top-level key), else a dotted key, else the nearest table's header.
    """
    parts = [str(p) for p in loc if isinstance(p, str)]
    if not parts:
        return None
    lines = text.splitlines()

    def header_line(names: list[str]) -> int | None:
        inner = r"\s*\.\s*".join(rf'"?{re.escape(n)}"?' for n in names)
        pattern = re.compile(rf"^\s*\[\s*{inner}\s*\]")
        return next((i for i, line in enumerate(lines) if pattern.match(line)), None)

    own = header_line(parts)
    if own is not None:
        return own + 1
    key_re = re.compile(rf'^\s*("?){re.escape(parts[-1])}\1\s*=')
    table = parts[:-1]
    start = 0 if not table else header_line(table)
    if start is not None:
        first = start + 1 if table else 0
        for i in range(first, len(lines)):
            if lines[i].lstrip().startswith("["):
                break
            if key_re.match(lines[i]):
                return i + 1
    dotted = re.compile(rf"^\s*{re.escape('.'.join(parts))}\s*=")
    for i, line in enumerate(lines):
        if dotted.match(line):
            return i + 1
    for depth in range(len(parts) - 1, 0, -1):
        ancestor = header_line(parts[:depth])
        if ancestor is not None:
            return ancestor + 1
    return None


def describe_config_error(path: Path, text: str, err: ValidationError) -> str:
    """One line: file, line, dotted key, what is wrong (and how many more problems there are)."""
    errors = err.errors()
    first = errors[0]
    loc = [p for p in first["loc"] if not (isinstance(p, str) and p.startswith(("function-", "union[")))]
    # A union (str | list) reports per member; the member's name is noise for the operator.
    loc = [p for p in loc if p not in ("str", "list[str]", "float", "int", "bool")]
    dotted = ".".join(str(p) for p in loc)
    line = _line_of(text, loc) if loc else None
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown key (check the spelling; see the config reference in the README)"
    where = f"{path}, line {line}" if line else str(path)
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    key = f"{dotted}: " if dotted else ""
    return f"{where}: {key}{message}{more}"


def parse_config(text: str, path: Path) -> ConfigFile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        msg = str(err)
        match = _TOML_POSITION.search(msg)
        if match:
            return _raise(f"{path}, line {match.group(1)}: not valid TOML: {_TOML_POSITION.sub('', msg).strip()}"
                          f" (column {match.group(2)})")
        return _raise(f"{path}: not valid TOML: {msg}")
    try:
        return ConfigFile.model_validate(data)
    except ValidationError as err:
        raise ConfigError(describe_config_error(path, text, err)) from None


def _raise(message: str) -> ConfigFile:
    raise ConfigError(message)


def load_config(path: Path) -> ConfigFile | None:
    """The parsed file, or None when there is none. Raises ConfigError (one line) when it is bad."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    return parse_config(text, path)


def permission_warning(path: Path, config: ConfigFile) -> str | None:
    """A warning when a file holding a key can be read by other users (it must be 0600)."""
    if not config.holds_key or os.name != "posix":
        return None
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if mode & 0o077:
        return (f"{path} holds an API key and is readable by others (mode {mode:04o}): "
                f"run chmod 600 {path}, or better, use key_command or the environment")
    return None


def profile_block(name: str, values: Mapping[str, Any], *, with_key: bool = False) -> str:
    """The TOML text of one profile, to show an operator the lines to add by hand."""
    import tomlkit  # only to write: reading is tomllib's, and the dashboard's start never writes

    doc = tomlkit.document()
    doc.add("profiles", tomlkit.table(is_super_table=True))
    doc["profiles"][name] = _profile_table(values, with_key=with_key)
    return tomlkit.dumps(doc).strip() + "\n"


def _profile_table(values: Mapping[str, Any], *, with_key: bool) -> tomlkit.items.Table:
    import tomlkit

    table = tomlkit.table()
    for key, value in values.items():
        if value is not None and (key != "key" or with_key):
            table[key] = value
    return table


def _set_keeping_comment(table: Any, key: str, value: Any) -> None:
    """Replace a value, keeping the comment the operator wrote after it on the same line."""
    old = table.get(key)
    import tomlkit

    item = tomlkit.item(value)
    if old is not None and hasattr(old, "trivia") and old.trivia.comment:
        item.comment(old.trivia.comment.lstrip("# ").rstrip())
    table[key] = item


def save_profile(path: Path, name: str, values: Mapping[str, Any], *, make_default: bool = False,
                 with_key: bool = False) -> None:
    """Add or update ``[profiles.NAME]`` in the config file with tomlkit, which keeps the operator's comments,
    layout and the settings this form does not know (``on_alert``, ``bell``, a hand-written ``key``).

    A value given as None is removed. The result is parsed again before it replaces the file, so a save can
    never leave a file that the next start would refuse.
    """
    if not PROFILE_NAME_RE.match(name):
        raise ConfigError("profile name: use letters, digits, - and _ (at most 40)")
    import tomlkit
    import tomlkit.exceptions

    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        doc = tomlkit.parse(text)
    except tomlkit.exceptions.TOMLKitError as err:
        raise ConfigError(f"{path}: cannot update a file that does not parse ({err})") from err
    if "profiles" not in doc:
        doc.add("profiles", tomlkit.table(is_super_table=True))
    profiles: Any = doc["profiles"]
    if name not in profiles:
        profiles[name] = _profile_table(values, with_key=with_key)
    else:
        table = profiles[name]
        for key, value in values.items():
            if key == "key" and not with_key:
                continue  # the key is written only when the operator chose the file for it
            if value is None:
                table.pop(key, None)
            else:
                _set_keeping_comment(table, key, value)
    if make_default:
        _set_keeping_comment(doc, "default_profile", name)  # tomlkit puts a new one above the first table
    text = tomlkit.dumps(doc)
    parse_config(text, path)
    write_private(path, text)

