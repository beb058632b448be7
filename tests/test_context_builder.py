from langgraph.store.memory import InMemoryStore

from chunker.context.builder import ContextBuilder, ContextItem, leaf_candidates
from chunker.state.store import node_id, put_node


def item(kind, tokens, i=0, level=0):
    return ContextItem(kind, f"{kind}-{i}", f"text {kind} {i}", tokens, level=level, position=i)


def test_budget_exactly_full():
    chosen = ContextBuilder(100).select([item("predecessor", 60), item("level", 40, level=1)])
    assert [c.tokens for c in chosen] == [60, 40]


def test_one_token_over_skips_that_item_whole():
    chosen = ContextBuilder(100).select([item("predecessor", 60), item("level", 41, level=1),
                                         item("earlier", 40, 3)])
    assert [c.kind for c in chosen] == ["predecessor", "earlier"]


def test_oversized_first_item_is_skipped():
    chosen = ContextBuilder(50).select([item("predecessor", 51), item("level", 20, level=2),
                                        item("earlier", 30, 1)])
    assert [c.kind for c in chosen] == ["level", "earlier"]


def test_empty_history():
    b = ContextBuilder(100)
    assert b.select([]) == []
    assert "start of the document" in b.build([])


def test_many_levels_priority_and_render_order():
    store = InMemoryStore()
    doc = "d"
    for i in range(6):
        put_node(store, doc, {"id": node_id(0, i), "context": f"context {i}", "context_tokens": 30,
                              "summary": f"summary {i}", "summary_tokens": 10})
    latest = [None]
    for level in range(1, 5):
        put_node(store, doc, {"id": node_id(level, 0), "context": "c", "context_tokens": 5,
                              "summary": f"level {level}", "summary_tokens": 10})
        latest.append(node_id(level, 0))
    cands = list(leaf_candidates(store, doc, 6, latest))
    # priority: predecessor, levels (highest first), earlier chunks walking backwards
    assert [c.id for c in cands] == ["L0-00005", "L4-00000", "L3-00000", "L2-00000", "L1-00000",
                                     "L0-00004", "L0-00003", "L0-00002", "L0-00001", "L0-00000"]
    b = ContextBuilder(30 + 40 + 20)
    chosen = b.select(cands)
    assert sum(c.tokens for c in chosen) == 90
    rendered = b.render(chosen)
    # prefix-stable order: levels (highest first), earlier (oldest first), predecessor last
    order = [rendered.index(s) for s in ("level 4", "level 1", "summary 3", "summary 4", "context 5")]
    assert order == sorted(order)
