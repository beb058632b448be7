"""A run on disk: its folder (`rundir`: OUT, its manifest, metadata and lock), running and
resuming the graph against it with SQLite persistence (`runner`), and a PDF source's
extracted text (`pdf_source`). The CLI, the benchmarks and tests use these; nothing here
imports the CLI."""
