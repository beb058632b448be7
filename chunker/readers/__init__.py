"""Readers: every document format behind one interface (see `model.py` for what they return)."""
