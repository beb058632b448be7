"""The graphs, drawn from the compiled graphs themselves (`get_graph()`), as Graphviz DOT.

sphinx.ext.graphviz renders the DOT with Debian's `dot` at build time: no diagram service,
no script from a CDN. Nodes that call a model (an LLM, or an embeddings server) are the
ones built with a retry policy; conditional edges (a routing function's `Literal`) are dashed.
"""

from __future__ import annotations

from chunker_docs.text import code, table

_TERMINAL = {"__start__": "start", "__end__": "end"}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '\\"') + '"'


def dot(compiled, title: str) -> str:
    """DOT of `compiled` (a compiled LangGraph graph)."""
    drawn = compiled.get_graph()
    calls = {name for name, spec in compiled.builder.nodes.items() if spec.retry_policy}
    lines = [f"digraph {_quote(title)} {{", "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fillcolor="#f4f4f4", fontname="sans-serif", fontsize=11];',
             '  edge [fontname="sans-serif", fontsize=9, color="#555555"];']
    for node_id in drawn.nodes:
        if node_id in _TERMINAL:
            lines.append(f'  {_quote(node_id)} [label="{_TERMINAL[node_id]}", shape=oval, fillcolor="#dddddd"];')
        elif node_id in calls:
            lines.append(f'  {_quote(node_id)} [fillcolor="#d7e8fb", penwidth=1.5];')
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
    nodes = [n for n in drawn.nodes if n not in _TERMINAL]
    fence = "````"
    return "\n".join([
        f"{fence}{{graphviz}}", f":caption: {caption}", f":alt: {title}", "",
        dot(compiled, title), fence, "",
        f"{len(nodes)} nodes and {len(drawn.edges)} edges; the shaded nodes call a model "
        f"(retried on transient errors): {', '.join(code(n) for n in calls) or 'none'}.",
    ])


def chunker() -> str:
    from chunker.graph import build_graph

    return _figure(build_graph(), "chunker",
                   "The chunker graph, drawn from chunker.graph.build_graph().get_graph()")


def navigator() -> str:
    from chunker.graph.navigator import build_navigator

    return _figure(build_navigator(), "navigator",
                   "The navigator graph, drawn from chunker.graph.navigator.build_navigator().get_graph()")


def corpus() -> str:
    from chunker.corpus.fanout import build_fanout

    return _figure(build_fanout(), "corpus fan-out",
                   "A corpus's documents at once, drawn from chunker.corpus.fanout")
