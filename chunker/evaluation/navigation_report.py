"""The navigation report: Markdown with the summary and per-question tables, a JSON of
every figure, and PNG plots (success vs tokens read; the per-question success grid)."""

from __future__ import annotations

from pathlib import Path

from chunker.evaluation.navigation import NavigationEval
from chunker.evaluation.plots import COLORS, _plt
from chunker.evaluation.report import fmt, table, write_json

TARGET_BASE = "flat-leaves-k5"
"""The issue's target: the embeddings-only navigator reaches this method's success rate
while reading at most half of its tokens."""
NAVIGATOR = "navigator-embeddings"


def success_vs_tokens(result: NavigationEval, path: Path) -> Path:
    plt = _plt()
    summary = result.summary()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for n, (name, s) in enumerate(summary.items()):
        marker = "*" if name.startswith("navigator") else "o"
        ax.scatter(s["tokens_read"], 100 * s["success_rate"], s=160 if marker == "*" else 50,
                   marker=marker, color=COLORS[n % len(COLORS)], label=name, zorder=3)
    ax.set_xlabel("tokens read per question (mean)")
    ax.set_ylabel("success rate (%)")
    ax.set_ylim(-3, 103)
    ax.grid(alpha=0.3)
    ax.set_title(f"Navigation on {len(result.questions)} questions ({result.embeddings} embeddings)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def question_grid(result: NavigationEval, path: Path) -> Path:
    plt = _plt()
    names = list(result.outcomes)
    grid = [[1.0 if result.outcomes[m][q].success else 0.0 for q in range(len(result.questions))]
            for m in names]
    fig, ax = plt.subplots(figsize=(max(6, 0.3 * len(result.questions) + 3), 0.35 * len(names) + 1.5))
    ax.imshow(grid, cmap="Greens", vmin=0, vmax=1.4, aspect="auto")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xticks(range(len(result.questions)), [str(q + 1) for q in range(len(result.questions))],
                  fontsize=6)
    ax.set_xlabel("question")
    ax.set_title("success per question (green: a passage opened holds the answer)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def target_line(summary: dict) -> str:
    nav, base = summary.get(NAVIGATOR), summary.get(TARGET_BASE)
    if not nav or not base:
        return "target not measured (run both navigator-embeddings and flat-leaves-k5)"
    ok_rate = nav["success_rate"] >= base["success_rate"]
    ok_tokens = nav["tokens_read"] <= base["tokens_read"] / 2
    verdict = "MET" if ok_rate and ok_tokens else "NOT MET"
    return (f"target {verdict}: navigator (embeddings only) {100 * nav['success_rate']:.0f} % at "
            f"{nav['tokens_read']:.0f} tokens vs flat top-5 {100 * base['success_rate']:.0f} % at "
            f"{base['tokens_read']:.0f} tokens (success {'≥' if ok_rate else '<'} top-5's; tokens "
            f"{'≤' if ok_tokens else '>'} half of top-5's)")


def markdown(result: NavigationEval, images: dict[str, str]) -> str:
    summary = result.summary()
    s = result.settings
    lines = ["# Navigation: from the root summary to the passage a question needs", "",
             f"- tree: `{result.run_dir}`; {len(result.questions)} questions; embeddings "
             f"`{result.embeddings}`; navigator model `{result.model or 'none'}`",
             f"- navigator settings: budget {s['budget_tokens']} tokens, max_leaves "
             f"{s['max_leaves']}, child_scoring `{s['child_scoring']}`, backtrack "
             f"`{s['backtrack']}`, pieces of {s['piece_tokens']} tokens",
             "- success: a passage opened contains `must_contain` (case-folded, straight quotes, "
             "collapsed whitespace; fuzzy partial_ratio ≥ 90 only for the "
             f"{sum(result.fuzzy)} questions with no verbatim match in the source)",
             "- tokens read: flat methods, the passages' text; the navigator, the children's "
             "summaries shown at each choice plus the leaves' original text",
             f"- wall time: {fmt(result.wall_s, 1)} s", "", f"**{target_line(summary)}**", "",
             "## Summary", "",
             table(["method", "success", "rate", "tokens read / q", "LLM calls / q",
                    "LLM tokens / q", "seconds / q"],
                   [[m, f"{v['successes']}/{len(result.questions)}", f"{100 * v['success_rate']:.0f} %",
                     f"{v['tokens_read']:.0f}", f"{v['llm_calls']:.1f}", f"{v['llm_tokens']:.0f}",
                     f"{v['seconds']:.2f}"] for m, v in summary.items()]), ""]
    lines += [f"![{k}]({v})" for k, v in images.items()] + ["", "## Per question", ""]
    names = list(result.outcomes)
    rows = []
    for q, question in enumerate(result.questions):
        marks = [("✓" if result.outcomes[m][q].success else "·") + f" {result.outcomes[m][q].tokens_read}"
                 for m in names]
        gold = ", ".join(result.gold_leaves[q]) or "(straddles leaves)"
        rows.append([str(q + 1), question.question[:70].replace("|", "/"), gold, *marks,
                     result.lost_at[q] or ("–" if NAVIGATOR in result.outcomes else "")])
    lines += [table(["#", "question", "gold leaf", *names, "navigator left the gold branch at"], rows),
              "", "Cells: ✓ success / · miss, then tokens read.", ""]
    return "\n".join(lines)


def write_navigation(result: NavigationEval, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    images = {"success vs tokens": success_vs_tokens(result, out / "navigation_success_tokens.png"),
              "per question": question_grid(result, out / "navigation_questions.png")}
    report = out / "navigation.md"
    report.write_text(markdown(result, {k: v.name for k, v in images.items()}), encoding="utf-8")
    return {"report": report, "json": write_json(out / "navigation.json", result.to_dict()),
            **{k: v for k, v in images.items()}}
