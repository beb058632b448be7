"""Sphinx configuration of chunker's documentation site (docs/).

Build: `sphinx-build -W --keep-going -n -b html docs docs/_build/html` (warnings are errors,
nitpicky): a broken link, a missing page or a page outside every table of contents fails.
The reference pages are generated from the code at build time (docs/_ext/chunker_docs).
"""

from __future__ import annotations

import sys
from importlib.metadata import version as _dist_version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "chunker"
author = "the chunker authors"
copyright = "the chunker authors, MIT licence"
release = _dist_version("chunker-tree")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.graphviz",
    "chunker_docs",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]

# MyST: Markdown pages; `(label)=` targets, `:` definition lists (the settings), ::: fences
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# a link to a page or target that does not exist is a warning, so an error under -W
myst_all_links_external = False
nitpicky = True

# the graphs are drawn at build time by Debian's `dot` (apt-get install graphviz)
graphviz_output_format = "svg"
graphviz_dot_args = ["-Gbgcolor=transparent"]

html_theme = "furo"
html_title = f"chunker {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
