"""tests/skip_policy.py on a small suite of its own: under CI every skip fails (in a test, in a
fixture, at collection); without CI only a skip that names its `apt-get install -y` command
passes as a skip. An xfail is no skip and is left alone."""

from __future__ import annotations

import pytest

from skip_policy import verdict

SUITE = {
    "test_plain_skip": """
import pytest

def test_skipped():
    pytest.skip("the shared corpus is not present")
""",
    "test_marked_skip": """
import pytest

@pytest.mark.skipif(True, reason="not on this machine")
def test_marked():
    pass
""",
    "test_module_skip": """
import pytest
pytest.importorskip("no_such_module_anywhere")

def test_never_collected():
    pass
""",
    "test_system_skip": """
from skip_policy import system_skip

def test_needs_tesseract():
    system_skip("Tesseract", "tesseract-ocr", "tesseract is not on PATH")
""",
    "test_fine": """
import pytest

def test_passes():
    assert True

@pytest.mark.xfail(reason="a known bug", strict=True)
def test_known_bug():
    assert False
""",
}


@pytest.fixture
def suite(pytester):
    pytester.makeconftest('pytest_plugins = ["skip_policy"]\n')
    pytester.makepyfile(**SUITE)
    return pytester


def test_under_ci_no_test_may_skip(suite, monkeypatch):
    monkeypatch.setenv("CI", "1")
    result = suite.runpytest("-p", "no:cacheprovider", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, failed=2, errors=2, xfailed=1, skipped=0)  # a skipif fails at setup: an error
    result.stdout.fnmatch_lines(["*skipped under CI, where no test may skip: the shared corpus is not present*",
                                 "*skipped under CI*apt-get install -y tesseract-ocr*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_without_ci_only_a_system_program_with_its_install_command_may_skip(suite, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    result = suite.runpytest("-p", "no:cacheprovider", "--continue-on-collection-errors", "-rs")
    result.assert_outcomes(passed=1, failed=1, errors=2, xfailed=1, skipped=1)
    result.stdout.fnmatch_lines(["*needs Tesseract: tesseract is not on PATH (apt-get install -y tesseract-ocr)*"])
    result.stdout.fnmatch_lines(["*a test may skip only for a system program*not on this machine*"])


@pytest.mark.parametrize(("reason", "ci", "allowed"), [
    ("needs PostgreSQL (apt-get install -y postgresql)", False, True),
    ("needs PostgreSQL (apt-get install -y postgresql)", True, False),
    ("shared corpus not present", False, False),
    ("could not import 'pymupdf'", False, False),
])
def test_verdict(reason, ci, allowed):
    assert (verdict(reason, ci) is None) is allowed
