"""The records other passes add to hierarchy.json (tables with their checks, terms, typed
edges), gathered per node for its page. They are read from the raw JSON and read leniently:
a tree without them, or with a shape this version does not know yet, still gets every page,
and a record that cannot be laid out as a table is shown as its JSON.

Shapes understood: `tables` at the top or on a node, each with `columns` (names, or objects
with `name`/`path`), `rows` (lists or objects; cells text or objects with `text`), `caption`,
and the node(s) it belongs to (`node`, `nodes`, `parts[].node`); `terms` with a name
(`name`/`term`/`canonical`), `aliases`, a `definition` (or `defined_in`) naming its node, and
`mentions`; `edges` with a kind (`kind`/`type`) and two ends (`from`/`to`, `source`/`target`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass
class TableView:
    caption: str
    header: list[str]
    rows: list[list[str]]
    raw: str | None = None  # the record as JSON when it is not a table this version can lay out


@dataclass
class NodeExtras:
    tables: list[TableView] = field(default_factory=list)
    defines: list[dict] = field(default_factory=list)     # {name, aliases, definition}
    mentions: list[dict] = field(default_factory=list)    # {name, node}: node defines it
    refs_out: list[dict] = field(default_factory=list)    # {kind, node, text}
    refs_in: list[dict] = field(default_factory=list)     # {kind, node}
    checks: list[dict] = field(default_factory=list)


def _first(d: dict, *keys):
    for k in keys:
        if d.get(k) not in (None, "", []):
            return d[k]
    return None


def _cell(value) -> str:
    if isinstance(value, dict):
        value = _first(value, "text", "value", "raw", "number")
    return "" if value is None else str(value)


def _column(value) -> str:
    if isinstance(value, dict):
        path = value.get("path")
        if isinstance(path, list) and path:
            return " / ".join(str(p) for p in path)
        value = _first(value, "name", "label", "text", "key")
    return _cell(value)


def table_view(record: dict) -> TableView:
    caption = _cell(_first(record, "caption", "title", "id")) if isinstance(record, dict) else ""
    try:
        columns = [_column(c) for c in record.get("columns") or record.get("header") or []]
        rows = []
        for row in record.get("rows") or []:
            if isinstance(row, dict) and isinstance(row.get("cells"), list):
                row = row["cells"]
            if isinstance(row, dict):
                keys = columns or list(row)
                columns = columns or keys
                rows.append([_cell(row.get(k)) for k in keys])
            elif isinstance(row, list):
                rows.append([_cell(c) for c in row])
            else:
                raise TypeError("a row that is neither a list nor a record")
        if not columns and not rows:
            raise TypeError("no columns and no rows")
        return TableView(caption=caption, header=columns, rows=rows)
    except (TypeError, AttributeError):
        return TableView(caption=caption, header=[], rows=[],
                         raw=json.dumps(record, indent=1, ensure_ascii=False)[:20_000])


def _nodes_of(record: dict) -> list[str]:
    found = []
    for key in ("node", "node_id"):
        if isinstance(record.get(key), str):
            found.append(record[key])
    for key in ("nodes", "parts"):
        for part in record.get(key) or []:
            if isinstance(part, str):
                found.append(part)
            elif isinstance(part, dict) and isinstance(part.get("node"), str):
                found.append(part["node"])
    return list(dict.fromkeys(found))


def _term_name(term: dict) -> str:
    return _cell(_first(term, "name", "term", "canonical", "label"))


def _defining_node(term: dict) -> str | None:
    d = _first(term, "definition", "defined_in", "defined_at")
    if isinstance(d, str):
        return d
    if isinstance(d, dict):
        return _first(d, "node", "node_id")
    return term.get("node") if isinstance(term.get("node"), str) else None


def gather(raw: dict, known: set[str]) -> dict[str, NodeExtras]:
    """Per node id, what its page shows beyond the tree; only nodes with something."""
    out: dict[str, NodeExtras] = {}

    def at(nid) -> NodeExtras | None:
        if not isinstance(nid, str) or nid not in known:
            return None
        return out.setdefault(nid, NodeExtras())

    tables = [t for t in raw.get("tables") or [] if isinstance(t, dict)]
    for node in raw.get("nodes") or []:
        for t in (node.get("tables") or []) if isinstance(node, dict) else []:
            if isinstance(t, dict):
                tables.append({**t, "node": t.get("node") or node.get("id")})
    for t in tables:
        view = table_view(t)
        for nid in _nodes_of(t):
            if (e := at(nid)) is not None:
                e.tables.append(view)
    for check in raw.get("checks") or []:
        if not isinstance(check, dict):
            continue
        for nid in {loc.get("node") for loc in check.get("locations") or [] if isinstance(loc, dict)}:
            if (e := at(nid)) is not None:
                e.checks.append(check)
    defined_at: dict[str, str] = {}
    for term in raw.get("terms") or []:
        if not isinstance(term, dict) or not (name := _term_name(term)):
            continue
        d = term.get("definition")
        text = _cell(_first(d, "text", "quote", "definition")) if isinstance(d, dict) else (
            "" if d is None or isinstance(d, str) and d in known else str(d))
        aliases = [_cell(a) for a in term.get("aliases") or []]
        if (e := at(nid := _defining_node(term))) is not None:
            defined_at[name] = nid
            e.defines.append({"name": name, "aliases": aliases, "definition": text})
        for m in term.get("mentions") or []:
            mid = m if isinstance(m, str) else (m.get("node") if isinstance(m, dict) else None)
            if (e := at(mid)) is not None and mid != nid and all(x["name"] != name for x in e.mentions):
                e.mentions.append({"name": name, "node": nid if nid in known else None})
    for edge in raw.get("edges") or []:
        if not isinstance(edge, dict):
            continue
        kind = _cell(_first(edge, "kind", "type")) or "refers_to"
        a, b = _first(edge, "from", "source", "src"), _first(edge, "to", "target", "dst")
        if kind in ("defines", "mentions"):
            continue  # shown as the node's terms
        if (e := at(a)) is not None and b in known:
            e.refs_out.append({"kind": kind, "node": b, "text": _cell(_first(edge, "text", "quote"))})
        if (e := at(b)) is not None and a in known:
            e.refs_in.append({"kind": kind, "node": a})
    return out
