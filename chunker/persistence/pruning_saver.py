"""A SqliteSaver that keeps only the last few checkpoints of each thread.

LangGraph writes one checkpoint per step, each with every channel's version and
value; over a book (thousands of steps) that history dwarfs the document itself,
and resuming only ever needs the latest checkpoint. Pruning after every `put` keeps
the database at a constant size: SQLite reuses the freed pages. Time travel through
old steps is given up; the store keeps every chunk and block regardless.

The graph is built from subgraphs (`graph/`), and each run of a subgraph checkpoints in a
namespace of its own (`fresh:<task>|cut:<task>`): one per leaf and subgraph. A subgraph's run
that ended is never resumed (its parent checkpointed its result before the next step began:
durability `sync`), and the subgraphs of one graph run one after another, so when a
checkpoint is put in a namespace the thread has not written to just before, every
namespace of the thread but that one and its ancestors is dropped.
"""

from __future__ import annotations

from langgraph.checkpoint.sqlite import SqliteSaver

KEEP_CHECKPOINTS = 3
"""Checkpoints kept per thread: the latest plus a margin, never fewer than one."""


def lineage(ns: str) -> list[str]:
    """A checkpoint namespace and its ancestors: `a:1|b:2` -> `a:1|b:2`, `a:1`, ``."""
    parts = ns.split("|") if ns else []
    return ["|".join(parts[:i]) for i in range(len(parts) + 1)]


class PruningSqliteSaver(SqliteSaver):
    def __init__(self, conn, *, keep: int = KEEP_CHECKPOINTS, **kwargs):
        super().__init__(conn, **kwargs)
        self.keep = max(1, keep)
        self._last_ns: dict[str, str] = {}  # per thread: the namespace of its last put

    def put(self, config, checkpoint, metadata, new_versions):
        result = super().put(config, checkpoint, metadata, new_versions)
        conf = config["configurable"]
        thread_id, ns = conf["thread_id"], conf.get("checkpoint_ns", "")
        with self.cursor() as cur:
            # Checkpoint ids are time-ordered (uuid6), so string order is step order.
            cur.execute(
                "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
                "ORDER BY checkpoint_id DESC LIMIT 1 OFFSET ?", (str(thread_id), ns, self.keep - 1))
            row = cur.fetchone()
            if row is not None:
                oldest_kept = row[0]
                for table in ("writes", "checkpoints"):
                    cur.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = ? "
                                "AND checkpoint_id < ?", (str(thread_id), ns, oldest_kept))
            if self._last_ns.get(str(thread_id)) != ns:  # the ended subgraphs' runs
                self._last_ns[str(thread_id)] = ns
                keep = lineage(ns)
                marks = ", ".join("?" * len(keep))
                for table in ("writes", "checkpoints"):
                    cur.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns NOT IN ({marks})",
                                (str(thread_id), *keep))
        return result
