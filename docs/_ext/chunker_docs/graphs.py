"""The graphs, drawn from the compiled graphs themselves (`get_graph()`), as Graphviz DOT.

sphinx.ext.graphviz renders the DOT with Debian's `dot` at build time: no diagram service,
no script from a CDN. Nodes that call a model (an LLM, or an embeddings server) are the
ones built with a retry policy; conditional edges (a routing function's `Literal`) are dashed.
A node that is a subgraph (a compiled graph added as a node) is drawn with a double border,
and the subgraph itself in a picture of its own (`subgraphs`), one per compiled graph, so that
each picture fits on a screen where `get_graph(xray=True)` would draw them all in one.
"""

from __future__ import annotations

from chunker_docs.text import code, table

_TERMINAL = {"__start__": "start", "__end__": "end"}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '\\"') + '"'


def subgraphs(compiled) -> list:
    """The compiled graphs inside `compiled`, depth first, each once (by its name): a
    subgraph several pipelines share is drawn once."""
    found: dict[str, object] = {}

    def walk(graph) -> None:
        for _, sub in graph.get_subgraphs():
            if sub.name not in found:
                found[sub.name] = sub
                walk(sub)

    walk(compiled)
    return list(found.values())


def _nested(compiled) -> set[str]:
    return {name for name, _ in compiled.get_subgraphs()}


def dot(compiled, title: str) -> str:
    """DOT of `compiled` (a compiled LangGraph graph), its subgraphs as one node each."""
    drawn = compiled.get_graph()
    calls = {name for name, spec in compiled.builder.nodes.items() if spec.retry_policy}
    nested = _nested(compiled)
    lines = [f"digraph {_quote(title)} {{", "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fillcolor="#f4f4f4", fontname="sans-serif", fontsize=11];',
             '  edge [fontname="sans-serif", fontsize=9, color="#555555"];']
    for node_id in drawn.nodes:
        if node_id in _TERMINAL:
            lines.append(f'  {_quote(node_id)} [label="{_TERMINAL[node_id]}", shape=oval, fillcolor="#dddddd"];')
        elif node_id in calls:
            lines.append(f'  {_quote(node_id)} [fillcolor="#d7e8fb", penwidth=1.5];')
        elif node_id in nested:
            lines.append(f'  {_quote(node_id)} [peripheries=2, fillcolor="#fdf1d6"];')
        else:
            lines.append(f"  {_quote(node_id)};")
    for edge in drawn.edges:
        style = ' [style=dashed]' if edge.conditional else ""
        lines.append(f"  {_quote(edge.source)} -> {_quote(edge.target)}{style};")
    lines.append("}")
    return "\n".join(lines)


def _figure(compiled, title: str, caption: str) -> str:
    drawn = compiled.get_graph()
    calls = sorted(n for n, spec in compiled.builder.nodes.items() if spec.retry_policy)
    nested = sorted((name, sub.name) for name, sub in compiled.get_subgraphs())
    nodes = [n for n in drawn.nodes if n not in _TERMINAL]
    fence = "````"
    names = ", ".join(code(n) + ("" if n == graph else f" ({code(graph)})") for n, graph in nested)
    inside = f"; the double-bordered ones are subgraphs, each drawn on this page: {names}" if nested else ""
    return "\n".join([
        f"{fence}{{graphviz}}", f":caption: {caption}", f":alt: {title}", "",
        dot(compiled, title), fence, "",
        f"{len(nodes)} nodes and {len(drawn.edges)} edges; the shaded nodes call a model "
        f"(retried on transient errors): {', '.join(code(n) for n in calls) or 'none'}{inside}.",
    ])


def chunker() -> str:
    from chunker.graph import build_graph

    compiled = build_graph()
    parts = [_figure(compiled, "chunker", "The chunker graph, drawn from chunker.graph.build_graph().get_graph()")]
    for sub in subgraphs(compiled):
        parts += ["", f"### `{sub.name}`", "", _about(sub.name), "",
                  _figure(sub, sub.name, f"The {sub.name} subgraph, drawn from its compiled graph's get_graph()")]
    return "\n".join(parts)


def _about(name: str) -> str:
    """What a subgraph is: the docstring of the `build_*` that compiles it, and where."""
    import importlib

    for module_name in ("cut", "write", "aggregate", "pipelines", "regions"):
        module = importlib.import_module(f"chunker.graph.{module_name}")
        build = getattr(module, f"build_{name.removesuffix('_at_once')}", None)
        if build is not None:
            return f"{' '.join((build.__doc__ or '').split())} (`graph/{module_name}.py`)"
    return ""


def navigator() -> str:
    from chunker.graph.navigator import build_navigator

    return _figure(build_navigator(), "navigator",
                   "The navigator graph, drawn from chunker.graph.navigator.build_navigator().get_graph()")


def corpus() -> str:
    from chunker.corpus.fanout import build_fanout

    return _figure(build_fanout(), "corpus fan-out",
                   "A corpus's documents at once, drawn from chunker.corpus.fanout")
