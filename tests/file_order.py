"""The order test files are handed to the workers: the longest first.

pytest-xdist's `--dist loadfile` gives each worker a whole file at a time (so a module's shared
tree is built once) and, by default, hands the files out by their number of tests, most first.
The longest files (one SIGKILL test, two real-model runs) have the fewest tests, so they came
last, and one worker ran them alone while the other had nothing left. With
`--no-loadscope-reorder` (pyproject's addopts) xdist keeps the collection's order, and this
plugin sorts the collection by each file's measured seconds, longest first: the classic
longest-processing-time rule, which leaves the short files to fill in at the end.

The seconds come from `tests/file_costs.json`, written by a run with
`--record-file-costs tests/file_costs.json` (each file's setup, call and teardown, summed). The
table only orders; a file it does not know yet goes first when it is marked slow (it may be
long) and last otherwise. A stale table costs some minutes, never a test. Registered by
conftest's `pytest_plugins`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

COSTS = Path(__file__).resolve().parent / "file_costs.json"
"""Each test file's seconds in a whole run (path relative to the repository, as pytest names it)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-file-costs", metavar="PATH", default=None,
                     help="write each test file's seconds (setup + call + teardown) to PATH as "
                          "JSON: the order tests/file_order.py hands files to the workers")


def _costs() -> dict[str, float]:
    try:
        return json.loads(COSTS.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)  # after conftest marked the slow modules and -m deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    costs = _costs()
    longest = max(costs.values(), default=0.0)

    def cost(item: pytest.Item) -> float:
        known = costs.get(_file(item.nodeid))
        if known is not None:
            return known
        return longest + 1.0 if item.get_closest_marker("slow") else 0.0

    first_seen: dict[str, int] = {}
    file_cost: dict[str, float] = {}
    for index, item in enumerate(items):
        name = _file(item.nodeid)
        first_seen.setdefault(name, index)
        file_cost[name] = max(file_cost.get(name, 0.0), cost(item))
    # stable: a file's tests keep their order and stay together (module fixtures are built once)
    items.sort(key=lambda item: (-file_cost[_file(item.nodeid)], first_seen[_file(item.nodeid)]))


class _Recorder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[_file(report.nodeid)] += report.duration

    def pytest_sessionfinish(self) -> None:
        table = {name: round(s, 1) for name, s in sorted(self.seconds.items(), key=lambda kv: -kv[1])}
        self.path.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--record-file-costs")
    # on the controller only (or without xdist): it sees every worker's reports
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Recorder(Path(path)), "file-costs-recorder")
