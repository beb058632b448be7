"""The CLI reference: every command and option, walked from the typer app itself."""

from __future__ import annotations

import inspect

import typer

from chunker_docs.text import cell, code, paragraphs, table


def _command():
    from chunker.cli.app import app

    return typer.main.get_command(app)


def _walk(cmd, ctx, path: list[str]):
    """(path, command, context) for `cmd` and every command under it, depth first."""
    yield path, cmd, ctx
    for name, sub in getattr(cmd, "commands", {}).items():
        if sub.hidden:
            continue
        yield from _walk(sub, type(sub).context_class(sub, info_name=name, parent=ctx), [*path, name])


def _section(path: list[str], cmd, ctx) -> str:
    depth = "#" * min(len(path) + 2, 5)  # under the page's "Every command and option"
    label = "cli-" + "-".join(path[1:]) if len(path) > 1 else "cli-chunker"
    out = [f"({label})=", f"{depth} {code(' '.join(path))}", "",
           "```text", cmd.get_usage(ctx).strip(), "```", "", paragraphs(cmd.help)]
    subs = [(name, sub) for name, sub in getattr(cmd, "commands", {}).items() if not sub.hidden]
    if subs:
        out += ["", table(["command", "what it does"],
                          [[f"[{code(' '.join([*path, name]))}](#cli-{'-'.join([*path[1:], name])})",
                            cell(sub.get_short_help_str(200))] for name, sub in subs])]
    rows = []
    for param in cmd.params:
        if param.hidden:
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        rows.append([code(names), cell(help_text)])
    if rows:
        out += ["", table(["argument or option", "meaning"], rows)]
    return "\n".join(out)


def markdown() -> str:
    root = _command()
    ctx = type(root).context_class(root, info_name="chunker")
    return "\n\n".join(_section(path, cmd, ctx) for path, cmd, ctx in _walk(root, ctx, ["chunker"]))


def exit_codes() -> str:
    """The exit codes the CLI uses (chunker.cli.common), with the CLI module's own words."""
    from chunker.cli import app, common

    codes = {name: value for name, value in vars(common).items()
             if name.startswith("EXIT_") and isinstance(value, int)}
    rows = [[code(value), code(f"chunker.cli.common.{name}")] for name, value in
            sorted(codes.items(), key=lambda item: item[1])]
    doc = inspect.getdoc(app) or ""
    said = next((p for p in doc.split("\n\n") if p.startswith("Exit codes")), "")
    return table(["code", "constant"], rows) + ("\n\n" + "> " + " ".join(said.split()) if said else "")
