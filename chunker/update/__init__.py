"""Incremental updates: bring a finished tree up to date with its changed source."""
