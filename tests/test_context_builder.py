"""The background builder: whole items under a hard cap on what is rendered, and the
per-task policies (the rewrite sees its predecessor whole; the others see summaries)."""

from langgraph.store.memory import InMemoryStore

from chunker.background.builder import START_MARKER, BackgroundBuilder, BackgroundItem, render_item
from chunker.background.policy import leaf_background, rewrite_items, summary_items
from chunker.config.settings import ChunkerSettings
from chunker.document.tokens import count_tokens
from chunker.state.records import NodeRecord
from chunker.state.store import RunStore, node_id


def item(kind, text, i=0, level=0):
    return BackgroundItem(kind, f"{kind}-{i}", text, count_tokens(text), level=level, position=i)


def rendered_tokens(builder, items):
    return count_tokens(builder.render(items))


def test_the_cap_counts_labels_and_wrappers():
    items = [item("level", "word " * 20, level=i) for i in range(1, 8)]
    for budget in (30, 60, 90, 150):
        b = BackgroundBuilder(budget)
        chosen = b.select(items)
        assert rendered_tokens(b, chosen) <= budget
        # and nearly tight: the room left is less than one more item costs (+2 for merges)
        rest = [it for it in items if it not in chosen]
        if rest:
            assert rendered_tokens(b, chosen + rest[:1]) > budget - 2


def test_item_texts_alone_fitting_is_not_enough():
    # 2 items of 40 text tokens: their texts fit 85, but with labels and tags they do not
    a, c = item("earlier", "alpha " * 40, 1), item("earlier", "gamma " * 40, 2)
    assert a.tokens + c.tokens <= 85
    assert len(BackgroundBuilder(85).select([a, c])) == 1


def test_an_item_that_does_not_fit_is_skipped_whole_and_the_next_tried():
    big, small = item("predecessor", "big " * 200), item("level", "small summary", level=1)
    chosen = BackgroundBuilder(60).select([big, small])
    assert chosen == [small]


def test_start_marker_only_at_the_start():
    b = BackgroundBuilder(100)
    assert START_MARKER in b.build([], at_start=True)
    assert b.build([], at_start=False) == ""
    assert START_MARKER not in b.build([item("level", "a summary", level=1)], at_start=False)


def _store(n_leaves=6, levels=4, leaf_text="leaf text"):
    rs = RunStore(InMemoryStore(), "run")
    for i in range(n_leaves):
        rs.put_node(NodeRecord(id=node_id(0, i), level=0, index=i, span=(i, i + 1),
                               original=f"original {i} " + leaf_text, tokens=30,
                               rewritten=f"rewritten {i} " + leaf_text, rewritten_tokens=30,
                               summary=f"summary {i}", summary_tokens=3))
    latest = [None]
    for level in range(1, levels + 1):
        rs.put_node(NodeRecord(id=node_id(level, 0), level=level, index=0, span=(0, 1),
                               rewritten="c", rewritten_tokens=1, summary=f"level {level}",
                               summary_tokens=3))
        latest.append(node_id(level, 0))
    return rs, latest


def test_policies_offer_what_each_task_needs():
    rs, latest = _store()
    rewrite = [c.id for c in rewrite_items(rs, 6, latest)]
    assert rewrite == ["L0-00005", "L4-00000", "L3-00000", "L2-00000", "L1-00000"]
    summary = list(summary_items(rs, 6, latest))
    assert [c.id for c in summary] == ["L4-00000", "L3-00000", "L2-00000", "L1-00000", "L0-00005",
                                       "L0-00004", "L0-00003", "L0-00002", "L0-00001", "L0-00000"]
    assert summary[4].text == "summary 5"  # the predecessor's summary, not its text


def test_the_rewrite_sees_the_whole_previous_text_even_when_the_budget_is_small():
    long_text = "The sheriff rode out at dawn. " * 60  # ~420 tokens
    rs, latest = _store(leaf_text=long_text)
    cfg = ChunkerSettings(model="scripted", background_budget_tokens=100)
    assert count_tokens(long_text) > cfg.background.budget_tokens
    rewrite = leaf_background(rs, cfg, 6, latest, "rewrite")
    assert f"rewritten 5 {long_text}" in rewrite and START_MARKER not in rewrite
    check = leaf_background(rs, cfg, 6, latest, "completeness")
    assert long_text not in check and "summary 5" in check
    assert count_tokens(check) <= cfg.background.budget_tokens


def test_the_previous_original_stands_in_when_the_rewrite_was_not_kept():
    rs, latest = _store()
    prev = rs.get_node(node_id(0, 5)).model_copy(update={"rewrite_kept": False})
    rs.put_node(prev)
    assert next(rewrite_items(rs, 6, latest)).text == prev.original


def test_render_order_is_prefix_stable():
    b = BackgroundBuilder(1000)
    items = [item("predecessor", "pred", 5), item("level", "level 4", level=4),
             item("level", "level 1", level=1), item("earlier", "summary 4", 4),
             item("earlier", "summary 3", 3)]
    out = b.render(items)
    order = [out.index(s) for s in ("level 4", "level 1", "summary 3", "summary 4", "pred")]
    assert order == sorted(order)
    assert render_item(items[0]).startswith("[previous passage]")
