"""`eval fidelity`: does each node's text keep what matters and stand on its own?

Checks on a finished run directory (OUT/hierarchy.json), per node and overall:

- **Entity retention (leaves).** Numbers and capitalised names in a leaf's `original`
  that also appear in its `context` (the self-sufficient rewrite).
  *Numbers*: digit runs with inner `.`/`,` (`1,250.5`, `3.2`, `1990`); thousands commas
  are dropped before comparing, so `1,250` matches `1250`.
  *Names*: words that start with an upper-case letter and are not the first word of a
  sentence (after `.!?`, possibly closing quotes, or a line start), minus a short stop list (`I`,
  `Mr`, month-less; see `NAME_STOP`). A sentence-initial word still counts when the same
  word is capitalised mid-sentence elsewhere in the leaf. Matching is per word, whole
  word, case-insensitive. Heuristic limits: all-caps headings count as names; names
  only ever at a sentence start are missed.
- **Shrunk contexts (leaves).** A context shorter than half its original (whitespace
  collapsed) cannot hold the chunk's content, whatever the entity counts say.
- **Unresolved opening pronoun (all nodes).** The context's first word (Markdown marks
  and quotes skipped) is a third-person pronoun or a demonstrative (`PRONOUNS`): "It
  ...", "They ...", "This ...". Expletive "It is ..." counts too: an over-count.
- **Summary shape (all nodes).** Empty, or too long: more than 2 sentences (pysbd) or
  more than 400 characters.
- **Slug validity (all nodes).** `chunker.output.slugs.is_valid_slug`.

Shares are micro (kept / found over all leaves) and macro (mean of per-leaf shares,
leaves that have no number or name left out). A context identical to its original up to whitespace (the
rewrite fell back to the source text) keeps everything trivially, so the share of such
leaves is reported, and `retention_rewritten` counts only the leaves really rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path

from chunker.document.words import NUMBER, name_token_pattern
from chunker.evaluation.metrics import Summary
from chunker.output.hierarchy import Hierarchy
from chunker.output.slugs import is_valid_slug

SUMMARY_MAX_SENTENCES = 2
SUMMARY_MAX_CHARS = 400
SHRUNK_BELOW = 0.5
"""A leaf context under half its original's length (whitespace collapsed) has lost content."""
PRONOUNS = frozenset(["he", "she", "it", "they", "him", "her", "his", "hers", "its", "their", "theirs", "them", "himself", "herself", "itself", "themselves", "this", "that", "these", "those", "such"])
NAME_STOP = frozenset(["I", "I'm", "I've", "I'd", "I'll", "Mr", "Mrs", "Ms", "Dr", "St", "A", "An", "The", "OK"])
_NAME_TOKEN = name_token_pattern("'\u2019-")  # raw text: curly apostrophes too
_LEADING = re.compile(r"^[\s#>*_\-\"'\u201c\u2018\u201d\u2019(\[`]+")


def numbers(text: str) -> set[str]:
    """Numbers in `text`, thousands separators removed: `1,250.5` -> `1250.5`."""
    out = set()
    for m in NUMBER.finditer(text):
        s = m.group(0)
        if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", s):
            s = s.replace(",", "")
        out.add(s.rstrip(".,"))
    return out


def _sentence_initial(text: str, start: int) -> bool:
    """True at the text's start, after a line break, or after `.!?` (closing quotes allowed)."""
    before = text[:start].rstrip(" \t")
    if not before or before.endswith(("\n", "\r")):
        return True
    return before.rstrip("\"'\u201d\u2019)]").endswith((".", "!", "?", "\u2026"))


def names(text: str) -> set[str]:
    """Capitalised words that are not only sentence-initial (see the module docstring)."""
    mid, initial = set(), set()
    for m in _NAME_TOKEN.finditer(text):
        w = m.group(0).rstrip("'\u2019-")
        if not w or not w[0].isupper() or w in NAME_STOP:
            continue
        (initial if _sentence_initial(text, m.start()) else mid).add(w)
    return mid | {w for w in initial if w in mid}


def _contains_word(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def retention(original: str, context: str) -> dict:
    nums, nms = numbers(original), names(original)
    ctx_nums = numbers(context)
    kept_nums = {n for n in nums if n in ctx_nums}
    kept_names = {n for n in nms if _contains_word(context, n)}
    total, kept = len(nums) + len(nms), len(kept_nums) + len(kept_names)
    return {"numbers": len(nums), "numbers_kept": len(kept_nums),
            "names": len(nms), "names_kept": len(kept_names),
            "share": kept / total if total else None,
            "missing": sorted((nums - kept_nums) | (nms - kept_names))[:20]}


def opening_pronoun(context: str) -> str | None:
    """The context's first word when it is an unresolved pronoun, else None."""
    m = _NAME_TOKEN.search(_LEADING.sub("", context or ""))
    if not m:
        return None
    word = re.split(r"['\u2019]", m.group(0))[0].lower()
    return word if word in PRONOUNS else None


def summary_shape(summary: str) -> dict:
    from chunker.document.units import sentence_ends

    s = (summary or "").strip()
    sentences = len(sentence_ends(s)) if s else 0
    too_long = sentences > SUMMARY_MAX_SENTENCES or len(s) > SUMMARY_MAX_CHARS
    return {"empty": not s, "too_long": too_long, "sentences": sentences, "chars": len(s)}


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def grounding_figures(node, by_id: dict, policy) -> dict:
    """The grounding check applied to a finished node's summary (evidence: a leaf's
    original; a block's children) and its slug's words (found in the node's text?)."""
    from chunker.grounding import check

    if node.level == 0:
        evidence = [node.original or ""]
    else:
        kids = [by_id[c] for c in node.children]
        evidence = [k.rewritten for k in kids] + [k.summary for k in kids]
    verdict = check(node.summary, evidence, task="summary", policy=policy)
    text = " ".join([node.original or node.rewritten, node.summary]).lower()
    slug_words = [w for w in node.slug.split("-") if w and not (w.isdigit() and len(w) == 1)]
    return {"summary_grounded": verdict.ok, "summary_support": verdict.support,
            "summary_unsupported_names": len(verdict.unsupported_names),
            "summary_unsupported_numbers": len(verdict.unsupported_numbers),
            "slug_unsupported_words": sum(1 for w in slug_words if w not in text)}


def evaluate_fidelity(run_dir: str | Path) -> dict:
    from chunker.config.settings import ChunkerSettings
    from chunker.grounding.advice import task_outcomes

    path = Path(run_dir) / "hierarchy.json"
    h = Hierarchy.model_validate_json(path.read_text(encoding="utf-8"))
    max_len = int(h.meta.config.get("slug_max_length", 60) or 60)
    policy = ChunkerSettings(model=h.meta.model).grounding
    by_id = h.by_id()
    nodes = []
    # by level, then reading order (a folder has no span, and a corpus's spans restart in
    # every file; in one document this is the order of their offsets)
    for node in sorted(h.in_order(), key=lambda n: n.level):
        rec = {"id": node.id, "level": node.level, "slug": node.slug,
               "slug_valid": is_valid_slug(node.slug, max_len),
               "opening_pronoun": opening_pronoun(node.rewritten),
               **{f"summary_{k}": v for k, v in summary_shape(node.summary).items()},
               **grounding_figures(node, by_id, policy)}
        if node.level == 0:
            rec["retention"] = retention(node.original or "", node.rewritten)
            rec["context_is_original"] = _norm(node.rewritten) == _norm(node.original)
            rec["context_ratio"] = len(_norm(node.rewritten)) / max(1, len(_norm(node.original)))
        nodes.append(rec)
    fallbacks = {task: round(c.fell_back / c.total, 3)
                 for task, c in task_outcomes(h.meta.stats).items() if c.total}
    return {"kind": "fidelity", "run_dir": str(Path(run_dir)), "model": h.meta.model,
            "doc_id": h.meta.doc_id, "nodes": nodes,
            "overall": {**overall(nodes), "fallback_share_by_task": fallbacks}}


def overall(nodes: list[dict]) -> dict:
    leaves = [n for n in nodes if n["level"] == 0]
    blocks = [n for n in nodes if n["level"] > 0]
    ret = [n["retention"] for n in leaves]
    found = sum(r["numbers"] + r["names"] for r in ret)
    kept = sum(r["numbers_kept"] + r["names_kept"] for r in ret)
    num_found, name_found = sum(r["numbers"] for r in ret), sum(r["names"] for r in ret)
    rewritten = [n["retention"] for n in leaves if not n.get("context_is_original")]
    r_found = sum(r["numbers"] + r["names"] for r in rewritten)
    r_kept = sum(r["numbers_kept"] + r["names_kept"] for r in rewritten)
    return {
        "nodes": len(nodes), "leaves": len(leaves), "blocks": len(blocks),
        "context_is_original": _share([bool(n.get("context_is_original")) for n in leaves]),
        "retention_rewritten": r_kept / r_found if r_found else None,
        "context_shrunk": _share([n.get("context_ratio", 1.0) < SHRUNK_BELOW for n in leaves]),
        "retention_micro": kept / found if found else None,
        "retention_macro": Summary.of(r["share"] for r in ret if r["share"] is not None).as_dict(),
        "numbers_retention": sum(r["numbers_kept"] for r in ret) / num_found if num_found else None,
        "names_retention": sum(r["names_kept"] for r in ret) / name_found if name_found else None,
        "entities_found": found, "entities_kept": kept,
        "pronoun_opening_leaves": _share([n["opening_pronoun"] is not None for n in leaves]),
        "pronoun_opening_blocks": _share([n["opening_pronoun"] is not None for n in blocks]),
        "pronoun_opening_all": _share([n["opening_pronoun"] is not None for n in nodes]),
        "summary_empty": _share([n["summary_empty"] for n in nodes]),
        "summary_too_long": _share([n["summary_too_long"] for n in nodes]),
        "summary_bad": _share([n["summary_empty"] or n["summary_too_long"] for n in nodes]),
        "slug_valid": _share([n["slug_valid"] for n in nodes]),
        "summary_grounded": _share([n["summary_grounded"] for n in nodes]),
        "summary_support_mean": (sum(n["summary_support"] for n in nodes) / len(nodes)) if nodes else None,
        "unsupported_names_per_summary": (sum(n["summary_unsupported_names"] for n in nodes) / len(nodes)
                                          if nodes else None),
        "unsupported_numbers_per_summary": (sum(n["summary_unsupported_numbers"] for n in nodes) / len(nodes)
                                            if nodes else None),
        "unsupported_slug_words": sum(n["slug_unsupported_words"] for n in nodes),
    }
