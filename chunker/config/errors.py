"""SettingsError: a bad setting as one line (the CLI prints it and exits 2)."""

from __future__ import annotations

from pydantic import ValidationError


class SettingsError(ValueError):
    """An unknown setting or a bad value, said in one line."""


def one_line(exc: ValidationError) -> str:
    """Pydantic's report of every failed field, joined into one line: `section.field: why`."""
    parts = []
    for e in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in e["loc"])
        msg = e["msg"]
        if e["type"] == "value_error":  # our own rules: their message names the fields
            msg, loc = msg.removeprefix("Value error, "), ""
        elif e["type"] == "extra_forbidden":
            msg = "unknown setting"
        elif e["type"] != "missing":
            msg += f" (got {e['input']!r})"
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)
