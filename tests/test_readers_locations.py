"""Locations in hierarchy.json (schema 4): trees of every earlier version still open, a
schema-3 PDF tree's nodes get their location from their pages, and a node's location is what
the source map says of its span."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from chunker.navigation.tree import open_tree
from chunker.output.hierarchy import SCHEMA_VERSION, Hierarchy, check_tree
from chunker.output.markdown import pages_note
from chunker.readers.location import describe

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_the_schema_is_version_6():
    assert SCHEMA_VERSION == 6  # 4: structured records, 5: terms and edges, 6: locations
    schema = json.loads((Path(__file__).resolve().parents[1] / "chunker" / "output" /
                         "hierarchy.schema.json").read_text())
    assert "NodeLocation" in json.dumps(schema)  # regenerated: python -m chunker.output.hierarchy


def test_a_schema_3_tree_still_opens_with_locations_from_its_pages(tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    shutil.copy(FIXTURES / "schema3" / "hierarchy.json", out / "hierarchy.json")
    assert json.loads((out / "hierarchy.json").read_text())["schema_version"] == 3
    tree = open_tree(out)
    h = tree.hierarchy
    assert h.schema_version == SCHEMA_VERSION
    check_tree(h)
    paged = [n for n in h.nodes if n.pages is not None]
    assert paged and all(n.location.pages == n.pages for n in paged)
    leaf = h.leaves()[0]
    assert tree.read_original(leaf.id).location == {"pages": list(leaf.pages)}
    assert "page" in tree.open_node(leaf.id).render()
    # written again, it is a tree of today's schema that opens as itself
    again = Hierarchy.model_validate_json(h.model_dump_json())
    assert again.model_dump() == h.model_dump()


def test_a_schema_2_tree_opens_as_todays():
    data = json.loads((FIXTURES / "schema2" / "hierarchy.json").read_text())
    h = Hierarchy.model_validate(data)
    assert h.schema_version == SCHEMA_VERSION and all(n.location is None for n in h.nodes)


def test_locations_read_in_a_few_words():
    assert describe({"pages": [3, 5]}) == "pages 3\u20135"
    assert describe({"slides": [2, 2]}) == "slide 2"
    assert describe({"parts": ["ch03.xhtml", "ch04.xhtml"], "anchor": "intro", "paragraphs": [0, 4]}) == \
        "ch03.xhtml#intro \u2026 ch04.xhtml, paragraphs 1\u20135"
    assert describe({"pages": [2, 2], "ocr_confidence": 71.4}) == "page 2, OCR 71%"
    assert describe(None) == ""
    h = Hierarchy.model_validate(json.loads((FIXTURES / "schema3" / "hierarchy.json").read_text()))
    node = h.leaves()[0]
    deck = node.model_copy(update={"pages": None, "location": node.location.model_copy(
        update={"pages": None, "slides": (2, 4)})})
    assert pages_note(deck) == " (slides 2\u20134)"
