"""A folder run keeps every document's records (issue 32): tables, equations, figures and their
checks in the corpus's hierarchy.json under corpus ids, each table's CSV beside its node file,
the figures' images in OUT/media/, the targeted lookup answering from the corpus tree, and an
update redoing an edited table's record and checks (`--model scripted --embeddings lexical`)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import check_markdown_tree, invoke

DATA = Path(__file__).parent / "data" / "structured"
ORCHARD = (DATA / "orchard.md").read_text(encoding="utf-8").replace("| Total | 20 | 25 |", "| Total | 20 | 26 |")
STOCK = """# Stock

The shop counted its stock at the end of the month, as Figure 3 shows.

Table 2: Stock counts

| Item | Count |
|---|---|
| Hammers | 4 |
| Saws | 7 |
| Total | 11 |

![Shelf photo](shelf.png)

Figure 3: The shelves of the shop
"""
# a tiny valid PNG (1x1, red)
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d7"
                    "63f8cfc000000301010018dd8db00000000049454e44ae426082")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    src = root / "src"
    (src / "img").mkdir(parents=True)
    (src / "orchard.md").write_text(ORCHARD, encoding="utf-8")
    (src / "stock.md").write_text(STOCK.replace("shelf.png", "img/shelf.png"), encoding="utf-8")
    (src / "img" / "shelf.png").write_bytes(PNG)
    out = root / "out"
    proc = invoke("run", src, "--model", "scripted", "--embeddings", "lexical", "-o", out, "--json",
                  "--exclude", "img/*", check=0)
    return src, out, json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_corpus_tree_holds_every_documents_records_checks_and_csv(corpus):
    src, out, report = corpus
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    nodes = {n["id"]: n for n in h["nodes"]}
    docs = {d["source"]: d["node"].split(".")[0] for d in h["meta"]["corpus"]["documents"]}
    assert [t["caption"] for t in h["tables"]] == ["Table 1: Fruit sold by month (crates)", "Costs",
                                                   "Table 2: Stock counts"]
    for table in h["tables"]:
        key = table["id"].split(".")[0]
        assert key in docs.values() and all(p.startswith(key + ".") and p in nodes for p in table["parts"])
        holder = nodes[table["parts"][0]]
        assert table["id"] in holder["records"]
        assert table["csv"].startswith(holder["filename"][:-3] + ".")
        rows = list(csv.reader(io.StringIO((out / table["csv"]).read_text(encoding="utf-8"))))
        assert len(rows) == 1 + len(table["rows"])
        assert f"]({Path(table['csv']).name})" in (out / holder["filename"]).read_text(encoding="utf-8")
    (total,) = [c for c in h["checks"] if c["kind"] == "table-total"]
    assert total["locations"][0]["source"] == "orchard.md" and total["locations"][0]["quote"] == "26"
    assert total["locations"][0]["node"] in h["tables"][0]["parts"]
    assert report["stats"]["checks.table-total"] == 1
    (fig,) = h["figures"]
    assert fig["caption"] == "Figure 3: The shelves of the shop" and fig["id"].startswith(docs["stock.md"])
    assert (out / fig["media"]).read_bytes() == PNG
    holder = out / nodes[fig["parts"][0]]["filename"]
    listed = holder.read_text(encoding="utf-8").split("## Structured content")[1].split("## Original text")[0]
    (link,) = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", listed)
    assert (holder.parent / link).resolve() == (out / fig["media"]).resolve()
    check_markdown_tree(out)


def test_chunker_ask_answers_a_table_question_from_the_corpus_tree(corpus):
    _, out, _ = corpus
    proc = invoke("ask", out, "How many saws were counted?", "--embeddings", "lexical", "--budget", "150",
                  "--json", check=0)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["route"] == "table-lookup"
    assert "Saws" in got["passages"][0]["text"] and "Count: 7" in got["passages"][0]["text"]
    assert got["passages"][0]["source"] == "stock.md"


def test_a_corpus_update_redoes_an_edited_tables_record_and_checks(corpus, tmp_path):
    src0, out0, _ = corpus
    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(src0, src)
    shutil.copytree(out0, out)
    (src / "orchard.md").write_text(ORCHARD.replace("| Pears | 8 | 10 |", "| Pears | 8 | 11 |"), encoding="utf-8")
    invoke("update", out, "--source", src, "--model", "scripted", check=0)
    h = json.loads((out / "hierarchy.json").read_text(encoding="utf-8"))
    pears = h["tables"][0]["rows"][1]["cells"]
    assert [c["text"] for c in pears] == ["Pears", "8", "11"]
    assert [c for c in h["checks"] if c["kind"].startswith("table-")] == []  # 15 + 11 = 26 now
    assert [t["caption"] for t in h["tables"]][-1] == "Table 2: Stock counts"  # the unchanged file's
    (fig,) = h["figures"]
    assert (out / fig["media"]).read_bytes() == PNG  # and its figure's image
