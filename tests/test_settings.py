"""The run's settings: nested sections, flat spellings, resolution once, one-line errors."""

from __future__ import annotations

import json

import pytest
from langgraph.store.memory import InMemoryStore
from pydantic import ValidationError

from chunker.config import settings as settings_module
from chunker.config.assign import load_file, parse_assignments
from chunker.config.keys import FLAT_KEYS, SECTION_NAMES
from chunker.config.profiles import PROFILES
from chunker.config.settings import LOCAL_FIELDS, REGION_FIELDS, ChunkerSettings, GroundingPolicy, SettingsError
from chunker.graph import build_graph
from conftest import CINDERELLA, assert_lossless, scripted
from conftest import invoke

FAST = ["--min-chunk-tokens", "150", "--max-chunk-tokens", "500"]

# run.json's `config` as round 2 wrote it (a scripted run with FAST and llm_max_attempts 1):
# flat, sorted, tuples as lists, every profile size already resolved
ROUND_2_CONFIG = {
    "background_budget_tokens": 300, "background_order": "stable", "boundary_mode": "candidates",
    "candidate_count": 5, "candidate_peak_std": 1.0, "combine_rewrite_and_summary": True,
    "embed_batch_size": 64, "embeddings": "lexical", "encoding": "utf-8", "expand_step": 1,
    "extractive_summaries": False, "flat_window_share": 0.4, "grounding_advice_min_share": 0.5,
    "grounding_first_person_tasks": ["rewrite"], "grounding_max_unsupported_names": 0,
    "grounding_max_unsupported_numbers": 0, "grounding_min_content_words": 2,
    "grounding_min_support": 0.65, "grounding_min_word_chars": 3, "llm_max_attempts": 1,
    "llm_retry_initial_s": 1.0, "llm_timeout_s": 300.0, "lookahead_units": 2, "max_chunk_tokens": 500,
    "max_expansion_attempts": 8, "max_group_size": 5, "max_input_bytes": 209715200,
    "min_boundary_chars": 8, "min_chunk_tokens": 150, "min_group_size": 2, "model": "scripted",
    "model_window": 8192, "pdf_dpi": 150, "pdf_max_images": 4, "extracted_source": None,
    "return_tree": False, "rewrite_background_share": 0.25, "rewrite_min_recall": 0.5,
    "slug_max_length": 60, "split_unit": "sentence", "strategy": "auto", "structure": "auto",
    "summary_aggregation_threshold": 1500, "summary_count_threshold": 8, "summary_max_chars": 400,
    "synthesize_full_text_levels": 1, "temperature": 0.0, "vision_model": None,
}

# the order in which hierarchy.json has always listed the settings (the round-2 dataclass's
# field order): a new order would change every tree's bytes
ROUND_2_ORDER = (
    "model", "run_dir", "encoding", "max_input_bytes", "min_chunk_tokens", "max_chunk_tokens",
    "max_expansion_attempts", "split_unit", "expand_step", "lookahead_units", "min_boundary_chars",
    "boundary_mode", "embeddings", "structure", "strategy", "flat_window_share", "candidate_count",
    "candidate_peak_std", "embed_batch_size", "rewrite_min_recall", "combine_rewrite_and_summary",
    "extractive_summaries", "background_budget_tokens", "rewrite_background_share", "background_order",
    "summary_aggregation_threshold", "summary_count_threshold", "synthesize_full_text_levels",
    "min_group_size", "max_group_size", "model_window", "temperature", "llm_max_attempts",
    "llm_retry_initial_s", "llm_timeout_s", "grounding_min_support", "grounding_min_content_words",
    "grounding_min_word_chars", "grounding_max_unsupported_names", "grounding_max_unsupported_numbers",
    "grounding_first_person_tasks", "grounding_advice_min_share", "summary_max_chars",
    "slug_max_length", "extracted_source", "vision_model", "pdf_dpi", "pdf_max_images", "return_tree",
)

TODAY = {"extractive_summaries": "model_tasks"}
"""Round 2's names that were replaced since, by today's name."""
ROUND_3_ADDED = ("max_concurrency", "background_context", "fanout_min", "fanout_max", "candidate_cutoff",
                 "candidate_depth_share")
"""Settings added since, after round 2's (run.json lists them last)."""
ROUND_4_ADDED = ("knowledge_enabled", "reference_nearby_chars", "term_conflict_similarity",
                 "term_max_definitions", "term_page_mentions", "term_line_terms",
                 "term_propose_window_share", "term_propose_max_terms",
                 "term_propose_max_definition_chars", "pdf_figure_min_px", "reading", "region_min_tokens",
                 "region_max_tokens", "outline_share", "outline_summary_chars", "outline_summary_sentences",
                 "tasks_per_slot")
"""Round 4's, after those: the knowledge section (issue 33), the figures' minimum size (issue 32),
the regions section and the tasks read at once for each call slot (issue 34)."""


def one_error_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    return lines[0]


def test_flat_dotted_and_nested_construction_are_equal():
    flat = ChunkerSettings(model="scripted", min_chunk_tokens=40, embeddings="lexical",
                           rewrite_background_share=0.3, grounding_min_support=0.7)
    dotted = ChunkerSettings(**{"llm.model": "scripted", "chunking.min_chunk_tokens": 40,
                                "embedding.provider": "lexical", "background.rewrite_share": 0.3,
                                "grounding.grounding_min_support": 0.7})
    nested = ChunkerSettings(llm={"model": "scripted"}, chunking={"min_chunk_tokens": 40},
                             embedding={"provider": "lexical"}, background={"rewrite_share": 0.3},
                             grounding={"grounding_min_support": 0.7})
    assert flat == dotted == nested and hash(flat) == hash(nested)
    assert nested.chunking.min_chunk_tokens == 40
    with pytest.raises(AttributeError):  # flat names are for writing settings; reads use sections
        nested.min_chunk_tokens  # noqa: B018
    assert isinstance(nested.grounding, GroundingPolicy) and nested.grounding.grounding_min_support == 0.7
    assert ChunkerSettings(**flat.flat_dict()) == flat
    assert ChunkerSettings(**flat.model_dump()) == flat  # nested dicts, as JSON gives them


def test_every_section_field_has_one_flat_name_in_run_json_order():
    paths = [f"{s}.{f}" for s in SECTION_NAMES
             for f in ChunkerSettings.model_fields[s].annotation.model_fields]
    assert sorted(paths) == sorted(FLAT_KEYS.values())
    cfg = ChunkerSettings(model="scripted")
    # model_tasks took extractive_summaries' place (7be7e6c); run_dir, the run's folder, is no
    # setting now (RunResources.out_dir; hierarchy.json never listed it); every other name kept its own
    assert tuple(cfg.flat_dict()) == (*(TODAY.get(n, n) for n in ROUND_2_ORDER if n != "run_dir"),
                                      *ROUND_3_ADDED, *ROUND_4_ADDED)
    assert set(FLAT_KEYS) == {TODAY.get(n, n) for n in ROUND_2_CONFIG} | set(ROUND_3_ADDED) | set(ROUND_4_ADDED)


def test_profiles_fill_what_is_left_out_at_validation(monkeypatch):
    tiny = ChunkerSettings(model="local")
    assert (tiny.llm.model_window, tiny.chunking.min_chunk_tokens, tiny.llm.model_tasks) == (4096, 250, ())
    unset = ChunkerSettings(model="local", min_chunk_tokens=None)
    assert unset.chunking.min_chunk_tokens == 250  # None: the profile's
    assert ChunkerSettings(model="scripted").output.return_tree is None  # None: when there is no folder
    # a context or an old run.json may still name the run's folder: dropped, it is no setting
    assert ChunkerSettings(model="scripted", run_dir="/tmp/x") == ChunkerSettings(model="scripted")
    monkeypatch.setattr(settings_module, "local_embeddings_installed", lambda: False)
    assert ChunkerSettings(model="qwen3:8b").embedding.provider == "lexical"  # the profile's `auto`
    monkeypatch.setattr(settings_module, "local_embeddings_installed", lambda: True)
    assert ChunkerSettings(model="qwen3:8b", embeddings="auto").embedding.provider == "local"
    for name in [*PROFILES, "some-unprofiled-model"]:  # every profile makes valid settings
        assert ChunkerSettings(model=name).llm.model == name


def test_settings_are_frozen_hashable_and_copied_with_validation():
    cfg = ChunkerSettings(model="scripted", grounding_first_person_tasks=["rewrite", "summary"])
    assert cfg.grounding.grounding_first_person_tasks == ("rewrite", "summary")  # lists become tuples
    with pytest.raises(ValidationError):
        cfg.chunking = cfg.chunking  # type: ignore[misc]
    assert {cfg: 1}[ChunkerSettings(model="scripted", grounding_first_person_tasks=("rewrite", "summary"))]
    moved = cfg.with_(model="local", **{"chunking.strategy": "peel"})
    assert moved.llm.model == "local" and moved.chunking.strategy == "peel"
    assert moved.chunking.min_chunk_tokens == cfg.chunking.min_chunk_tokens  # sizes stay as resolved
    with pytest.raises(SettingsError, match="max_chunk_tokens must be at least min_chunk_tokens"):
        cfg.with_(max_chunk_tokens=1)


CROSS_FIELD = [  # (bad settings, today's one-line message)
    (dict(model_window=1000, max_chunk_tokens=300, min_chunk_tokens=100),
     r"the rewrite's background \(0.25 x model_window 1000\) cannot hold a whole previous chunk"),
    (dict(min_chunk_tokens=500, max_chunk_tokens=100), "max_chunk_tokens must be at least min_chunk_tokens"),
    (dict(min_group_size=4, max_group_size=3), "max_group_size must be at least min_group_size"),
    (dict(min_group_size=4, summary_count_threshold=3), "summary_count_threshold must be at least min_group_size"),
    (dict(embeddings="none"), "boundary_mode candidates needs an embeddings provider"),
    (dict(split_unit="page"), "split_unit page is for paged documents only, such as PDF"),
]


@pytest.mark.parametrize("bad,message", CROSS_FIELD)
def test_every_cross_field_rule_rejects_its_bad_case_in_one_line(bad, message):
    with pytest.raises(SettingsError, match=f"^{message}") as caught:
        ChunkerSettings(model="scripted", **bad)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("good", [dict(embeddings="none", boundary_mode="phrase"),
                                  dict(split_unit="page", extracted_source="/tmp/doc.pdf"),
                                  dict(model_window=1624, max_chunk_tokens=342, min_chunk_tokens=100)])
def test_the_good_side_of_each_rule_passes(good):
    ChunkerSettings(model="scripted", **good)


@pytest.mark.parametrize("bad,where", [
    (dict(min_chunk_tokens=0), "chunking.min_chunk_tokens"), (dict(candidate_count=10), "chunking.candidate_count"),
    (dict(flat_window_share=1.5), "chunking.flat_window_share"), (dict(expand_step=0), "chunking.expand_step"),
    (dict(max_expansion_attempts=0), "chunking.max_expansion_attempts"),
    (dict(rewrite_background_share=1), "background.rewrite_share"), (dict(embed_batch_size=0), "embedding.batch_size"),
    (dict(pdf_dpi=20), "pdf.dpi"), (dict(pdf_max_images=0), "pdf.max_images"),
    (dict(min_group_size=1), "aggregation.min_group_size"), (dict(boundary_mode="candidate"), "chunking.boundary_mode"),
    (dict(strategy="flats"), "chunking.strategy"), (dict(combine_rewrite_and_summary="perhaps"),
                                                   "llm.combine_rewrite_and_summary"),
])
def test_field_rules_name_the_field(bad, where):
    with pytest.raises(SettingsError, match=f"^{where}: ") as caught:
        ChunkerSettings(model="scripted", **bad)
    assert "\n" not in str(caught.value)


def test_unknown_missing_and_doubled_keys_are_named():
    with pytest.raises(SettingsError, match=r"^unknown setting 'min_chunk_token' \(did you mean min_chunk_tokens\?\)"):
        ChunkerSettings(model="scripted", min_chunk_token=40)
    with pytest.raises(SettingsError, match="unknown setting 'chunking.nope'"):
        ChunkerSettings(model="scripted", chunking={"nope": 1})
    with pytest.raises(SettingsError, match="'chunking.min_chunk_tokens' is given twice"):
        ChunkerSettings(model="scripted", min_chunk_tokens=40, chunking={"min_chunk_tokens": 50})
    with pytest.raises(SettingsError, match="^no model is set"):
        ChunkerSettings(min_chunk_tokens=40)


def test_set_values_are_typed_by_their_field(tmp_path):
    got = parse_assignments(["combine_rewrite_and_summary=false", "chunking.min_chunk_tokens=40",
                             "grounding_first_person_tasks=rewrite, summarize", "vision_model=null",
                             "embeddings=none", "boundary_mode=phrase", "flat-window-share=1"])
    assert got == {"combine_rewrite_and_summary": False, "min_chunk_tokens": 40,
                   "grounding_first_person_tasks": ("rewrite", "summarize"), "vision_model": None,
                   "embeddings": "none", "boundary_mode": "phrase", "flat_window_share": 1.0}
    assert ChunkerSettings(model="scripted", **got).llm.combine_rewrite_and_summary is False
    for bad, message in [("boundary_mode=candidate", "Input should be 'candidates' or 'phrase'"),
                         ("nope=1", "unknown setting 'nope'"), ("model=x", "`model` is not set here"),
                         ("min_chunk_tokens", "expected SETTING=VALUE")]:
        with pytest.raises(SettingsError, match=message):
            parse_assignments([bad])
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("chunking:\n  strategy: peel\ngrounding_first_person_tasks: [rewrite, summarize]\n"
                   "combine_rewrite_and_summary: 'false'\n")
    assert load_file(cfg) == {"strategy": "peel", "grounding_first_person_tasks": ("rewrite", "summarize"),
                              "combine_rewrite_and_summary": False}


def test_a_dict_context_flat_or_nested_is_validated_and_resolved():
    text = "Cinderella's mother died. Her father married again. The stepsisters were cruel. " * 12
    graph = build_graph(store=InMemoryStore())
    model = scripted()
    for context in ({"model": model, "min_chunk_tokens": 60, "max_chunk_tokens": 200},
                    {"llm": {"model": model}, "chunking": {"min_chunk_tokens": 60, "max_chunk_tokens": 200}}):
        out = graph.invoke({"text": text}, context=context, config={"recursion_limit": 10**6})
        assert_lossless(out["tree"], text)
        assert out["tree"]["meta"]["config"]["min_chunk_tokens"] == 60
    with pytest.raises(SettingsError, match="unknown setting 'min_chunk_token'"):
        graph.invoke({"text": text}, context={"model": model, "min_chunk_token": 60})
    # `langgraph dev` keeps only the context keys the schema names: the flat ones must be there
    names = set(graph.get_context_jsonschema()["properties"])
    assert set(FLAT_KEYS) <= names and set(SECTION_NAMES) <= names


def test_cli_set_and_config_errors_are_one_line_exit_2(tmp_path):
    line = one_error_line(invoke("run", CINDERELLA, "--model", "scripted", "-o", tmp_path / "a",
                                 "--set", "boundary_mode=candidate"))
    assert "boundary_mode" in line and "'candidates' or 'phrase'" in line
    line = one_error_line(invoke("run", CINDERELLA, "--model", "scripted", "-o", tmp_path / "b",
                                 "--set", "min_chunk_token=40"))
    assert "unknown setting 'min_chunk_token'" in line
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("chunking:\n  strategy: flats\n")
    line = one_error_line(invoke("run", CINDERELLA, "--model", "scripted", "-o", tmp_path / "c", "--config", cfg))
    assert "config file" in line and "strategy" in line
    line = one_error_line(invoke("run", CINDERELLA, "--model", "scripted", "-o", tmp_path / "d",
                                 "--boundary-mode", "candidate"))
    assert "chunking.boundary_mode" in line
    assert not any((tmp_path / d).exists() for d in "abcd")


def test_cli_set_false_is_false_and_an_old_flat_run_json_resumes(tmp_path):
    def env(name):  # the scripted model fails its 5th call: each run counts its own calls
        return {"CHUNKER_SCRIPTED_COUNTER": str(tmp_path / f"{name}.calls"), "CHUNKER_SCRIPTED_FAIL_AT": "5"}

    invoke("run", CINDERELLA, "--model", "scripted", "-o", tmp_path / "set", "--quiet", *FAST,
           "--set", "llm_max_attempts=1", "--set", "combine_rewrite_and_summary=false", env=env("set"), check=1)
    config = json.loads((tmp_path / "set" / ".chunker" / "run.json").read_text())["config"]
    assert config["combine_rewrite_and_summary"] is False  # not the truthy string "false"

    out = tmp_path / "out"
    invoke("run", CINDERELLA, "--model", "scripted", "-o", out, "--quiet", *FAST, "--set", "llm_max_attempts=1",
           env=env("out"), check=1)
    run_json = out / ".chunker" / "run.json"
    meta = json.loads(run_json.read_text())
    meta["config"] = ROUND_2_CONFIG  # as round 2 wrote it
    run_json.write_text(json.dumps(meta, indent=1, sort_keys=True))
    invoke("resume", out, "--quiet", env=env("out"), check=0)
    written = json.loads((out / "hierarchy.json").read_text())["meta"]["config"]
    expected = {k: v for k, v in ROUND_2_CONFIG.items() if k not in ("return_tree", "extractive_summaries")}
    assert written == {**expected, "model_tasks": ["boundary", "rewrite", "summary", "group", "synthesis"],
                       "background_context": "written",  # settings round 2 did not have: their defaults
                       "fanout_min": 4, "fanout_max": 12, "candidate_cutoff": "contrast",
                       "candidate_depth_share": 0.5,
                       # and none of the regions section: it names no `reading`, so it resumes in
                       # one cursor, and a tree read in one cursor records none of them; nor how
                       # fast the run went (`tasks_per_slot`, as `max_concurrency`)
                       **{flat: ChunkerSettings(model="scripted").flat_dict()[flat] for flat in ROUND_4_ADDED
                          if flat not in REGION_FIELDS and flat not in LOCAL_FIELDS}}


def test_round_2_extractive_summaries_still_means_what_it_meant(tmp_path):
    from chunker.runs.record import settings_of

    config = {**ROUND_2_CONFIG, "model": "local", "extractive_summaries": True,
              "run_dir": str(tmp_path)}  # an older run.json's folder: dropped
    assert settings_of(config).llm.model_tasks == ("boundary", "rewrite", "group")
    assert ChunkerSettings(model="local", extractive_summaries=False).llm.model_tasks == (
        "boundary", "rewrite", "summary", "group", "synthesis")
    assert parse_assignments(["extractive_summaries=true"]) == {"extractive_summaries": True}
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("llm:\n  extractive_summaries: 'yes'\n")
    assert load_file(cfg) == {"extractive_summaries": True}


@pytest.mark.slow
def test_a_served_graph_gets_flat_and_nested_context(langgraph_dev):
    from langgraph_sdk import get_sync_client

    text = "Cinderella's mother died. Her father married again. The stepsisters were cruel. " * 12
    client = get_sync_client(url=langgraph_dev)
    for context in ({"model": "scripted", "min_chunk_tokens": 60, "max_chunk_tokens": 200},
                    {"llm": {"model": "scripted"}, "chunking": {"min_chunk_tokens": 60, "max_chunk_tokens": 200}}):
        thread = client.threads.create()
        result = client.runs.wait(thread["thread_id"], "chunker", input={"text": text}, context=context,
                                  config={"recursion_limit": 100000})
        assert_lossless(result["tree"], text)
        assert result["tree"]["meta"]["config"]["min_chunk_tokens"] == 60  # not dropped on the way
