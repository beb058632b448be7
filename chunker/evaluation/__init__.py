"""Evaluation: boundary quality, rewrite fidelity and cost (`chunker eval`).

    gold.py          gold files (segments between `==========` lines) -> text, sentence units
    metrics.py       Pk, WindowDiff, window size, mean/std summaries
    baselines.py     fixed-tokens, recursive (LangChain), embedding TextTiling, random
    segmentation.py  run the chunker per document, snap leaves to units, score every method
    hybrid.py        boundary-only mode: a slow model places boundaries, a stand-in does the rest
    fidelity.py      entity retention, opening pronouns, summary shape, slugs of a finished run
    cost.py          calls per leaf, tokens per source token, forced-split/fallback rates
    plots.py         matplotlib (Agg) figures;  report.py: Markdown + JSON writers
"""
