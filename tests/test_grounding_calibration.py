"""The support threshold stays tied to its data: on the labelled set (bench/grounding_labels.json,
passages of the shared corpus; here the 11 of its 13 passages that tests/data and examples/ hold,
Emma, Cinderella and a Rust-book chapter, without the two manifesto ones) the default policy keeps
faithful summaries and rejects the rest, and the calibration still chooses the policy's default."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from chunker.grounding import GroundingPolicy, check

from conftest import CINDERELLA, DATA

BENCH = Path(__file__).resolve().parents[1] / "bench" / "grounding_calibrate.py"
sys.path.insert(0, str(BENCH.parent))  # as `python bench/grounding_calibrate.py` has it: corpus_path
spec = importlib.util.spec_from_file_location("grounding_calibrate", BENCH)
calibrate = importlib.util.module_from_spec(spec)
sys.modules["grounding_calibrate"] = calibrate  # its dataclasses look their module up
spec.loader.exec_module(calibrate)

WITHOUT = ["manifesto"]  # no licence to carry them in the repository


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The shared corpus's layout, from the repository's own copies."""
    root = tmp_path_factory.mktemp("corpus")
    for sub in ("emma", "markdown"):
        (root / sub).symlink_to(DATA / sub, target_is_directory=True)
    (root / "small").mkdir()
    (root / "small" / "cinderella.txt").symlink_to(CINDERELLA)
    return root


@pytest.fixture(scope="module")
def labelled(corpus):
    return calibrate.build_cases(corpus, WITHOUT)


def test_default_policy_separates_the_labelled_set(labelled):
    texts, cases = labelled
    policy = GroundingPolicy()
    kept = [check(c.text, texts[c.passage], task="summarize", policy=policy).ok for c in cases]
    faithful = [k for k, c in zip(kept, cases) if c.faithful]
    others = [k for k, c in zip(kept, cases) if not c.faithful]
    assert len(faithful) >= 50 and len(others) >= 100, (len(faithful), len(others))  # 11 passages (of 13)
    assert sum(faithful) / len(faithful) >= 0.95
    assert sum(others) / len(others) <= 0.05
    invented = [k for k, c in zip(kept, cases) if c.kind == "invented"]
    assert sum(invented) <= 1  # only the swapped-figures case ("2 bytes" / "12 bytes") slips through


def test_calibration_chooses_the_policy_default(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(calibrate, "OUT", tmp_path / "calibration.json")
    assert calibrate.main(["--corpus", str(corpus), "--without", *WITHOUT]) == 0
    report = json.loads((tmp_path / "calibration.json").read_text(encoding="utf-8"))
    assert report["chosen_threshold"] == GroundingPolicy().grounding_min_support
