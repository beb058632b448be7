"""Fixtures for tests against a real PostgreSQL: one throwaway server per test session
(chunker.testing.postgres_server), a fresh database per test.

Registered for every test by conftest's `pytest_plugins`. A machine without the server's
binaries or the [postgres] extra skips these tests, naming the install commands; under CI (the CI variable
set) it fails them instead, since CI installs both and a silent skip would hide a broken
set-up.
"""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Iterator

import pytest

from chunker.testing.postgres_server import PostgresUnavailable, ThrowawayPostgres


def _cannot_run(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL is required under CI: {reason}")
    pytest.skip(f"no PostgreSQL for this test: {reason} "
                f"(apt-get install -y postgresql; pip install -e '.[postgres]')")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[ThrowawayPostgres]:
    """The session's PostgreSQL server (listening on a Unix socket only)."""
    if importlib.util.find_spec("psycopg") is None:
        _cannot_run("the [postgres] extra (psycopg) is not installed")
    server = ThrowawayPostgres()
    try:
        server.start()
    except (PostgresUnavailable, OSError) as exc:
        _cannot_run(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: ThrowawayPostgres) -> str:
    """The URL of a database of its own for this test (postgresql://postgres@/t_...?host=...)."""
    return pg_server.create_database(f"t_{uuid.uuid4().hex}")
