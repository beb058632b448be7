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


def _closure(requirements: list[str]) -> set[str]:
    """The distributions `requirements` install, transitively (those installed here)."""
    import importlib.metadata as md
    import re

    seen: set[str] = set()
    todo = [r for r in requirements if ";" not in r or "extra" not in r.split(";", 1)[1]]
    while todo:
        name = re.split(r"[\s\[<>=!~;(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if name in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        seen.add(name)
        todo += [r for r in dist.requires or [] if ";" not in r or "extra" not in r.split(";", 1)[1]]
    return seen


def test_a_run_needs_only_the_core_dependencies(tmp_path):
    """`pip install chunker-tree` (no extra) runs a document: every module a run imports comes
    from the core dependencies. The packages only the extras bring are made unimportable in a
    child process (rapidfuzz, imported by the knowledge passes, was once only in `eval`, and the
    README's first command failed in a bare clone)."""
    import importlib.metadata as md
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = _closure(project["dependencies"])
    extras = _closure([r for reqs in project["optional-dependencies"].values() for r in reqs
                       if not r.startswith("chunker-tree")])
    only_extras = extras - core
    blocked = sorted({module for module, dists in md.packages_distributions().items()
                      if {d.lower().replace("_", "-") for d in dists} <= only_extras
                      and module.isidentifier()})
    assert "torch" in blocked and "fitz" in blocked  # the block list is not empty
    doc = tmp_path / "tale.md"
    doc.write_text("# A tale\n\nOnce upon a time a king had three daughters. The youngest was the "
                   "kindest of them all.\n\n## The well\n\nShe dropped her golden ball into the well, "
                   "and a frog brought it back.\n", encoding="utf-8")
    code = ("import sys\n"
            f"blocked = set({blocked!r})\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in blocked:\n"
            "            raise ModuleNotFoundError(f'{name} comes only with an extra', name=name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "from chunker.cli.app import main\n"
            f"sys.argv = ['chunker', 'run', {str(doc)!r}, '-o', {str(tmp_path / 'out')!r}, "
            "'--model', 'scripted', '--embeddings', 'lexical', '-q']\n"
            "main()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "out" / "hierarchy.json").exists()
