"""A SqliteSaver that keeps only the last few checkpoints of each thread.

LangGraph writes one checkpoint per step, each with every channel's version and
value; over a book (thousands of steps) that history dwarfs the document itself,
and resuming only ever needs the latest checkpoint. Pruning after every `put` keeps
the database at a constant size: SQLite reuses the freed pages. Time travel through
old steps is given up; the store keeps every chunk and block regardless.
"""

from __future__ import annotations

from langgraph.checkpoint.sqlite import SqliteSaver

KEEP_CHECKPOINTS = 3
"""Checkpoints kept per thread: the latest plus a margin, never fewer than one."""


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
        return result
