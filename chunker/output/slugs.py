"""Filename stems from model-suggested slugs: sanitised, unique, never a path.

Whatever the model returns (`../../etc/passwd`, `CON`, 300 characters, emoji only,
an empty string), the stem is ASCII kebab-case, at most `max_length` characters,
not a reserved device name, never empty, and unique within its folder.
"""

from __future__ import annotations

import re

from slugify import slugify

RESERVED = {"con", "prn", "aux", "nul", "index", *(f"com{i}" for i in range(10)),
            *(f"lpt{i}" for i in range(10))}
_SAFE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def sanitize(hint: str | None, *fallbacks: str | None, max_length: int = 60) -> str:
    """The first usable slug among the hint and fallbacks (summary text, node id)."""
    max_length = max(8, max_length)
    for candidate in (hint, *fallbacks):
        slug = slugify(candidate or "", max_length=max_length, word_boundary=True,
                       save_order=True, lowercase=True)
        slug = slug.strip("-")
        if slug:
            if slug in RESERVED:
                slug = f"{slug}-node"
            return slug
    return "node"


def is_valid_slug(slug: str, max_length: int = 60) -> bool:
    return (bool(_SAFE.match(slug)) and len(slug) <= max(8, max_length) + 6
            and slug not in RESERVED)


class SlugAllocator:
    """Unique stems per folder: collisions get -2, -3, ... within the length cap."""

    def __init__(self, max_length: int = 60, taken: dict[str, set[str]] | None = None):
        """`taken`: stems per folder that already belong to someone else (a user's own
        notes in OUT/content): never allocated."""
        self.max_length = max(8, max_length)
        self.used: dict[str, set[str]] = {k: set(v) for k, v in (taken or {}).items()}

    def reserve(self, folder: str, stem: str) -> bool:
        """Claim `stem` in `folder` as it is (a node keeping its file name across an
        update); False, claiming nothing, when it is already used or someone else's.
        Reserve the kept stems before allocating new ones, so no new node takes them."""
        used = self.used.setdefault(folder, set())
        if stem in used:
            return False
        used.add(stem)
        return True

    def allocate(self, folder: str, slug: str) -> str:
        used = self.used.setdefault(folder, set())
        slug = slug[:self.max_length].rstrip("-") or "node"
        candidate, n = slug, 1
        while candidate in used:
            n += 1
            suffix = f"-{n}"
            candidate = slug[:self.max_length - len(suffix)].rstrip("-") + suffix
        used.add(candidate)
        return candidate
