"""The settings reference: every field of `ChunkerSettings`'s sections (pydantic models and
their attribute docstrings), the model profiles, and the navigator's settings."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import types
import typing

from pydantic_core import PydanticUndefined

from chunker_docs.text import cell, code, one_line, paragraphs, table

_BOUNDS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))


def type_name(annotation: object) -> str:
    """A field's type as a reader writes it: `int`, `"a" | "b"`, `str | None`, `tuple[str, ...]`."""
    if isinstance(annotation, str):
        return annotation
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(repr(a).replace("'", '"') for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is not None:
        inner = ", ".join("..." if a is Ellipsis else type_name(a) for a in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def _range(field) -> str:
    bounds = [f"{sign} {getattr(m, attr)}" for m in field.metadata
              for attr, sign in _BOUNDS if getattr(m, attr, None) is not None]
    return ", ".join(bounds)


def _default(field, flat: str, profile_fields: set[str]) -> str:
    if flat in profile_fields:
        return "[the model's profile](#profiles)"
    if field.default is PydanticUndefined and field.default_factory is None:
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default
    return code(repr(value))


def _entry(label: str, name: str, path: str | None, kind: str, default: str, bound: str,
           description: str | None) -> str:
    term = code(name) + (f" · {code(path)}" if path and path != name else "")
    facts = f"**type** {code(kind)} · **default** {default}" + (f" · **range** {bound}" if bound else "")
    body = one_line(description) or "(no description)"
    return f"({label})=\n{term}\n: {facts}\n\n  {body}\n"


def markdown() -> str:
    from chunker.config.keys import FLAT_OF, SECTION_NAMES
    from chunker.config.profiles import ModelProfile
    from chunker.config.settings import ChunkerSettings

    profile_fields = {f.name for f in dataclasses.fields(ModelProfile)}
    profile_fields.add("embeddings")
    out = []
    for section in SECTION_NAMES:
        holder = ChunkerSettings.model_fields[section]
        model = holder.annotation
        out += [f"## {code(section)}", "", paragraphs(inspect.getdoc(model) or holder.description), ""]
        for name, field in model.model_fields.items():
            path = f"{section}.{name}"
            flat = FLAT_OF.get(path, path)
            out.append(_entry(f"setting-{flat}", flat, path, type_name(field.annotation),
                              _default(field, flat, profile_fields), _range(field), field.description))
    return "\n".join(out)


def _profile_names() -> list[tuple[str, object, list[str]]]:
    from chunker.config.profiles import CONSERVATIVE, PROFILES

    groups: list[tuple[object, list[str]]] = []
    for model, profile in PROFILES.items():
        for held, names in groups:
            if held == profile:
                names.append(model)
                break
        else:
            groups.append((profile, [model]))
    groups.append((CONSERVATIVE, ["any other model"]))
    return [(", ".join(code(n) if n != "any other model" else n for n in names), p, names)
            for p, names in groups]


def profiles() -> str:
    from chunker.config.profiles import ModelProfile, profile_for

    fields = [f.name for f in dataclasses.fields(ModelProfile)]
    rows = []
    for label, profile, _ in _profile_names():
        values = []
        for name in fields:
            value = getattr(profile, name)
            if isinstance(value, tuple):
                value = ", ".join(value) or "(none)"
            values.append(code(value))
        rows.append([label, *values])
    header = ["models", *(f"[{code(n)}](#setting-{n})" for n in fields)]
    examples = ["qwen3:32b", "ollama:qwen3:8b", "gemma4", "local", "llamacpp:/models/x.gguf",
                "scripted:paraphrase=0.3", "openai:gpt-4o-mini"]
    names = {id(p): lbl for lbl, p, _ in _profile_names()}
    which = [[code(spec), names.get(id(profile_for(spec, warn=False)), "")] for spec in examples]
    doc = paragraphs(inspect.getdoc(ModelProfile))
    return "\n\n".join([doc, table(header, rows),
                        "Which profile a provider string gets (`chunker.config.profiles.profile_for`):",
                        table(["`--model`", "profile of"], which)])


def _attribute_docs(cls: type) -> dict[str, str]:
    """A dataclass's attribute docstrings (the string right after each field), read from its source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body
    docs = {}
    for stmt, nxt in zip(body, body[1:]):
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)):
            docs[stmt.target.id] = nxt.value.value
    return docs


def navigator() -> str:
    from chunker.navigation.settings import NavigatorSettings

    docs = _attribute_docs(NavigatorSettings)
    out = [paragraphs(inspect.getdoc(NavigatorSettings)), ""]
    for field in dataclasses.fields(NavigatorSettings):
        if field.default is not dataclasses.MISSING:
            default = code(repr(field.default))
        elif field.default_factory is not dataclasses.MISSING:
            default = code(repr(field.default_factory()))
        else:
            default = "required"
        out.append(_entry(f"navigator-{field.name}", field.name, None, type_name(field.type),
                          default, "", docs.get(field.name)))
    return "\n".join(out)
