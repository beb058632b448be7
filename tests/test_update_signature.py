"""chunker.update.signature: which settings and prompt files shape which part of a tree."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from chunker.config.keys import FLAT_KEYS
from chunker.config.settings import ChunkerSettings
from chunker.update import signature
from chunker.update.signature import (PROMPTS_OF, QUERY_PROMPTS, RECORD_PROMPTS, SHAPED_BY, SHAPES, WRITE_PROMPTS, signature_of,
                                      stale)

NOTHING = {shape: [] for shape in SHAPES}


@pytest.fixture(scope="module")
def flat() -> dict:
    return ChunkerSettings(model="scripted").flat_dict()


def test_unchanged_is_not_stale(flat):
    assert stale(flat, signature_of(flat), dict(flat)) == NOTHING
    assert stale(flat, None, dict(flat)) == NOTHING


def test_a_retry_setting_shapes_nothing(flat):
    changed = {**flat, "llm_max_attempts": flat["llm_max_attempts"] + 3, "llm_timeout_s": 5.0}
    assert stale(flat, signature_of(flat), changed) == NOTHING
    assert signature_of(changed) == signature_of(flat)


def test_a_new_model_makes_everything_stale(flat):
    new = {**flat, "model": "scripted:paraphrase=0.1"}
    reason = "model: scripted -> scripted:paraphrase=0.1"
    assert stale(flat, signature_of(flat), new) == {shape: [reason] for shape in SHAPES}
    assert signature_of(new)["settings"] != signature_of(flat)["settings"]


def test_min_chunk_tokens_moves_boundaries_only(flat):
    new = {**flat, "min_chunk_tokens": 40}
    assert stale(flat, signature_of(flat), new) == {
        **NOTHING, "boundaries": [f"min_chunk_tokens: {flat['min_chunk_tokens']} -> 40"]}
    old_sig, new_sig = signature_of(flat)["settings"], signature_of(new)["settings"]
    assert [s for s in SHAPES if old_sig[s] != new_sig[s]] == ["boundaries"]


def test_max_group_size_regroups_blocks_only(flat):
    new = {**flat, "max_group_size": 9}
    assert stale(flat, signature_of(flat), new) == {**NOTHING, "blocks": ["max_group_size: 5 -> 9"]}


def test_model_tasks_are_seen_per_shape(flat):
    # no synthesis by the model: the blocks change, not the leaves or where they are cut;
    # a list (as read back from run.json) is the same setting as a tuple
    new = {**flat, "model_tasks": ["boundary", "rewrite", "summary", "group"]}
    assert stale(flat, signature_of(flat), new) == {
        **NOTHING, "blocks": ['model_tasks: ["group", "synthesis"] -> ["group"]']}
    assert stale(flat, None, {**flat, "model_tasks": list(flat["model_tasks"])}) == NOTHING


def test_a_moved_pdf_is_the_same_pdf(flat):
    pdf = {**flat, "extracted_source": "/docs/a.pdf", "split_unit": "page"}
    assert stale(pdf, signature_of(pdf), {**pdf, "extracted_source": "/elsewhere/a.pdf"}) == NOTHING
    assert stale(flat, None, {**flat, "extracted_source": "/docs/a.pdf"}) == {
        **NOTHING, "leaf_text": ["extracted_source: false -> true"]}
    # a tree of round 3 named it pdf_source: the same setting, nothing stale
    old = {k: v for k, v in pdf.items() if k != "extracted_source"} | {"pdf_source": "/docs/a.pdf"}
    assert stale(old, signature_of(old), pdf) == NOTHING


def test_a_setting_the_old_tree_lacks_counts_as_changed(flat):
    old = {k: v for k, v in flat.items() if k != "candidate_count"}
    assert stale(old, None, flat) == {
        **NOTHING, "boundaries": [f"candidate_count: (absent) -> {flat['candidate_count']}"]}


def edited_prompts(monkeypatch, *names: str) -> None:
    """Today's prompt files as if `names` had been edited (prompts/ itself is left alone)."""
    real = signature.prompt_bytes
    monkeypatch.setattr(signature, "prompt_bytes",
                        lambda name: real(name) + b"\nOne more rule." if name in names else real(name))


def test_an_edited_prompt_makes_its_shapes_stale(flat, monkeypatch):
    before = signature_of(flat)
    edited_prompts(monkeypatch, "rewrite")
    assert stale(flat, before, flat) == {**NOTHING, "leaf_text": ["prompt rewrite.md changed"]}
    assert signature_of(flat)["settings"] == before["settings"]


def test_the_system_prompt_shapes_everything(flat, monkeypatch):
    before = signature_of(flat)
    edited_prompts(monkeypatch, "system", "group")
    assert stale(flat, before, flat) == {
        "boundaries": ["prompt system.md changed"], "leaf_text": ["prompt system.md changed"],
        "blocks": ["prompt group.md changed", "prompt system.md changed"]}


def test_without_an_old_signature_prompts_count_as_unchanged(flat, monkeypatch):
    edited_prompts(monkeypatch, "rewrite", "completeness")
    assert stale(flat, None, flat) == NOTHING


def test_a_signature_without_file_hashes_still_notices(flat, monkeypatch):
    before = signature_of(flat)
    del before["prompt_files"]
    edited_prompts(monkeypatch, "synthesize")
    assert stale(flat, before, flat) == {**NOTHING, "blocks": ["prompts of blocks changed"]}


def test_the_signature_is_small_stable_json(flat, tmp_path):
    sig = signature_of(flat)
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"signature": sig}), encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["signature"] == sig == signature_of(dict(flat))
    assert len(path.read_bytes()) < 1500
    assert set(sig["settings"]) == set(sig["prompts"]) == set(SHAPES)


def test_every_flat_setting_is_classified():
    assert set(SHAPED_BY) == set(FLAT_KEYS), "classify each new setting in SHAPED_BY"
    assert all(isinstance(shapes, frozenset) and shapes <= set(SHAPES) for shapes in SHAPED_BY.values())


def test_every_prompt_file_is_classified():
    files = {p.name[:-3] for p in resources.files("chunker.prompts").iterdir() if p.name.endswith(".md")}
    used = {name for names in PROMPTS_OF.values() for name in names}
    assert files == used | set(QUERY_PROMPTS) | set(WRITE_PROMPTS) | set(RECORD_PROMPTS), "say in PROMPTS_OF what a new prompt shapes"
    assert not used & (set(QUERY_PROMPTS) | set(WRITE_PROMPTS) | set(RECORD_PROMPTS))
