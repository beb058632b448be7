"""A run on disk: its folder (`rundir`: OUT, its manifest, metadata and lock), running and
resuming the graph against it with SQLite persistence (`runner`), and a run on an extracted
source's text (`extracted_source`: PDF, DOCX, HTML, ...). The CLI, the benchmarks and
tests use these; nothing here imports the CLI."""
