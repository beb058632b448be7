"""The adaptive strategy: how a document's tree is built, chosen once by load_document.

    auto: plain text (no structure)                        -> full  (today's loop, unchanged)
          structured, tokens <= flat_window_share x window -> flat  (peel's leaves, one block)
          structured, longer                               -> peel  (headings first)

`flat` and `peel` use the Markdown structure; `full` ignores it. The choice is logged and
counted in the stats (`strategy.flat`, `strategy.peel`, `strategy.full`).
"""

from __future__ import annotations

from typing import Literal

from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens

Chosen = Literal["flat", "peel", "full"]

# A cl100k token holds about 4 characters of English and 7 of a Markdown table; past this
# many characters per allowed token a document is surely too long to be flat, and a book
# is not counted token by token just to learn that.
_MAX_CHARS_PER_TOKEN = 32


def flat_limit(cfg: ChunkerSettings) -> int:
    """The most tokens a document may hold to be built flat under `strategy=auto`."""
    return int(cfg.flat_window_share * cfg.model_window)


def choose_strategy(cfg: ChunkerSettings, text: str, structured: bool) -> Chosen:
    if cfg.strategy != "auto":
        return cfg.strategy  # type: ignore[return-value]
    if not structured:
        return "full"
    limit = flat_limit(cfg)
    if len(text) <= limit * _MAX_CHARS_PER_TOKEN and count_tokens(text) <= limit:
        return "flat"
    return "peel"
