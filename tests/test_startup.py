"""Start-up stays cheap: the CLI, `--help` and the grounding and navigation packages import
no heavy library until a command uses it (issue 17). Checked by what a fresh interpreter
has in sys.modules, never by timing: the speed itself is bench/startup.py's to measure."""

import json
import subprocess
import sys

import pytest

HEAVY = ("sumy", "nltk", "scipy", "numpy", "torch", "sentence_transformers", "fitz", "pymupdf",
         "pymupdf4llm", "llama_cpp", "matplotlib", "mcp", "langchain_core", "langchain_openai",
         "langgraph", "yake")
"""Each costs 0.1 s to seconds to import; none is needed to print the CLI's help."""

_LOADED = """
import json, sys
{code}
print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}})))
"""

_HELP = """
from chunker.cli.app import app
try:
    app({argv!r})
except SystemExit:
    pass
"""


def loaded_after(code: str) -> set[str]:
    """Top-level packages in sys.modules once a fresh interpreter has run `code`."""
    proc = subprocess.run([sys.executable, "-c", _LOADED.format(code=code)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


@pytest.mark.parametrize("code", [
    "import chunker.cli.app",
    _HELP.format(argv=["--help"]),
    _HELP.format(argv=["run", "--help"]),
    _HELP.format(argv=["ask", "--help"]),
], ids=["import", "--help", "run --help", "ask --help"])
def test_the_cli_imports_no_heavy_library_before_a_command_runs(code):
    assert loaded_after(code) & set(HEAVY) == set()


@pytest.mark.parametrize("package", ["chunker.grounding", "chunker.navigation"])
def test_packages_defer_their_heavy_imports_to_first_use(package):
    # the top-level `sumy` package may load (its data files hold the stop words); its
    # stemmer may not: that imports nltk, and nltk scipy.stats
    loaded = loaded_after(f"import {package}\nimport sys\n"
                          "assert 'sumy.nlp.stemmers' not in sys.modules, 'sumy.nlp.stemmers'")
    assert loaded & (set(HEAVY) - {"sumy"}) == set()


def test_stop_words_are_sumys_english_list():
    from sumy.utils import get_stop_words

    from chunker.grounding.text import STOP_WORDS

    assert STOP_WORDS == get_stop_words("english")


def test_a_lazy_import_still_works_on_first_use():
    from chunker.grounding.text import stem
    from chunker.navigation import open_tree

    assert stem("sisters") == "sister"
    assert callable(open_tree)
