"""Settings from text: `--set KEY=VALUE` and config files, typed by the field they set.

One path for both: each value is validated against its field's annotation (pydantic's lax
mode), so `false` is False for a boolean, `40` is 40 for an integer, `a,b` is a tuple for a
tuple field, and a bad value or an unknown key is one SettingsError line. The result is
flat (see config/keys.py), ready to merge with other flat settings and to be validated as a
whole by `ChunkerSettings`.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from chunker.config.errors import SettingsError, one_line
from chunker.config.keys import FLAT_KEYS, LEGACY_KEYS, flat_name, flatten
from chunker.config.settings import ChunkerSettings

NOT_FROM_TEXT = ("model", "run_dir")
"""Set by `--model` and `--output-dir`, never by `--set` or a config file (`run_dir`, the
old name of the run's folder, is no setting at all now, but the hint still helps)."""


_LEGACY_ANNOTATIONS: dict[str, Any] = {"extractive_summaries": bool | None}
"""The types of the legacy names (config/keys.py's LEGACY_KEYS), which have no field today."""


@functools.lru_cache(maxsize=None)
def _annotation(name: str) -> Any:
    if name in LEGACY_KEYS:
        return _LEGACY_ANNOTATIONS.get(name, Any)
    section, _, field = FLAT_KEYS[name].rpartition(".")
    owner = ChunkerSettings.model_fields[section].annotation if section else ChunkerSettings
    return owner.model_fields[field].annotation


@functools.lru_cache(maxsize=None)
def _adapter(name: str) -> TypeAdapter:
    return TypeAdapter(_annotation(name))


def _shapes(annotation: Any) -> set:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return set().union(*(_shapes(a) for a in args))
    return {typing.get_origin(annotation) or annotation}


def typed(name: str, value: Any) -> Any:
    """`value` for the flat setting `name`, typed and checked by the field's annotation.

    A string is read as the field wants it: `a, b` (or a YAML list) for a tuple, `null` for
    None where the field allows None; anything else is left to pydantic's lax conversion.
    None itself passes: for a profile's size it means "the profile's value", elsewhere the
    settings' validation judges it.
    """
    if value is None:
        return None
    shapes = _shapes(_annotation(name))
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "null" and type(None) in shapes:
            value = None
        elif tuple in shapes:
            value = (_yaml_list(text) if text.startswith("[")
                     else tuple(p.strip() for p in text.split(",") if p.strip()))
    try:
        return _adapter(name).validate_python(value)
    except ValidationError as exc:
        raise SettingsError(one_line(exc)) from None


def _yaml_list(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        raise SettingsError(f"cannot read {text!r} as a list (write a, b or [a, b])") from None


def _checked(name: str) -> str:
    if name in NOT_FROM_TEXT:
        raise SettingsError(f"`{name}` is not set here (use --model or --output-dir)")
    return name


def parse_assignments(pairs: Iterable[str]) -> dict:
    """`KEY=VALUE` strings (flat or dotted keys) -> flat settings, typed by their fields."""
    out: dict = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip().replace("-", "_")
        try:
            if not sep or not key:
                raise SettingsError("expected SETTING=VALUE (e.g. min_chunk_tokens=120)")
            name = _checked(flat_name(key))
            if name in out:
                raise SettingsError(f"{name} is set twice")
            out[name] = typed(name, raw)
        except SettingsError as exc:
            raise SettingsError(f"--set {pair}: {exc}") from None
    return out


def typed_mapping(data: Mapping) -> dict:
    """A mapping of settings (flat, dotted or nested, as a config file holds them) -> flat
    settings, typed by their fields."""
    out = {}
    for name, value in flatten(data).items():
        _checked(name)
        try:
            out[name] = typed(name, value)
        except SettingsError as exc:
            raise SettingsError(f"{name}: {exc}") from None
    return out


def load_file(path: Path) -> dict:
    """A YAML or JSON file of settings -> flat settings; every problem is a SettingsError."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise SettingsError(f"cannot read config file {path}: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"config file {path} must hold a mapping of setting: value")
    try:
        return typed_mapping(data)
    except SettingsError as exc:
        raise SettingsError(f"config file {path}: {exc}") from None
