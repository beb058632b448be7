"""What the tree knows: a term registry, references and links resolved into typed edges,
and the checks over them (`passes.annotate`, run when a tree is written)."""
