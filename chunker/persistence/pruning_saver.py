"""A SqliteSaver that keeps only the last few checkpoints of each thread.

LangGraph writes one checkpoint per step, each with every channel's version and
value; over a book (thousands of steps) that history dwarfs the document itself,
and resuming only ever needs the latest checkpoint. Pruning after every `put` keeps
the database at a constant size: SQLite reuses the freed pages. Time travel through
old steps is given up; the store keeps every chunk and block regardless.

The graph is built from subgraphs (`graph/`), and each run of a subgraph checkpoints in a
namespace of its own (`fresh:<task>|cut:<task>`): one per leaf and subgraph. Several may run
at once: a document read in regions runs one subgraph per region in one step
(`regions:<task>|region:<task>|...`), each resumed from its own namespace after a kill. A
subgraph's run ended when its parent moved on: a graph puts its next checkpoint only once
every task of its step has finished, and a resume never runs an ended subgraph again (the
parent holds its result). So a checkpoint put in a namespace drops the namespaces below it
(`ns|...`) that are older than it: its step's subgraphs, ended, and never those of the step
it starts, whose checkpoints come after it (ids are time-ordered). The regions still running
beside one another keep theirs.
"""

from __future__ import annotations

from langgraph.checkpoint.sqlite import SqliteSaver

KEEP_CHECKPOINTS = 3
"""Checkpoints kept per thread: the latest plus a margin, never fewer than one."""


def below(ns: str) -> tuple[str, str]:
    """The namespaces below `ns` (`ns|...`, or every other one below the root's ``) as a range
    (low, high), both excluded: a range of the primary key, '}' sorting right after '|'."""
    return (ns + "|", ns + "}") if ns else ("", "\U0010ffff")


class PruningSqliteSaver(SqliteSaver):
    def __init__(self, conn, *, keep: int = KEEP_CHECKPOINTS, **kwargs):
        super().__init__(conn, **kwargs)
        self.keep = max(1, keep)

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
            # the ended subgraphs' runs: below this namespace, older than this checkpoint
            low, high = below(ns)
            for table in ("writes", "checkpoints"):
                cur.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns > ? "
                            "AND checkpoint_ns < ? AND checkpoint_id < ?",
                            (str(thread_id), low, high, checkpoint["id"]))
        return result
