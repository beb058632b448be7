"""Aggregation outside the graph's nodes: what a block of a document and a folder of a
corpus share (synthesis from children, grounded)."""
