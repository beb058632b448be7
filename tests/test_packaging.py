"""Installed, everything lives under the one import name `chunker`."""

import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT


@pytest.mark.slow
def test_wheel_has_only_the_chunker_package(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("chunker_tree-*.whl"))  # the distribution chunker-tree
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"chunker", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    for module in ("graph/build.py", "nodes/boundary.py", "state/schema.py", "prompts/rewrite.md",
                   "output/hierarchy.schema.json", "cli/app.py", "chunking/boundary.py"):
        assert f"chunker/{module}" in names
    # every package of the source tree is in the wheel (pyproject lists them by hand)
    packages = {p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "chunker").rglob("__init__.py")}
    mapped = {f"chunker/{d}" for d in ("graph", "nodes", "prompts", "state")}
    assert {f"{p}/__init__.py" for p in packages | mapped} <= set(names)
    entry = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "chunker = chunker.cli.app:main" in entry


def test_imports_from_another_directory(tmp_path):
    code = ("import chunker.graph, chunker.nodes.boundary, chunker.prompts as p; "
            "print(p.load('rewrite')[:5]); import importlib.util as u; "
            "print(u.find_spec('graph') is None and u.find_spec('nodes') is None)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Task:", "True"]
