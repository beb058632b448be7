"""The navigator's nodes: start at the root, choose a child, read a leaf, judge it,
backtrack, finish. Each is `(state, runtime: Runtime[NavigatorSettings]) -> dict`."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.document.tokens import count_tokens
from chunker.state.navigator import Branch, NavigatorState
from chunker.navigation import llm
from chunker.navigation.scoring import child_scores, node_scores
from chunker.navigation.errors import NavigationError
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree, open_tree


def nav_settings(runtime: Runtime) -> NavigatorSettings:
    context = runtime.context
    if context is None:
        return NavigatorSettings()
    if isinstance(context, dict):  # served: the context arrives as JSON
        return NavigatorSettings(**context)
    return context


def tree_of(state: NavigatorState) -> Tree:
    return open_tree(state["tree_dir"])


def _emit(runtime: Runtime, step: str, node: str, tokens: int) -> None:
    runtime.stream_writer({"event": "navigate", "step": step, "node": node, "tokens_read": tokens})


def start(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    question = " ".join(str(state.get("question") or "").split())
    if not question:
        raise NavigationError("the question is empty")
    tree = tree_of(state)
    first = tree.node(state.get("start_node") or tree.root_id).id  # UnknownNode for a bad id
    _emit(runtime, "start", first, 0)
    return {"question": question, "current": first, "path": [first], "leaves": [],
            "tokens_read": 0, "frontier": [], "shown": [], "leaf_scores": {}, "seq": 0,
            "status": "", "answer": "", "stats": {}}


def choose_child(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    """Rank the current block's children; descend into the best, keep the rest for later."""
    cfg, tree = nav_settings(runtime), tree_of(state)
    node = tree.node(state["current"])
    refs = [tree.ref(c) for c in node.children]
    cost = 0 if node.id in state["shown"] else count_tokens(llm.children_listing(refs))
    if state["tokens_read"] + cost > cfg.budget_tokens:
        return {"status": "budget_exhausted"}
    sims = child_scores(tree, cfg, state["question"], node.children)
    order = sorted(range(len(refs)), key=lambda i: -sims[i])
    stats: dict[str, int] = {}
    if cfg.model is not None:
        outcome = llm.choose_child(cfg, state["question"], refs)
        stats.update(outcome.stats)
        if outcome.value is None:
            stats["fallbacks.choose"] = 1
        else:
            order.remove(outcome.value)
            order.insert(0, outcome.value)
    else:
        stats["choices.embeddings"] = 1
    seq = state["seq"]
    pushed: list[Branch] = []
    for i in reversed(order[1:]):  # pushed worst first: depth_first pops the next-best
        seq += 1
        pushed.append(Branch(id=node.children[i], score=sims[i], seq=seq))
    chosen = node.children[order[0]]
    tokens = state["tokens_read"] + cost
    _emit(runtime, "choose", chosen, tokens)
    return {"current": chosen, "path": state["path"] + [chosen], "tokens_read": tokens,
            "frontier": state["frontier"] + pushed, "seq": seq,
            "shown": state["shown"] + ([node.id] if cost else []), "stats": stats}


def read_leaf(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    cfg, tree = nav_settings(runtime), tree_of(state)
    passage = tree.read_original(state["current"])
    if state["tokens_read"] + passage.tokens > cfg.budget_tokens:
        return {"status": "budget_exhausted"}
    score = node_scores(tree, cfg, state["question"])[passage.id]
    tokens = state["tokens_read"] + passage.tokens
    _emit(runtime, "read", passage.id, tokens)
    return {"leaves": state["leaves"] + [passage.id], "tokens_read": tokens,
            "leaf_scores": {**state["leaf_scores"], passage.id: score}}


def judge_leaf(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    cfg, tree = nav_settings(runtime), tree_of(state)
    leaf = state["leaves"][-1]
    outcome = llm.judge_leaf(cfg, state["question"], tree.read_original(leaf).original)
    stats = dict(outcome.stats)
    if outcome.value is None:
        stats["fallbacks.judge"] = 1
        return {"stats": stats}
    if outcome.value.found:
        return {"answer": outcome.value.answer, "status": "answered", "stats": stats}
    return {"stats": stats}


def backtrack(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    """Jump to the next branch not taken; none left means every branch was tried."""
    cfg = nav_settings(runtime)
    frontier = list(state["frontier"])
    if not frontier:
        return {"status": "exhausted"}
    if cfg.backtrack == "depth_first":
        pick = max(range(len(frontier)), key=lambda i: frontier[i]["seq"])
    else:
        pick = max(range(len(frontier)), key=lambda i: (frontier[i]["score"], -frontier[i]["seq"]))
    target = frontier.pop(pick)["id"]
    _emit(runtime, "backtrack", target, state["tokens_read"])
    return {"current": target, "path": state["path"] + [target], "frontier": frontier,
            "stats": {"backtracks": 1}}


def finish(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    status = state.get("status") or ("answered" if state.get("answer") else "max_leaves")
    answer = state.get("answer") or ""
    if not answer and state["leaves"]:
        # No model answer: the passage that best matches the question is the answer.
        best = max(state["leaves"], key=lambda lid: state["leaf_scores"].get(lid, 0.0))
        answer = tree_of(state).read_original(best).original.strip()
    _emit(runtime, "finish", state["current"], state["tokens_read"])
    return {"status": status, "answer": answer}
