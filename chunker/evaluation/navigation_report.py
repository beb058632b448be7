"""The navigation report: Markdown (summary per method and budget, the target line, the cost,
the ablation of contextual fields, a per-question grid), a JSON of every figure, and PNG plots
(success against budget, a line per method; success per question)."""

from __future__ import annotations

from pathlib import Path

from chunker.evaluation.navigation import NAVIGATOR, NavigationEval
from chunker.evaluation.navigation_flat import RANKERS, UNITS
from chunker.evaluation.navigation_questions import SPAN_SHARE
from chunker.evaluation.plots import COLORS, _plt
from chunker.evaluation.report import fmt, table, write_json

_STYLES = {"bm25": "-", "embeddings": "--", "fusion": ":"}


def _main(result: NavigationEval) -> list[str]:
    """The methods of the summary and the plot: the navigators, then the flat baselines."""
    return result.methods("navigator") + result.methods("flat")


def success_vs_budget(result: NavigationEval, path: Path) -> list[str]:
    """One line per method (navigators thick, starred; flat: colour by units, dash by ranker);
    returns the lines' labels, in the order drawn."""
    plt = _plt()
    summary = result.summary()
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    for n, name in enumerate(_main(result)):
        ys = [100 * summary[name][b]["success_rate"] for b in result.budgets]
        if result.groups[name] == "navigator":
            ax.plot(result.budgets, ys, marker="*", markersize=12, linewidth=3.0, zorder=4,
                    color=["#000000", "#B8860B", "#008B8B"][n % 3], label=name)
        else:
            ranker, _, units = name.partition("-")
            ax.plot(result.budgets, ys, marker="o", markersize=4, linewidth=1.3, alpha=0.85,
                    linestyle=_STYLES.get(ranker, "-"),
                    color=COLORS[UNITS.index(units) % len(COLORS)] if units in UNITS else COLORS[-1],
                    label=name)
    ax.set_xscale("log", base=2)
    ax.set_xticks(result.budgets, [str(b) for b in result.budgets])
    ax.minorticks_off()
    ax.set_xlabel("budget (tokens read per question, at most)")
    ax.set_ylabel("success rate (%)")
    ax.set_ylim(-3, 103)
    ax.grid(alpha=0.3)
    ax.set_title(f"Navigation on {len(result.questions)} questions ({result.embeddings} embeddings)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    labels = [line.get_label() for line in ax.get_lines()]
    plt.close(fig)
    return labels


def question_grid(result: NavigationEval, path: Path) -> Path:
    """Methods x questions, shaded by the share of budgets at which the method succeeded."""
    plt = _plt()
    names = _main(result) + result.methods("ablation")
    nq = len(result.questions)
    grid = [[sum(result.outcomes[m][b][q].success for b in result.budgets) / len(result.budgets)
             for q in range(nq)] for m in names]
    fig, ax = plt.subplots(figsize=(max(6, 0.3 * nq + 3), 0.32 * len(names) + 1.6))
    ax.imshow(grid, cmap="Greens", vmin=0, vmax=1.2, aspect="auto")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xticks(range(nq), [str(q + 1) for q in range(nq)], fontsize=6)
    ax.set_xlabel("question")
    ax.set_title(f"success per question (darker: found at more of the budgets {result.budgets})")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def target_lines(result: NavigationEval) -> list[str]:
    """'at each budget, navigator >= best flat method', MET or NOT MET per budget."""
    summary, flats = result.summary(), result.methods("flat")
    if NAVIGATOR not in summary or not flats:
        return ["target not measured (it needs the `navigator` and at least one flat method)"]
    nq = len(result.questions)
    out = []
    for b in result.budgets:
        nav = summary[NAVIGATOR][b]["successes"]
        best = max(flats, key=lambda m: summary[m][b]["successes"])
        top = summary[best][b]["successes"]
        out.append(f"budget {b}: {'MET' if nav >= top else 'NOT MET'}: navigator {nav}/{nq} vs "
                   f"best flat {best} {top}/{nq}")
    return out


def _cell(s: dict, nq: int) -> str:
    return f"{s['successes']}/{nq} ({100 * s['success_rate']:.0f} %), {s['tokens_read']:.0f} t"


def _marks(result: NavigationEval, method: str, q: int) -> str:
    return "".join("✓" if result.outcomes[method][b][q].success else "·" for b in result.budgets)


def markdown(result: NavigationEval, images: dict[str, str]) -> str:
    summary, nq, s = result.summary(), len(result.questions), result.settings
    budgets = result.budgets
    rules = {r: result.rules.count(r) for r in dict.fromkeys(result.rules)}
    lines = ["# Navigation: success against tokens read, at matched budgets", "",
             f"- tree: `{result.run_dir}`" + (" (a corpus, measured as one tree)" if result.corpus else "")
             + f"; {nq} questions; embeddings `{result.embeddings}`; navigator model "
               f"`{result.model or 'none'}`; budgets {', '.join(map(str, budgets))}",
             f"- navigator settings: collapsed search, context fields "
             f"`{', '.join(s['context_fields']) or 'none'}`, pieces of {s['piece_tokens']} tokens, "
             f"rrf_k {s['rrf_k']}, zoom_hits {s['zoom_hits']}; descend: max_leaves {s['max_leaves']}, "
             f"child_scoring `{s['child_scoring']}`, backtrack `{s['backtrack']}`",
             "- success rules: " + ", ".join(f"{r} ({n} questions)" for r, n in rules.items())
             + f". spans: the characters read cover at least {SPAN_SHARE:.0%} of a reference span; "
               "must_contain: a passage read contains it (case-folded, straight quotes, collapsed "
               "whitespace; fuzzy partial_ratio ≥ 90 only where it is nowhere verbatim)",
             "- tokens read: the navigator's `tokens_read` (passages with their headers; descend: "
             "also the children's summaries shown); flat methods, the text read (units in rank "
             "order while they fit, the first that does not fit cut to what is left)",
             f"- flat baselines: {', '.join(r for r in RANKERS)} x {', '.join(UNITS)} "
             "(`contextual`: leaves indexed with the navigator's context fields, read as originals)"
             + ("; only bm25 (the embeddings provider is BM25 itself)"
                if not any(m.startswith("embeddings-") for m in result.methods("flat")) else ""),
             f"- wall time: {fmt(result.wall_s, 1)} s", "", "## Target: at each budget, navigator ≥ "
             "best flat method", ""]
    lines += [f"- **{t}**" for t in target_lines(result)] + ["", "## Success at each budget", ""]
    lines += [table(["method", *[f"{b}" for b in budgets]],
                    [[m, *[_cell(summary[m][b], nq) for b in budgets]] for m in _main(result)]),
              "", "Cells: questions found, rate, mean tokens read per question.", ""]
    lines += [f"![{k}]({v})" for k, v in images.items()] + ["", "## Cost per question", ""]
    cost_rows = []
    for m in _main(result):
        row = [m, *[f"{summary[m][b]['seconds']:.3f}" for b in budgets]]
        if m == "navigator-llm":
            row += [" / ".join(f"{summary[m][b]['llm_calls']:.1f}" for b in budgets),
                    " / ".join(f"{summary[m][b]['prompt_tokens']:.0f}" for b in budgets),
                    " / ".join(f"{summary[m][b]['llm_tokens']:.0f}" for b in budgets)]
        else:
            row += ["–", "–", "–"]
        cost_rows.append(row)
    lines += [table(["method", *[f"s/q at {b}" for b in budgets], "LLM calls/q (per budget)",
                     "prompt tokens/q (per budget)", "LLM tokens/q, prompt + completion (per budget)"],
                    cost_rows), "",
              "Flat methods: the seconds of one ranking (the same at every budget).", ""]
    if ablation := result.methods("ablation"):
        lines += ["## Ablation of contextual fields (collapsed navigator)", "",
                  table(["variant", "fields", *[str(b) for b in budgets]],
                        [[m, ", ".join(result.fields.get(m, [])) or "none",
                          *[_cell(summary[m][b], nq) for b in budgets]] for m in ablation]), ""]
    names = _main(result) + ablation
    rows = []
    for q, question in enumerate(result.questions):
        gold = ", ".join(result.gold_leaves[q][:3]) + ("…" if len(result.gold_leaves[q]) > 3 else "")
        rows.append([str(q + 1), question.question[:60].replace("|", "/"), result.rules[q],
                     gold or "(straddles leaves)", *[_marks(result, m, q) for m in names]])
    lines += ["## Per question", "",
              f"Cells: one mark per budget ({', '.join(map(str, budgets))}): ✓ found, · missed.", "",
              table(["#", "question", "rule", "gold leaf", *names], rows), ""]
    return "\n".join(lines)


def write_navigation(result: NavigationEval, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    plot = out / "navigation_success_budget.png"
    success_vs_budget(result, plot)
    images = {"success vs budget": plot,
              "per question": question_grid(result, out / "navigation_questions.png")}
    report = out / "navigation.md"
    report.write_text(markdown(result, {k: v.name for k, v in images.items()}), encoding="utf-8")
    return {"report": report, "json": write_json(out / "navigation.json", result.to_dict()), **images}
