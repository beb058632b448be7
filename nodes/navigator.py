"""The navigator's nodes: start; read by collapsed search (no model) or choose among its best
branches (a model); or choose a child from the root down; read a leaf, judge it, backtrack,
finish. Each is `(state, runtime: Runtime[NavigatorSettings]) -> dict`."""

from __future__ import annotations

from langgraph.runtime import Runtime

from chunker.document.tokens import count_tokens
from chunker.state.navigator import Branch, NavigatorState
from chunker.navigation import llm
from chunker.navigation.collapsed import collapsed_read, ranked_branches, where_of
from chunker.navigation.scope import nodes_under, normalise_prefix
from chunker.navigation.scoring import child_scores, node_scores
from chunker.navigation.errors import NavigationError
from chunker.navigation.settings import NavigatorSettings
from chunker.navigation.tree import Tree, open_tree
from chunker.navigation.views import ReadPassage
from chunker.navigation.targeted import answer_targeted
import chunker.navigation.definitions  # noqa: F401  (registers the definitions route)


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
    prefix = normalise_prefix(state.get("prefix"))
    if prefix is not None:
        nodes_under(tree.hierarchy, prefix)  # NavigationError for a prefix no file has
    _emit(runtime, "start", first, 0)
    return {"question": question, "current": first, "path": [first], "leaves": [], "passages": [],
            "prefix": prefix,
            "tokens_read": 0, "frontier": [], "shown": [], "leaf_scores": {}, "seq": 0,
            "status": "", "answer": "", "stats": {}}


def allowed_nodes(tree: Tree, state: NavigatorState) -> set[str] | None:
    """What a collapsed search may read: below the start node, in the prefix's files."""
    allowed = None
    if state.get("start_node"):
        allowed = set(tree.descendants(state["start_node"]))
    if state.get("prefix"):
        under = nodes_under(tree.hierarchy, state["prefix"])
        allowed = under if allowed is None else allowed & under
    return allowed


def walkable(tree: Tree, state: NavigatorState, children: list[str]) -> list[str]:
    """The children a walk may enter: all of them, or under a prefix those that are, or that
    hold, nodes of the prefix's files (a folder mixing files in and out of it is entered)."""
    if not state.get("prefix"):
        return list(children)
    under = nodes_under(tree.hierarchy, state["prefix"])
    return [c for c in children if c in under or any(d in under for d in tree.descendants(c))]


def read_targeted(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    """The targeted routes first (a table's row, a term's definition): a route that answers
    ends the walk with what it read; none answering leaves the state for the search."""
    import chunker.structured.lookup  # noqa: F401, PLC0415  (registers the table routes: tried first)
    cfg, tree = nav_settings(runtime), tree_of(state)
    allowed = allowed_nodes(tree, state)
    mode = "descend" if cfg.mode == "descend" else "collapsed"
    got = answer_targeted(tree, state["question"], cfg.budget_tokens)
    if got is None or not got.nodes or (allowed is not None and not set(got.nodes) <= allowed):
        return {"route": mode}
    first = tree.node(got.nodes[0])
    header = ReadPassage(id=first.id, ids=list(got.nodes), kind="leaf", text="", where=where_of(tree, first.id),
                         path=tree.ancestors(first.id), span=first.span,
                         source=first.source if tree.is_corpus else None)
    room = cfg.budget_tokens - count_tokens(header.render())
    if room < 1:
        return {"route": mode}
    if got.tokens > room:  # the header is paid from the budget too: ask again for less
        got = answer_targeted(tree, state["question"], room)
        if got is None or not got.nodes:
            return {"route": mode}
    read = header.model_copy(update={"text": got.text, "tokens": got.tokens, "score": 1.0})
    tokens = count_tokens(read.render())
    _emit(runtime, "read", first.id, tokens)
    return {"passages": [read.model_dump()], "leaves": list(got.nodes), "tokens_read": tokens,
            "answer": got.text.strip(), "status": "read", "route": got.path,
            "path": state["path"] + [first.id], "current": first.id,
            "stats": {f"reads.{got.path}": 1}}


def read_collapsed(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    """No model: rank every unit at once and read the best within the budget."""
    cfg, tree = nav_settings(runtime), tree_of(state)
    reading = collapsed_read(tree, state["question"], cfg, allowed_nodes(tree, state))
    for p in reading.passages:
        _emit(runtime, "read", p.id, reading.tokens)
    passages = [p.model_dump() for p in reading.passages]
    leaves = list(dict.fromkeys(i for p in reading.passages for i in p.ids))
    best = max(reading.passages, key=lambda p: (p.kind != "summary", p.score), default=None)
    return {"passages": passages, "leaves": leaves, "tokens_read": reading.tokens,
            "answer": best.text.strip() if best else "",
            "status": "read" if reading.passages else "exhausted",
            "stats": {"reads.collapsed": 1}}


def _model_first(cfg: NavigatorSettings, question: str, refs: list, order: list[int]
                 ) -> tuple[list[int], dict[str, int]]:
    """`order` with the model's pick first (unchanged, counted as a fallback, when its answer
    cannot be used), and the call's stats."""
    outcome = llm.choose_child(cfg, question, refs)
    stats = dict(outcome.stats)
    if outcome.value is None:
        stats["fallbacks.choose"] = 1
        return order, stats
    return [outcome.value] + [i for i in order if i != outcome.value], stats


def _rest(ids: list[str], scores: list[float], order: list[int], seq: int) -> tuple[list[Branch], int]:
    """The branches not taken, for backtracking, and the sequence number after them; pushed
    worst first, so that depth_first pops the next-best."""
    pushed: list[Branch] = []
    for i in reversed(order[1:]):
        seq += 1
        pushed.append(Branch(id=ids[i], score=scores[i], seq=seq))
    return pushed, seq


def choose_branch(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    """A model in collapsed mode: list the collapsed search's best branches (the sections
    holding the best pieces), let the model choose one to descend, keep the rest for later."""
    cfg, tree = nav_settings(runtime), tree_of(state)
    scored = ranked_branches(tree, state["question"], cfg, allowed_nodes(tree, state))
    if not scored:
        return {"status": "exhausted"}
    ids = [b for b, _ in scored]
    refs = [tree.ref(b) for b in ids]
    cost = count_tokens(llm.children_listing(refs))
    if cost > cfg.budget_tokens:
        return {"status": "budget_exhausted"}
    order, stats = _model_first(cfg, state["question"], refs, list(range(len(ids))))
    pushed, seq = _rest(ids, [score for _, score in scored], order, state["seq"])
    chosen = ids[order[0]]
    _emit(runtime, "choose", chosen, cost)
    return {"current": chosen, "path": state["path"] + [chosen], "tokens_read": cost,
            "frontier": pushed, "seq": seq, "stats": stats}


def choose_child(state: NavigatorState, runtime: Runtime[NavigatorSettings]) -> dict:
    """Rank the current block's children; descend into the best, keep the rest for later."""
    cfg, tree = nav_settings(runtime), tree_of(state)
    node = tree.node(state["current"])
    children = walkable(tree, state, node.children)
    if not children:  # a prefix that keeps none of this block's children
        return {"status": "exhausted"}
    refs = [tree.ref(c) for c in children]
    cost = 0 if node.id in state["shown"] else count_tokens(llm.children_listing(refs))
    if state["tokens_read"] + cost > cfg.budget_tokens:
        return {"status": "budget_exhausted"}
    sims = child_scores(tree, cfg, state["question"], children)
    order = sorted(range(len(refs)), key=lambda i: -sims[i])
    if cfg.model is not None:
        order, stats = _model_first(cfg, state["question"], refs, order)
    else:
        stats = {"choices.embeddings": 1}
    pushed, seq = _rest(children, sims, order, state["seq"])
    chosen = children[order[0]]
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
    n = tree.node(passage.id)
    read = ReadPassage(id=n.id, ids=[n.id], kind="leaf", text=passage.original, where=where_of(tree, n.id),
                       path=tree.ancestors(n.id), span=n.span,
                       source=n.source if tree.is_corpus else None, score=round(score, 6),
                       tokens=passage.tokens)
    return {"leaves": state["leaves"] + [passage.id], "tokens_read": tokens,
            "passages": state.get("passages", []) + [read.model_dump()],
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
