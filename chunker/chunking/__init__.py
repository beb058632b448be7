"""How a document is cut and shaped into a tree: the boundary policies (candidates, phrase),
the tree strategies (flat, peel, full), Markdown peeling and section-aware grouping.

Graph nodes (`nodes/`) delegate every mode-dependent decision to the policy objects here,
chosen once per run."""
