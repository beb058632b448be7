"""The OpenAI-compatible stub as a batching server (issue 20): a fixed latency per call, at
most `slots` calls served at once (the rest wait), the scripted model's answers, its stats,
and `python -m chunker.testing.openai_stub` serving until it is stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

from chunker.config.settings import ChunkerSettings
from chunker.output.hierarchy import Hierarchy
from chunker.testing.openai_stub import OpenAIStub
from conftest import EMMA, invoke


def _post(url: str, payload: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def _started(base_url: str, n: int, out: list[dict]) -> list[threading.Thread]:
    """n chat requests at once, from n started threads; their answers go to `out`."""
    payload = {"model": "stub-model", "messages": [{"role": "user", "content": "hello"}],
               "response_format": {"type": "json_schema", "json_schema": {"name": "Summary", "schema": {}}}}
    threads = [threading.Thread(target=lambda: out.append(_post(f"{base_url}/chat/completions", payload)))
               for _ in range(n)]
    for t in threads:
        t.start()
    return threads


def _ask(base_url: str, n: int) -> list[dict]:
    out: list[dict] = []
    for t in _started(base_url, n, out):
        t.join()
    return out


def _ask_held(stub: OpenAIStub, n: int, *, filled: dict) -> tuple[list[dict], float]:
    """n requests at once, held by the stub until its stats read `filled` (all n arrived: so many
    in a slot, so many waiting for one), then released: what a test asserts about the queue does
    not hang on how fast this machine starts threads. The answers, and the seconds from the
    release to the last answer."""
    out: list[dict] = []
    stub.hold()
    threads = _started(stub.base_url, n, out)
    deadline = time.monotonic() + 60
    while {k: stub.stats()[k] for k in filled} != filled and time.monotonic() < deadline:
        time.sleep(0.005)
    assert {k: stub.stats()[k] for k in filled} == filled
    released = time.monotonic()
    stub.release()
    for t in threads:
        t.join()
    return out, time.monotonic() - released


def test_at_most_slots_calls_are_served_at_once_and_the_rest_wait():
    with OpenAIStub(latency_ms=150, slots=2) as stub:
        answers, elapsed = _ask_held(stub, 6, filled={"in_flight": 2, "waiting": 4})
        stats = stub.stats()
    assert len(answers) == 6
    assert stats["served"] == 6 and stats["max_in_flight"] == 2
    assert stats["in_flight"] == stats["waiting"] == 0
    assert stats["queued"] == 4 and stats["wait_s_total"] > 4 * 0.15
    assert elapsed >= 3 * 0.15  # six calls of 150 ms through two slots: three rounds at least


def test_without_a_slot_limit_calls_overlap():
    with OpenAIStub(latency_ms=150) as stub:
        _ask_held(stub, 4, filled={"in_flight": 4})
        stats = stub.stats()
    assert stats["served"] == 4 and stats["max_in_flight"] == 4 and stats["queued"] == 0


def test_a_run_through_the_stub_builds_the_scripted_models_tree(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(EMMA.read_text(encoding="utf-8")[:12_000], encoding="utf-8")
    # the very settings a `--model scripted` run resolves, for the served model too
    flat = ChunkerSettings(model="scripted", embeddings="lexical").flat_dict()
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({k: v for k, v in flat.items() if k != "model"}), encoding="utf-8")
    invoke("run", doc, "-o", tmp_path / "scripted", "--model", "scripted", "--config", config, "-q", check=0)
    with OpenAIStub(latency_ms=5, slots=2, scripted=True) as stub:
        invoke("run", doc, "-o", tmp_path / "served", "--model", "openai:stub-model", "--config", config,
               "-q", env=stub.env(), check=0)
        served = stub.stats()["served"]
    a, b = (Hierarchy.model_validate_json((tmp_path / d / "hierarchy.json").read_bytes())
            for d in ("scripted", "served"))
    assert served == a.meta.stats["calls.total"] == b.meta.stats["calls.total"] > 0
    fields = ("id", "span", "original", "rewritten", "summary", "slug", "filename", "children", "boundary")
    assert [n.model_dump(include=set(fields)) for n in a.nodes] == [n.model_dump(include=set(fields)) for n in b.nodes]


def test_the_module_serves_until_stopped_and_prints_its_stats():
    proc = subprocess.Popen([sys.executable, "-m", "chunker.testing.openai_stub", "--port", "0",
                             "--latency-ms", "20", "--slots", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        line = proc.stderr.readline()
        base_url = line.split(" on ", 1)[1].split(" ", 1)[0]
        _ask(base_url, 3)
        with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=10) as resp:
            live = json.loads(resp.read())
        assert live["served"] == 3 and live["max_in_flight"] == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert json.loads(out.strip().splitlines()[-1])["served"] == 3
