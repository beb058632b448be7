"""Which skips the suite allows: with the CI variable set, none (a skip there hides a broken
set-up: CI installs everything the tests need); without it, only a test that needs a system
program the Python extras cannot bring (PostgreSQL, Chromium, Tesseract), and its reason must
name the command that installs it (`apt-get install -y NAME`). Any other skip is reported as a
failure, in a test and in collection alike (a module-level skip or importorskip).

Registered for every test by conftest's `pytest_plugins`; tests/test_skip_policy.py runs it on
a small suite of its own."""

from __future__ import annotations

import os

import pytest

INSTALL_HINT = "apt-get install -y "
"""What an allowed skip's reason must contain: the Debian package that enables the test."""


def system_skip(what: str, package: str, why: str = "") -> None:
    """Skip a test that needs the system program `what` (Debian package `package`), naming the
    command that installs it; under CI this skip is a failure."""
    detail = f": {why}" if why else ""
    pytest.skip(f"needs {what}{detail} ({INSTALL_HINT}{package})")


def _reason(longrepr) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def verdict(reason: str, ci: bool) -> str | None:
    """Why this skip is not allowed, or None when it is."""
    if ci:
        return f"skipped under CI, where no test may skip: {reason}"
    if INSTALL_HINT not in reason:
        return ("a test may skip only for a system program, naming its install command "
                f"('{INSTALL_HINT}NAME'): {reason}")
    return None


def _enforce(report) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    problem = verdict(_reason(report.longrepr), ci=bool(os.environ.get("CI")))
    if problem is not None:
        report.outcome = "failed"
        report.longrepr = problem


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _enforce(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _enforce(outcome.get_result())
