"""Structured records in a real tree (`--model scripted --embeddings lexical`): hierarchy.json's
records and checks, CSV beside the node files, the synthesis told of a failed check, the
targeted route and the navigator's fallback, an update redoing an edited table, an older tree."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from chunker.graph.navigator_ask import ask
from chunker.llm.registry import register_instance
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import open_tree
from chunker.output.hierarchy import SCHEMA_VERSION, Hierarchy
from chunker.testing.scripted import ScriptedChatModel
from conftest import invoke, run_text

DATA = Path(__file__).parent / "data" / "structured"
ORCHARD = (DATA / "orchard.md").read_text(encoding="utf-8")
WRONG = ORCHARD.replace("| Total | 20 | 25 |", "| Total | 20 | 26 |")
STOCK = ("# Stock\n\nTable 2: Stock counts\n\n| Item | Count | Double |\n|---|---|---|\n"
         + "".join(f"| Item {i} | {i} | {i * 2} |\n" for i in range(1, 90)))
NAV = NavigatorSettings(embeddings="lexical", budget_tokens=150, cache_embeddings=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("orchard")
    src = root / "orchard.md"
    src.write_text(WRONG, encoding="utf-8")
    out = root / "out"
    proc = invoke("run", src, "--model", "scripted", "--embeddings", "lexical", "-o", out, "--json", check=0)
    return src, out, json.loads(proc.stdout.strip().splitlines()[-1])


def test_records_checks_and_csv_are_written_and_linked(built):
    src, out, report = built
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    assert h["schema_version"] == SCHEMA_VERSION
    assert [t["caption"] for t in h["tables"]] == ["Table 1: Fruit sold by month (crates)", "Costs"]
    (check,) = h["checks"]
    assert check["kind"] == "table-total" and check["locations"][0]["quote"] == "26"
    assert check["locations"][0]["node"] in h["tables"][0]["parts"]
    assert report["stats"]["checks.table-total"] == 1 and report["stats"]["records.tables"] == 2
    nodes = {n["id"]: n for n in h["nodes"]}
    for table in h["tables"]:
        holder = nodes[table["parts"][0]]
        assert table["id"] in holder["records"]
        assert table["csv"] == holder["filename"][:-3] + f".{table['id']}.csv"
        rows = list(csv.reader(io.StringIO((out / table["csv"]).read_text(encoding="utf-8"))))
        assert rows[0] == [c["label"] for c in table["columns"]] and len(rows) == 1 + len(table["rows"])
        page = (out / holder["filename"]).read_text(encoding="utf-8")
        assert f"]({Path(table['csv']).name})" in page


def test_a_table_split_across_leaves_is_one_record_with_its_parts():
    out, store = run_text(STOCK, chunking={"structure": "markdown", "min_chunk_tokens": 50,
                                          "max_chunk_tokens": 200}, output={"return_tree": True})
    h = Hierarchy.model_validate(out["tree"])
    (table,) = h.tables
    assert len(table.parts) >= 2 and len(table.rows) == 89
    assert all(table.id in h.by_id()[p].records for p in table.parts)


class Recording(ScriptedChatModel):
    """The scripted model, keeping every synthesis prompt it was sent."""

    def _synthesis(self, prompt: str, user: str) -> dict:
        self.__dict__.setdefault("seen", []).append(user)
        return super()._synthesis(prompt, user)


def test_the_block_above_a_failed_check_is_told_and_does_not_state_the_disputed_number():
    model = Recording(summary="The orchard sold 26 crates of fruit in April.")
    register_instance("scripted-structured-recording", model)
    out, _ = run_text(WRONG, model="scripted-structured-recording",
                      chunking={"structure": "markdown"}, output={"return_tree": True})
    h = Hierarchy.model_validate(out["tree"])
    blocks = [n for n in h.nodes if n.children]
    assert blocks and any("Data checks" in u and "26" in u for u in model.__dict__["seen"])
    for block in blocks:
        assert "26" not in block.summary
    assert out["stats"]["grounding.block_summary.disputed_number"] >= 1


def test_a_table_leaf_states_only_its_records_numbers_and_falls_back_to_caption_and_headers():
    register_instance("scripted-structured-invented", ScriptedChatModel(
        summary="Item 1 counted 999 units in the stock counts."))
    out, _ = run_text(STOCK, model="scripted-structured-invented",
                      chunking={"structure": "markdown", "min_chunk_tokens": 50, "max_chunk_tokens": 200},
                      output={"return_tree": True})
    h = Hierarchy.model_validate(out["tree"])
    pure = [h.by_id()[p] for p in h.tables[0].parts if h.by_id()[p].content == "table"]
    assert pure
    for leaf in pure:
        assert leaf.summary == "Table 2: Stock counts: Item, Count, Double."


def test_the_targeted_route_answers_a_row_within_budget_and_the_navigator_falls_back(built):
    _, out, _ = built
    got = ask(str(out), "How many crates of red apples were sold in April?", NAV)
    assert got.route == "table-lookup" and got.tokens_read <= 150
    (passage,) = got.passages
    assert "Red apples" in passage["text"] and "April: 15" in passage["text"]
    assert "Pears" not in passage["text"]  # a row, not the whole table
    other = ask(str(out), "Why was the cider press closed?", NAV)
    assert other.route == "collapsed" and other.passages and other.status == "read"


def test_an_update_redoes_an_edited_tables_record_and_its_checks(built, tmp_path):
    src, out, _ = built
    here = tmp_path / "out"
    shutil.copytree(out, here)
    src.write_text(WRONG.replace("| Pears | 8 | 10 |", "| Pears | 8 | 11 |"), encoding="utf-8")
    try:
        invoke("update", here, "--model", "scripted", check=0)
    finally:
        src.write_text(WRONG, encoding="utf-8")
    h = json.loads((here / "hierarchy.json").read_text(encoding="utf-8"))
    pears = h["tables"][0]["rows"][1]["cells"]
    assert [c["text"] for c in pears] == ["Pears", "8", "11"]
    assert h.get("checks", []) == []  # 15 + 11 is April's 26: the total adds up now
    assert h["meta"]["updates"]


def test_a_tree_older_than_the_records_still_opens(built, tmp_path):
    _, out, _ = built
    old = tmp_path / "old"
    old.mkdir()
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    for key in ("tables", "equations", "figures", "checks"):
        h.pop(key, None)
    for n in h["nodes"]:
        n.pop("records", None)
    h["schema_version"] = SCHEMA_VERSION - 1
    (old / "hierarchy.json").write_text(json.dumps(h), encoding="utf-8")
    tree = open_tree(old)
    assert tree.hierarchy.tables == [] and tree.hierarchy.checks == []
    got = ask(str(old), "How many crates of red apples were sold in April?", NAV)
    assert got.route == "collapsed"
