"""bench/update.py's summary: bench/results/update/summary.md from the cases' JSON."""

from __future__ import annotations

from typing import Any


def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def counts_cell(d: dict[str, int]) -> str:
    return "/".join(str(d.get(k, 0)) for k in ("leaves", "blocks", "documents", "folders"))


def summary(cases: dict[str, dict[str, Any]]) -> str:
    any_case = next(iter(cases.values()))
    lines = ["# `chunker update` (issue 19): cost and fidelity (scripted model, lexical embeddings)", "",
             f"Commit {any_case['head']} (the package as committed"
             + (f", plus uncommitted changes to {', '.join(u)}" if (u := any_case["code"]["uncommitted"]) else "") + "), "
             f"chunker {any_case['tool_version']}, measured {any_case['date']}; `python bench/update.py`. Every "
             "command ran with `--model scripted --embeddings lexical` as its own process on a shared 2-core "
             "machine (others' tests running): times are whole commands, compared as shares within one run.", "",
             "## The edits", ""]
    for name, c in cases.items():
        if name.startswith("emma-") and (e := c.get("edit")):
            where = f" (leaf {e['in_leaf']}, {' / '.join(e['header_path'] or [])})" if "in_leaf" in e else ""
            lines.append(f"- {name}: old text {e['replaced']} {e['old']!r} -> {e['new']!r}{where}.")
    if e := cases.get("fastapi", {}).get("edit"):
        (edited, what), = e["edited"].items()
        lines.append(f"- fastapi: added {', '.join(f'`{k}` (a copy of {v})' for k, v in e['added'].items())}; deleted "
                     f"`{e['deleted']}`; moved `{e['moved']['from']}` -> `{e['moved']['to']}`; edited `{edited}` "
                     f"({what['old']!r} -> {what['new']!r}); all in one update.")
    lines += ["", "## Cost of the update, as a share of a fresh run", "",
             "Emma: the fresh run of the original text; fastapi-docs: the fresh run of the edited folder.", "",
             "Wall: the whole command; `chunker` wall: the time the command reports for its own work (no interpreter "
             "start-up or imports); no-op: `chunker update` of the updated tree when nothing changed, the fixed cost. "
             "The scripted model answers at once, so these times are chunker's own work besides the model's; with "
             "a real model each call costs seconds and the calls' share would weigh most.", "",
             "| case | update calls | fresh calls | calls share (target <= 3 %) | update wall s | fresh wall s | wall share "
             "| CPU share | `chunker` wall update / fresh | no-op wall s |", "|---|---|---|---|---|---|---|---|---|---|"]
    updates = {k: v for k, v in cases.items() if "update" in v}
    for name, c in updates.items():
        u, f = c["update"], c["fresh_edited"] if name == "fastapi" else c["fresh_original"]
        lines.append(f"| {name} | {u['calls']} | {f['calls']} | {pct(u['calls_share_of_fresh'])} | {u['wall_s']} | "
                     f"{f['wall_s']} | {pct(u['wall_share_of_fresh'])} | {pct(u['cpu_share_of_fresh'])} | "
                     f"{u['chunker_wall_s']} / {f['chunker_wall_s']} | {c.get('noop', c.get('noop_updated'))['wall_s']} |")
    if "fastapi" in cases:
        c = cases["fastapi"]
        lines.append(f"\nfastapi-docs: the original folder's fresh run made {c['fresh_original']['calls']} calls in "
                     f"{c['fresh_original']['wall_s']} s; the update's calls are "
                     f"{pct(c['update']['calls_share_of_fresh_original'])} of those.")
    lines += ["", "## What the update kept (meta.updates[-1]) and the files it changed", "",
              "reused / redone / added / removed nodes; files: changed (of those, only in frontmatter `span` and/or "
              "Up/Previous/Next lines) +added -removed, by the kind of node the file holds.", "",
              "| case | leaves r/rd/a/rm | blocks r/rd/a/rm | documents r/rd/a/rm | leaf files | block files | document files | folder files | regrounded kept / redone |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, c in updates.items():
        rec, st = c["update"]["record"], c["update"]["stats"]
        nodes = [" / ".join(str(rec[p].get(k, 0)) for p in ("reused", "redone", "added", "removed"))
                 for k in ("leaves", "blocks", "documents")]
        fl = [(lambda r: f"{r['changed']} ({r['only_span_or_links']}) +{r['added']} -{r['removed']} of {r['before']}"
               if r else "-")(c["files"].get(k)) for k in ("leaf", "block", "document", "folder")]
        lines.append(f"| {name} | " + " | ".join(nodes + fl) + f" | {st.get('update.leaves.regrounded_kept', 0)} / "
                     f"{st.get('update.leaves.regrounded_redone', 0)} |")
    lines += ["", "How the changed files differ (parts of the file that differ: `span`, `links` = Up/Previous/Next "
              "lines, `contents` = a block's Contents link lines, `front:KEYS` = other frontmatter, `text` = the rest):",
              ""]
    for name, c in updates.items():
        lines.append(f"- {name}: " + "; ".join(f"{k} {r['how']}" for k, r in c["files"].items() if r["how"]))
    lines += ["", "## The updated tree next to a fresh run of the edited source", "",
              "Nodes leaves/blocks/documents/folders. Boundaries: leaves' end offsets (per file).", "",
              "| case | updated nodes | fresh nodes | boundaries common / union | common / fresh | lossless updated, fresh "
              "| node files at the same path (folders) |", "|---|---|---|---|---|---|---|"]
    for name, c in updates.items():
        v = c["versus_fresh"]
        b, ok = v["boundaries"], v["lossless"]
        lines.append(f"| {name} | {counts_cell(v['updated'])} | {counts_cell(v['fresh'])} | {b['common']}/{b['union']} = "
                     f"{pct(b['common_over_union'])} | {b['common']}/{b['fresh']} = {pct(b['common_over_fresh'])} | "
                     f"{ok['updated']['ok']} ({ok['updated']['files']} files), {ok['fresh']['ok']} | "
                     f"{(p := v['node_files_same_path'])['all']}/{p['of']} ({p['folders']}/{p['folders_of']}) |")
    if controls := {n: c["versus_fresh"]["fresh_edited_vs_fresh_original"] for n, c in updates.items()
                    if "fresh_edited_vs_fresh_original" in c["versus_fresh"]}:
        lines += ["", "Control: the fresh run of the edited text next to the fresh run of the original (its leaf ends "
                  "carried through the edit), i.e. how far two fresh runs drift apart by themselves: " + "; ".join(
                      f"{n} {k['common']}/{k['union']} = {pct(k['common_over_union'])} in common" for n, k in controls.items())
                  + "."]
    lines += ["", "## Background tolerance: copied output vs what a fresh run writes", "",
              "Leaves of the updated tree holding the same passage (span and text) as a leaf of the fresh run: how "
              "many have another rewrite / summary there. `copied`: the old leaf under its old id; `after a change`: "
              "copied with another leaf before it than before (its background changed; the grounding gate re-checked "
              "it). With the scripted model the rewrite may not depend on the background: measured, not assumed.", "",
              "| case | group | leaves | rewrite differs | summary differs |", "|---|---|---|---|---|"]
    for name, c in updates.items():
        for group, g in c["versus_fresh"]["background"].items():
            lines.append(f"| {name} | {group.replace('_', ' ')} | {g['leaves']} | {g['rewrite_differs']} "
                         f"({pct(g['rewrite_differs_share'])}) | {g['summary_differs']} ({pct(g['summary_differs_share'])}) |")
    if "fastapi" in cases:
        u, m = cases["fastapi"]["unchanged_documents"], cases["fastapi"]["moved_document"]
        lines += ["", "## fastapi-docs: the documents the update did not touch", "",
                  f"{u['documents']} unchanged documents, {u['inner_files_checked']} inner files (their blocks' and "
                  f"leaves' files): {u['inner_files_same_name_and_bytes']} under the same name with the same bytes, "
                  f"{u['inner_files_differ']} differ (expected 0). Under the same name: {u['same_name']}; renamed because "
                  f"a folder above them was renamed or regrouped ({u['documents_under_a_renamed_folder']} documents), "
                  f"their bytes at the new path: {u['renamed_by_a_folder_above']}. The unchanged documents' node files: "
                  f"{u['document_files']}.", "",
                  f"The moved file ({m['from']} -> {m['to']}): {m['same_ids']}/{m['nodes_before']} nodes keep their "
                  f"ids; its files at the new place vs the old bytes: {m['files']}; old files left: {m['old_files_left']}."]
    lines += ["", "## No-op updates", "", "`chunker update OUT` with the source unchanged: calls, and OUT's files "
              "(.chunker included) whose bytes / mtime changed.", "",
              "| tree | says up to date | calls | files | bytes changed | mtime changed | added | removed |",
              "|---|---|---|---|---|---|---|---|"]
    for name, c in cases.items():
        for key in ("noop", "noop_fresh", "noop_updated"):
            if n := c.get(key):
                tree = {"noop": "fresh tree" if name == "emma-fresh" else "updated tree"}.get(key, key[5:] + " tree")
                lines.append(f"| {name}: {tree} | {n['says_up_to_date']} | {n['calls_counted']} | {n['files']} | "
                             f"{n['bytes_changed']} | {n['mtime_changed']} | {n['added']} | {n['removed']} |")
    return "\n".join(lines) + "\n"
