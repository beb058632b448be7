"""Validate the hand-written navigation development question sets.

    python bench/navigation_dev/check.py [SET.jsonl ...]   (default: both sets in this folder)

Each line must carry `question`, `must_contain`, `file` and `spans`; the excerpt must be 40-250
characters, occur exactly once in its source file (read as Python reads it, UTF-8, so the
manifestos' mojibake is part of the text), and every span must point at exactly that excerpt.
The checks matter because a navigation score is only as good as its gold: an excerpt that occurs
twice, or a span that drifted after an edit, would credit or blame the navigator for the wrong
place. Exit status 1 when any line fails, so a broken set cannot be used unnoticed.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))  # bench/corpus_path.py
from corpus_path import corpus_root, default_root  # noqa: E402  (bench/: an argument or $CHUNKER_CORPUS)
CORPUS = default_root()

# Which corpus folder each set's `file` paths are relative to.
SETS: dict[str, Path] = {
    "fastapi-questions.jsonl": CORPUS / "folders" / "fastapi-docs",
    "manifesto-questions.jsonl": CORPUS / "manifesto",
}
REQUIRED = ("question", "must_contain", "file", "spans")
MIN_EXCERPT, MAX_EXCERPT = 40, 250


@dataclass
class Report:
    """What one set's check found: the errors, and what the valid lines cover."""

    name: str
    lines: int = 0
    errors: list[str] = field(default_factory=list)
    files: Counter[str] = field(default_factory=Counter)


def check_line(raw: str, root: Path, texts: dict[str, str]) -> tuple[str | None, list[str]]:
    """Check one JSONL line; return its `file` (when readable) and the problems found."""
    try:
        item = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, [f"not JSON: {exc}"]
    if not isinstance(item, dict):
        return None, ["not a JSON object"]
    missing = [k for k in REQUIRED if k not in item]
    if missing:
        return None, [f"missing fields: {', '.join(missing)}"]
    question, excerpt, name, spans = (item[k] for k in REQUIRED)
    problems: list[str] = []
    if not isinstance(question, str) or not question.strip():
        problems.append("empty question")
    if not isinstance(excerpt, str) or not isinstance(name, str):
        return None, problems + ["must_contain and file must be strings"]
    if not MIN_EXCERPT <= len(excerpt) <= MAX_EXCERPT:
        problems.append(f"must_contain is {len(excerpt)} chars (want {MIN_EXCERPT}-{MAX_EXCERPT})")
    path = root / name
    if not path.is_file():
        return name, problems + [f"file not found: {path}"]
    text = texts.setdefault(name, path.read_text(encoding="utf-8"))
    count = text.count(excerpt)
    if count != 1:
        problems.append(f"must_contain occurs {count} times in {name} (want exactly 1)")
    if not isinstance(spans, list) or not spans:
        return name, problems + ["spans must be a non-empty list"]
    for i, span in enumerate(spans):
        if not isinstance(span, dict) or not {"file", "start", "end"} <= span.keys():
            problems.append(f"span {i}: needs file, start, end")
            continue
        if span["file"] != name:
            problems.append(f"span {i}: file {span['file']!r} differs from {name!r}")
            continue
        start, end = span["start"], span["end"]
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
            problems.append(f"span {i}: bad offsets {start}..{end}")
        elif text[start:end] != excerpt:
            problems.append(f"span {i}: text at {start}..{end} is not must_contain")
    return name, problems


def check_set(path: Path, root: Path) -> Report:
    """Check every line of one set against the files under `root`."""
    report = Report(path.name)
    texts: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        report.lines += 1
        name, problems = check_line(raw, root, texts)
        report.errors += [f"{path.name}:{number}: {p}" for p in problems]
        if name is not None and not problems:
            report.files[name] += 1
    return report


def summarise(report: Report) -> str:
    """One block per set: lines, distinct files and folders, and per-file counts."""
    folders = {str(Path(f).parent) for f in report.files}
    per_file = ", ".join(f"{f} x{n}" for f, n in sorted(report.files.items()))
    status = "OK" if not report.errors else f"{len(report.errors)} error(s)"
    head = (f"{report.name}: {report.lines} questions, {len(report.files)} files, "
            f"{len(folders)} folders: {status}")
    return f"{head}\n  {per_file}" if per_file else head


def main(argv: list[str]) -> int:
    names = argv or list(SETS)
    failed = False
    for arg in names:
        path = Path(arg) if Path(arg).is_file() else HERE / arg
        root = SETS.get(path.name)
        if root is None:
            print(f"{arg}: unknown set (known: {', '.join(SETS)})")
            failed = True
            continue
        corpus_root(needs=[root.relative_to(CORPUS).as_posix()])
        report = check_set(path, root)
        print(summarise(report))
        for error in report.errors:
            print("  " + error)
        failed = failed or bool(report.errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
