"""hierarchy.json's and run.json's schemas, from their pydantic models' JSON Schemas
(`chunker.output.hierarchy.Hierarchy`, `chunker.runs.record.RunRecord`)."""

from __future__ import annotations

import json

from chunker_docs.text import cell, code, paragraphs, table


def _type(spec: dict, prefix: str = "schema") -> str:
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{prefix}-{name.lower()})"
    if "anyOf" in spec or "oneOf" in spec:
        return " or ".join(_type(s, prefix) for s in spec.get("anyOf") or spec["oneOf"])
    if "enum" in spec:
        return " or ".join(code(json.dumps(v)) for v in spec["enum"])
    if "const" in spec:
        return code(json.dumps(spec["const"]))
    kind = spec.get("type", "any")
    if kind == "array":
        if "prefixItems" in spec:
            return "[" + ", ".join(_type(s, prefix) for s in spec["prefixItems"]) + "]"
        return f"array of {_type(spec.get('items', {}), prefix)}"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"object of {_type(spec['additionalProperties'], prefix)}"
    return code(kind)


def _model(name: str, spec: dict, title: str, prefix: str = "schema") -> str:
    required = set(spec.get("required", ()))
    rows = []
    for prop, sub in spec.get("properties", {}).items():
        default = code(json.dumps(sub["default"])) if "default" in sub else ""
        rows.append([code(prop) + (" (required)" if prop in required else ""), _type(sub, prefix),
                     default, cell(sub.get("description", ""))])
    return "\n".join([f"({prefix}-{name.lower()})=", f"## {title}", "",
                      paragraphs(spec.get("description", "")), "",
                      table(["field", "type", "default", "meaning"], rows)])


def markdown() -> str:
    from chunker.output.hierarchy import Hierarchy

    schema = Hierarchy.model_json_schema()
    parts = [_model("hierarchy", schema, f"{code('Hierarchy')} (the file)")]
    parts += [_model(name, spec, code(name)) for name, spec in schema.get("$defs", {}).items()]
    return "\n\n".join(parts)


def run_record() -> str:
    """run.json: a `DocumentRun` or a `CorpusRun` (by `kind`) and the parts they hold."""
    from chunker.runs.record import json_schema

    schema = json_schema()
    kinds = ", ".join(_type(s, "run") for s in schema.get("oneOf", ()))
    head = f"run.json holds one of {kinds}, told apart by `kind`."
    return "\n\n".join([head, *(_model(name, spec, code(name), "run")
                                  for name, spec in schema.get("$defs", {}).items())])
