"""The site's HTML pages, written with Jinja2 (autoescaped: every text taken from the tree is
escaped; only the rewritten text's Markdown, rendered with raw HTML off, is inserted as HTML).

Pages: `index.html` (the overview: the run's facts), `n/<id>.html` (one per node),
`search.html`, `picture.html`. Every page carries the outline, drawn from `data/tree.js`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources

import jinja2

from chunker.output.markdown import sibling_map
from chunker.site import picture
from chunker.site.extras import gather
from chunker.site.prose import Prose
from chunker.site.tree import SiteTree, page_name


def environment() -> jinja2.Environment:
    folder = resources.files("chunker.site") / "templates"
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)), autoescape=True,
                              trim_blocks=True, lstrip_blocks=True)  # lenient: records from other passes may lack a key


def _flat(data, prefix: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _flat(v, f"{prefix}{k}.")
    else:
        yield prefix[:-1], data if isinstance(data, str) else json.dumps(data)


def _counts(d: dict | None) -> str:
    return ", ".join(f"{v} {k}" for k, v in (d or {}).items() if v) or "none"


class Pages:
    """Renders every page of one export."""

    def __init__(self, t: SiteTree):
        self.t = t
        self.env = environment()
        self.prose = Prose()
        self.nodes = t.nodes
        self.siblings = sibling_map(t.h)
        self.extras = gather(t.raw, set(self.nodes))
        self.common = {"site_title": t.title, "query": None}

    def _ref(self, nid: str, root: str) -> dict:
        n = self.nodes[nid]
        return {"page": f"{root}n/{page_name(nid)}", "label": self.t.label(n), "kind": n.kind,
                "summary": n.summary, "tokens": self.t.size[nid], "outcome": self.t.outcome(n)}

    def _helpers(self, root: str) -> dict:
        return {"page_of": lambda nid: f"{root}n/{page_name(nid)}",
                "label_of": lambda nid: self.t.label(self.nodes[nid])}

    def node(self, nid: str) -> str:
        t, n = self.t, self.nodes[nid]
        prev, nxt = self.siblings.get(nid, (None, None))
        ref = lambda other: self._ref(other.id, "../") if other is not None else None  # noqa: E731
        return self.env.get_template("node.html").render(
            **self.common, **self._helpers("../"), root="../", page_kind="node", node_row=t.index[nid],
            page_title=t.label(n), node=n, label=t.label(n), outcome=t.outcome(n),
            rewritten=self.prose(n.rewritten), size=t.size[nid],
            ancestors=[self._ref(a, "../") for a in t.parent_chain[nid]],
            up=self._ref(n.parent, "../") if n.parent else None, prev=ref(prev), next=ref(nxt),
            children=[self._ref(c, "../") for c in n.children],
            fell_back=t.fell_back(n), extras=self.extras.get(nid))

    def overview(self) -> str:
        t, h = self.t, self.t.h
        root = self.nodes[h.root]
        leaves = sum(1 for n in h.nodes if not n.children and n.kind != "folder")
        kinds: dict[str, int] = {}
        for n in h.nodes:
            kinds[n.kind] = kinds.get(n.kind, 0) + 1
        shape = [("Nodes", f"{len(h.nodes)} ({_counts(kinds)})"), ("Leaves", leaves),
                 ("Levels", root.level + 1), ("Depth", 1 + max(t.depth.values())),
                 ("Tokens in the leaves", t.size[h.root])]
        m, run = h.meta, t.run
        facts = [("Model", m.model), ("chunker", m.tool_version), ("Source", m.source or (m.corpus.root if m.corpus else "")),
                 ("Characters", m.source_chars), ("Started", m.started_at or (run and run.started_at) or ""),
                 ("Finished", m.finished_at or (run and run.finished_at) or "")]
        if run is not None and run.wall_s:
            facts.append(("Wall time", f"{run.wall_s:.1f} s"))
        if m.corpus is not None:
            facts.append(("Documents", len(m.corpus.documents)))
            if m.corpus.toc:
                facts.append(("Table of contents", m.corpus.toc))
        if run is not None and run.store:
            facts.append(("Store", run.store))
        skipped = [s.model_dump() for s in (m.corpus.skipped if m.corpus else [])]
        updates = [{"at": u.at, "reused": _counts(u.reused), "redone": _counts(u.redone),
                    "added": _counts(u.added), "removed": _counts(u.removed), "calls": u.calls,
                    "stale": "; ".join(f"{k}: {', '.join(v)}" for k, v in u.stale.items()) or "nothing"}
                   for u in m.updates or []]
        checks = [{**c, "nodes": list(dict.fromkeys(
            loc["node"] for loc in c.get("locations") or []
            if isinstance(loc, dict) and loc.get("node") in self.nodes))} for c in t.checks()]
        return self.env.get_template("overview.html").render(
            **self.common, **self._helpers(""), root="", page_kind="overview", node_row=None,
            page_title="Overview", root_node=root, root_page=f"n/{page_name(h.root)}",
            root_label=t.label(root), corpus=m.corpus is not None, shape=shape,
            top=[self._ref(c, "") for c in root.children], run_facts=facts,
            stats=sorted(m.stats.items()), settings=list(_flat(m.config)), skipped=skipped,
            updates=updates, checks=checks)

    def search(self) -> str:
        return self.env.get_template("search.html").render(
            **self.common, root="", page_kind="search", node_row=None, page_title="Search")

    def picture(self) -> str:
        from markupsafe import Markup

        return self.env.get_template("picture.html").render(
            **self.common, root="", page_kind="picture", node_row=None, page_title="Picture",
            corpus=self.t.h.meta.corpus is not None, outcomes=picture.counts(self.t),
            svg=Markup(picture.svg(self.t)))
