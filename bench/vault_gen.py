"""Generate an Obsidian-like vault for `bench/knowledge.py`: notes in folders with wiki-links
carrying aliases, headings and block references, links to notes that do not exist, Markdown
links, and `[[...]]` inside code (fenced and inline). Deterministic for a seed.

    python bench/vault_gen.py OUT_FOLDER [--notes 40] [--seed 7]

Writes the notes and `OUT_FOLDER/../<name>.links.json`: every link written, with whether it
can resolve (its note exists, and its heading or block id does) and to which note.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

WORDS = ("river stone lantern orchard harbor signal meadow copper falcon ember willow quartz "
         "compass glacier thistle beacon prairie cinder marble hollow").split()
FOLDERS = ("", "people/", "places/", "projects/", "archive/2024/")


def generate(root: Path, notes: int, seed: int) -> list[dict]:
    rnd = random.Random(seed)
    names = []
    for i in range(notes):
        a, b = rnd.sample(WORDS, 2)
        names.append(f"{rnd.choice(FOLDERS)}{a.title()} {b.title()} {i}")
    headings = {n: [f"Part {k} {rnd.choice(WORDS)}" for k in range(1, 4)] for n in names}
    blocks = {n: [f"b{i}x{k}" for k in range(2)] for i, n in enumerate(names)}
    links: list[dict] = []
    for i, name in enumerate(names):
        lines = [f"# {name.rsplit('/', 1)[-1]}", "",
                 f"A *{WORDS[i % len(WORDS)]} {i}* is a note about {rnd.choice(WORDS)}s. ^{blocks[name][0]}", ""]
        for k, heading in enumerate(headings[name]):
            lines += [f"## {heading}", ""]
            sentence = []
            for _ in range(3):
                target = rnd.choice(names)
                stem = target.rsplit("/", 1)[-1]
                kind = rnd.choice(["plain", "alias", "heading", "block", "path", "missing", "markdown"])
                if kind == "plain":
                    raw, ok = f"[[{stem}]]", True
                elif kind == "alias":
                    raw, ok = f"[[{stem}|the {rnd.choice(WORDS)} note]]", True
                elif kind == "heading":
                    raw, ok = f"[[{stem}#{rnd.choice(headings[target])}]]", True
                elif kind == "block":
                    raw, ok = f"[[{stem}#^{rnd.choice(blocks[target])}|see this]]", True
                elif kind == "path":
                    raw, ok = f"[[{target}]]", True
                elif kind == "missing":
                    raw, ok, target = f"[[Nothing Here {rnd.randint(0, 999)}|a missing one]]", False, None
                else:
                    depth = name.count("/")
                    raw, ok = f"[{stem}]({'../' * depth}{target.replace(' ', '%20')}.md)", True
                links.append({"file": f"{name}.md", "raw": raw, "resolvable": ok, "target": target and f"{target}.md"})
                sentence.append(f"It links {raw}.")
            lines += [" ".join(sentence) + f" ^{blocks[name][1]}" if k == 2 else " ".join(sentence), ""]
        lines += ["```markdown", f"Code keeps [[{rnd.choice(names)}]] as it is.", "```", "",
                  f"Inline `[[{rnd.choice(names).rsplit('/', 1)[-1]}]]` stays code too.", ""]
        path = root / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    return links


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--notes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    links = generate(args.out, args.notes, args.seed)
    manifest = args.out.parent / f"{args.out.name}.links.json"
    manifest.write_text(json.dumps(links, indent=1) + "\n", encoding="utf-8")
    print(f"{args.notes} notes, {len(links)} links ({sum(not x['resolvable'] for x in links)} to missing "
          f"notes) in {args.out}; manifest {manifest}")


if __name__ == "__main__":
    main()
