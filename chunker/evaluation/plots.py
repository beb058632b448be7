"""PNG figures for the eval reports (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import math
from pathlib import Path

COLORS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _num(x) -> float:
    return float("nan") if x is None else float(x)


def metric_bars(summary: dict[str, dict[str, dict]], path: Path, title: str,
                skip: tuple[str, ...] = ("gold",)) -> Path:
    """Pk and WindowDiff (mean, std as error bar) per method, one panel per corpus."""
    plt = _plt()
    groups = list(summary)
    fig, axes = plt.subplots(1, len(groups), figsize=(max(5.5, 3.2 * len(groups) + 2.5), 3.8),
                             squeeze=False, sharey=True)
    for ax, group in zip(axes[0], groups):
        methods = [m for m in summary[group] if m not in skip]
        xs = range(len(methods))
        for j, metric in enumerate(("pk", "windowdiff")):
            means = [_num(summary[group][m][metric]["mean"]) for m in methods]
            stds = [_num(summary[group][m][metric]["std"]) for m in methods]
            ax.bar([x + (j - 0.5) * 0.38 for x in xs], means, 0.38, yerr=stds, capsize=2,
                   label="Pk" if metric == "pk" else "WindowDiff", color=COLORS[j])
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(methods, rotation=30, ha="right", fontsize=8)
        n = max((summary[group][m]["documents"] for m in methods), default=0)
        ax.set_title(f"{group} ({n} docs)", fontsize=9)
        ax.set_ylim(0, 1)
    axes[0][0].set_ylabel("error (lower is better)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def boundary_strip(record: dict, path: Path, methods: list[str] | None = None) -> Path:
    """One row per method: its segments over the sentence units of one document."""
    plt = _plt()
    methods = methods or list(record["methods"])
    n = record["units"]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(methods) + 1.2))
    gold_cuts = [sum(record["methods"]["gold"]["masses"][:i + 1])
                 for i in range(len(record["methods"]["gold"]["masses"]) - 1)]
    for row, m in enumerate(methods):
        y = len(methods) - 1 - row
        start = 0
        for i, mass in enumerate(record["methods"][m]["masses"]):
            ax.barh(y, mass, left=start, height=0.7, color=COLORS[i % 2 + (2 if m == "gold" else 0)],
                    edgecolor="white", linewidth=0.5)
            start += mass
    for c in gold_cuts:
        ax.axvline(c, color="black", lw=0.6, ls="--", alpha=0.6)
    ax.set_yticks(range(len(methods)))
    ax.set_yticklabels(list(reversed(methods)), fontsize=8)
    ax.set_xlim(0, n)
    ax.set_xlabel("sentence unit (dashed: gold boundaries)")
    ax.set_title(f"{record['corpus']}/{record['name']}: segments per method", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def share_bars(rows: dict[str, dict[str, float | None]], path: Path, title: str) -> Path:
    """Grouped bars of shares in [0, 1]: one group per label (run), one bar per measure."""
    plt = _plt()
    labels = list(rows)
    measures = sorted({k for r in rows.values() for k in r})
    fig, ax = plt.subplots(figsize=(max(5.5, 1.2 * len(labels) * max(1, len(measures)) / 2 + 2), 3.6))
    width = 0.8 / max(1, len(measures))
    for j, meas in enumerate(measures):
        vals = [_num(rows[l].get(meas)) for l in labels]
        ax.bar([i + (j - (len(measures) - 1) / 2) * width for i in range(len(labels))],
               [0 if math.isnan(v) else v for v in vals], width, label=meas,
               color=COLORS[j % len(COLORS)])
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def stacked_bars(rows: dict[str, dict[str, float | None]], path: Path, title: str,
                 ylabel: str) -> Path:
    """Stacked bars: one bar per label (run), one stack part per key."""
    plt = _plt()
    labels = list(rows)
    keys = sorted({k for r in rows.values() for k in r})
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(labels) + 3), 3.6))
    bottom = [0.0] * len(labels)
    for j, key in enumerate(keys):
        vals = [_num(rows[l].get(key)) for l in labels]
        vals = [0 if math.isnan(v) else v for v in vals]
        ax.bar(range(len(labels)), vals, 0.6, bottom=bottom, label=key, color=COLORS[j % len(COLORS)])
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def histogram(values: list[float], path: Path, title: str, xlabel: str) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.hist([v for v in values if v is not None], bins=10, range=(0, 1), color=COLORS[0])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("leaves")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
