"""Prompt files, one per LLM task, loaded by name.

Placeholders use `string.Template` syntax (`${name}`), so braces in JSON examples and
dollar signs in document text need no escaping.
"""

from __future__ import annotations

import functools
import re
import string
from importlib import resources

_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


@functools.lru_cache(maxsize=None)
def load(name: str) -> str:
    """The raw text of prompts/<name>.md."""
    return resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8")


def placeholders(name: str) -> set[str]:
    return set(_PLACEHOLDER.findall(load(name)))


def render(name: str, **values: object) -> str:
    """Fill a prompt; a missing or unexpected placeholder is a programming error."""
    expected = placeholders(name)
    given = set(values)
    if expected != given:
        raise KeyError(f"prompt {name!r} takes {sorted(expected)}, got {sorted(given)}")
    return string.Template(load(name)).substitute({k: str(v) for k, v in values.items()})
