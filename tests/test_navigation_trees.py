"""Real trees for the navigation tests, made by the real CLI (in-process) with the scripted model.

Helpers only (imported by the other test_navigation*/test_mcp* modules), plus a check
that the trees they build have the shape those tests rely on.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import CINDERELLA, invoke

SMALL_CHUNKS = ["--min-chunk-tokens", "120", "--max-chunk-tokens", "300"]
"""Small leaves, so Cinderella's tree has several levels to walk and branches to backtrack to."""
ONE_LEAF_TEXT = ("Cinderella's mother died when she was young. Her father married a proud woman "
                 "with two daughters. The stepsisters made Cinderella sleep in the ashes.\n")


def chunker_cli(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`chunker ARGS` in this process (conftest.invoke: no interpreter start per command)."""
    return invoke(*args, cwd=cwd)


def build_tree(out: Path, source: Path = CINDERELLA, *flags: str) -> Path:
    proc = chunker_cli("run", source, "--model", "scripted", "--output-dir", out, "--quiet", *flags)
    assert proc.returncode == 0, proc.stderr
    assert (out / "hierarchy.json").is_file()
    return out


def build_cinderella(base: Path) -> Path:
    return build_tree(base / "cinderella", CINDERELLA, *SMALL_CHUNKS)


def copy_tree(tree: Path, base: Path) -> Path:
    """A copy of a tree built once per session (conftest's `cinderella_tree`, `one_leaf_tree`)
    under `base`, by the same folder name: the CLI run is made once, and a module that writes in
    its tree (a log, a cache) writes in its own copy."""
    return Path(shutil.copytree(tree, base / tree.name))


def build_one_leaf(base: Path) -> Path:
    doc = base / "one-leaf.txt"
    doc.write_text(ONE_LEAF_TEXT, encoding="utf-8")
    return build_tree(base / "one-leaf", doc)


def test_the_trees_have_the_shape_the_tests_need(cinderella_tree, one_leaf_tree):
    from chunker.navigation import open_tree

    # the very trees the navigation tests get (conftest's session fixtures: built by the
    # functions above, once per worker)
    tree = open_tree(cinderella_tree)
    root = tree.node(tree.root_id)
    assert root.level >= 2 and len(root.children) >= 2
    assert len(tree.leaf_ids()) >= 8
    one = open_tree(one_leaf_tree)
    assert one.is_leaf(one.root_id) and one.leaf_ids() == [one.root_id]
