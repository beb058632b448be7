"""Evaluation: boundary quality, rewrite fidelity and cost (`chunker eval`)."""
