"""The navigator graph: find in a finished tree the passages a question needs.

    every mode first: start -> read_targeted (a targeted route: a term's definition, a table's
          row) -> [answered] finish; else on as below
    collapsed (default), no model:
    start -> read_collapsed (every unit ranked at once, the best read within budget) -> finish
    collapsed, a model:
    start -> choose_branch (the model picks one of the collapsed search's best branches)
          -> choose_child ... as below, backtracking to the other branches
    descend:
    start -> choose_child (LLM; embeddings when there is no model or its answer is unusable)
          -> ... descend ... -> read_leaf -> judge_leaf (LLM) -> [answered] finish
                                         -> [not answered] backtrack -> next-best branch
    every step stops at finish when the token budget or max_leaves is reached.

It runs in-process (`build_navigator()`), from `chunker ask`, or served by `langgraph dev`
(`graph/navigator_served.py`, no checkpointer of its own). Input: `question` and
`tree_dir`; context: `NavigatorSettings`; output: answer, path, leaves, tokens_read.
"""

from __future__ import annotations

from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from chunker.graph.build import llm_retry_policy
from chunker.nodes.navigator import (backtrack, choose_branch, choose_child, finish, judge_leaf,
                                     nav_settings, read_collapsed, read_leaf, read_targeted, start,
                                     tree_of)
from chunker.state.navigator import NavigatorInput, NavigatorOutput, NavigatorState
from chunker.navigation.settings import NavigatorSettings


def _descend(state: NavigatorState) -> Literal["read_leaf", "choose_child"]:
    return "read_leaf" if tree_of(state).is_leaf(state["current"]) else "choose_child"


def after_start(state: NavigatorState, runtime: Runtime[NavigatorSettings]
                ) -> Literal["read_collapsed", "choose_branch", "read_leaf", "choose_child"]:
    """Collapsed search first (with a model: its best branches); a walk from the root in
    `descend` mode. A one-leaf tree's root is its leaf: read it at once."""
    cfg = nav_settings(runtime)
    if tree_of(state).is_leaf(state["current"]) or cfg.mode == "descend":
        return _descend(state)
    return "read_collapsed" if cfg.model is None else "choose_branch"


def after_targeted(state: NavigatorState, runtime: Runtime[NavigatorSettings]
                   ) -> Literal["finish", "read_collapsed", "choose_branch", "read_leaf", "choose_child"]:
    """A targeted route that answered ends the walk; else on as `after_start` says."""
    if state.get("status"):
        return "finish"
    return after_start(state, runtime)


def after_branch(state: NavigatorState) -> Literal["read_leaf", "choose_child", "finish"]:
    if state.get("status"):
        return "finish"
    return _descend(state)


def after_choose(state: NavigatorState) -> Literal["read_leaf", "choose_child", "finish"]:
    if state.get("status"):  # the budget cannot pay for the children's summaries
        return "finish"
    return _descend(state)


def after_read(state: NavigatorState, runtime: Runtime[NavigatorSettings]
               ) -> Literal["judge_leaf", "backtrack", "finish"]:
    cfg = nav_settings(runtime)
    if state.get("status"):
        return "finish"
    if cfg.model is not None:
        return "judge_leaf"
    return "finish" if len(state["leaves"]) >= cfg.max_leaves else "backtrack"


def after_judge(state: NavigatorState, runtime: Runtime[NavigatorSettings]
                ) -> Literal["backtrack", "finish"]:
    if state.get("status") or len(state["leaves"]) >= nav_settings(runtime).max_leaves:
        return "finish"
    return "backtrack"


def after_backtrack(state: NavigatorState) -> Literal["read_leaf", "choose_child", "finish"]:
    if state.get("status"):  # nothing left to try
        return "finish"
    return _descend(state)


def build_navigator(checkpointer: BaseCheckpointSaver | None = None, *,
                    llm_retry: RetryPolicy | None = None, name: str = "navigator"):
    """The compiled navigator graph (a served graph must get no checkpointer)."""
    retry = llm_retry or llm_retry_policy()
    g = StateGraph(NavigatorState, context_schema=NavigatorSettings,
                   input_schema=NavigatorInput, output_schema=NavigatorOutput)
    g.add_node("start", start)
    g.add_node("read_targeted", read_targeted)
    g.add_node("read_collapsed", read_collapsed)
    g.add_node("choose_branch", choose_branch, retry_policy=retry)
    g.add_node("choose_child", choose_child, retry_policy=retry)
    g.add_node("read_leaf", read_leaf)
    g.add_node("judge_leaf", judge_leaf, retry_policy=retry)
    g.add_node("backtrack", backtrack)
    g.add_node("finish", finish)
    g.add_edge(START, "start")
    g.add_edge("start", "read_targeted")
    g.add_conditional_edges("read_targeted", after_targeted)
    g.add_edge("read_collapsed", "finish")
    g.add_conditional_edges("choose_branch", after_branch)
    g.add_conditional_edges("choose_child", after_choose)
    g.add_conditional_edges("read_leaf", after_read)
    g.add_conditional_edges("judge_leaf", after_judge)
    g.add_conditional_edges("backtrack", after_backtrack)
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer, name=name)
