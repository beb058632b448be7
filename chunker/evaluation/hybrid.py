"""Boundary-only evaluation: the real model decides where leaves end, a stand-in does the rest.

Leaf boundaries come only from the `Completeness` task (`check_completeness` and
`retry_boundary`). With a slow local model most of a run's time goes to the rewrite,
summary, grouping and synthesis calls, which never move a boundary directly. A
`BoundaryOnlyModel` sends `Completeness` calls to the real model and every other task to
the scripted model, so that a segmentation evaluation covers more documents in the same
time. Caveat: the context injected into later completeness prompts (the predecessor's
rewrite, earlier summaries) is then the scripted model's, not the real model's, so
boundaries can differ from a full run's. Reports must say which mode was used.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from chunker.llm.structured import JsonSchemaChatModel
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.outputs import ChatResult

BOUNDARY_TASKS = frozenset({"Completeness"})
PREFIX = "boundary-only:"


class BoundaryOnlyModel(JsonSchemaChatModel):
    """Routes each call by the title of its bound JSON schema."""

    boundary: BaseChatModel
    rest: BaseChatModel

    @property
    def _llm_type(self) -> str:
        return "chunker-boundary-only"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        title = (kwargs.get("json_schema") or {}).get("title", "")
        target = self.boundary if title in BOUNDARY_TASKS else self.rest
        return target._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def boundary_only(model: str, overrides: dict | None = None) -> tuple[str, dict]:
    """Register a boundary-only wrapper of `model`; returns (provider string, overrides).

    The returned overrides carry `model`'s profile sizes (window, chunk and context limits) so
    that the run is sized as a plain run of `model` would be; the given overrides win.
    """
    from chunker.config.settings import ChunkerSettings
    from chunker.config.profiles import ModelProfile, profile_for
    from chunker.llm.registry import get_model, register_instance
    from chunker.testing.scripted import ScriptedChatModel

    profile = profile_for(model)
    sizes = {f.name: getattr(profile, f.name) for f in dataclasses.fields(ModelProfile)}
    sized = {**sizes, **(overrides or {})}
    real = get_model(ChunkerSettings(model=model, **sized).llm)
    spec = f"{PREFIX}{model}"
    register_instance(spec, BoundaryOnlyModel(boundary=real, rest=ScriptedChatModel()))
    return spec, sized
