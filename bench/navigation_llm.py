"""Cost per question of the LLM navigator, through the Ollama stub (no Ollama server runs here).

    python bench/navigation_llm.py OUT QUESTIONS.jsonl [--budgets 500,1000,2000,4000] [--out DIR]

Starts `chunker.testing.OllamaStub` in this process, answering the navigator's two tasks as
a model that always takes the first branch offered (`NavigateChoice` 1) and never finds the
answer in a leaf (`NavigateAnswer` found false), so that every walk goes on until `max_leaves`
or the budget: the most calls a question can cost. Then runs `chunker eval navigation OUT
--model ollama:qwen3:8b --method navigator-llm` against it in a child process and prints the
calls and prompt tokens per question (the stub counts a prompt's words as its tokens, as
`prompt_eval_count`), and seconds per question. Success is not a measurement of any model
here: the stub does not read the prompt.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from chunker.testing.ollama_stub import OllamaStub

ANSWERS = {"NavigateChoice": {"choice": 1}, "NavigateAnswer": {"found": False, "answer": ""}}


class NavigatorStub(OllamaStub):
    """The Ollama stub, answering the navigator's schemas as well."""

    def answer_for(self, request: dict) -> str:
        name = self.schema_name(request)
        if name in ANSWERS:
            return json.dumps(ANSWERS[name])
        return super().answer_for(request)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--budgets", default="500,1000,2000,4000")
    parser.add_argument("--embeddings", default="local")
    parser.add_argument("--report", type=Path, default=Path("bench/results/navigation/llm"))
    args = parser.parse_args(argv)
    with NavigatorStub() as stub:
        proc = subprocess.run(
            [sys.executable, "-m", "chunker.cli.app", "eval", "navigation", str(args.out),
             "--questions", str(args.questions), "--model", "ollama:qwen3:8b", "--embeddings",
             args.embeddings, "--budgets", args.budgets, "--method", "navigator-llm",
             "--out", str(args.report), "--quiet"],
            env={**os.environ, **stub.env()}, capture_output=True, text=True)
        chats = len(stub.chat_requests())
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return proc.returncode
    summary = json.loads((args.report / "navigation.json").read_text(encoding="utf-8"))["summary"]
    print(f"stub served {chats} chat requests")
    for method, per_budget in summary.items():
        for budget, s in per_budget.items():
            print(f"{method} budget {budget}: " + ", ".join(
                f"{k} {s[k]:.2f}" if isinstance(s[k], float) else f"{k} {s[k]}"
                for k in sorted(s) if not isinstance(s[k], (list, dict))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
