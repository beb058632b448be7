"""A finished tree as a static web site for people: an outline, a page per node, search, a
picture of the tree's shape and the run's facts, working from `file://` and any static host
with nothing fetched from the network (`chunker site`, `chunker serve`)."""
