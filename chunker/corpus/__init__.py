"""A corpus: a folder (or several paths) of documents as one tree.

`discover` walks the paths into `SourceFile`s and `Skipped` ones; `signals` reads what the
authors said about their files (front matter, a table of contents, names); `plan` turns
them into the upper levels (folders, groups, documents); `runner` chunks each document as
its own unit of work (its own checkpointer thread) and `assemble` hangs every document's
tree under the plan, into one checked hierarchy.
"""
