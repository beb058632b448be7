"""Errors of read-only tree access; each message is one line for the user."""

from __future__ import annotations


class NavigationError(ValueError):
    """A tree cannot be opened or a request does not fit it (CLI: one line, exit 2)."""


class NotARun(NavigationError):
    """The folder holds no finished chunker run (no readable hierarchy.json)."""


class UnknownNode(NavigationError):
    """A node id that the tree does not hold."""
