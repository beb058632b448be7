"""hierarchy.json's schema, from `chunker.output.hierarchy.Hierarchy`'s JSON Schema."""

from __future__ import annotations

import json

from chunker_docs.text import cell, code, paragraphs, table


def _type(spec: dict) -> str:
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#schema-{name.lower()})"
    if "anyOf" in spec:
        return " or ".join(_type(s) for s in spec["anyOf"])
    if "enum" in spec:
        return " or ".join(code(json.dumps(v)) for v in spec["enum"])
    if "const" in spec:
        return code(json.dumps(spec["const"]))
    kind = spec.get("type", "any")
    if kind == "array":
        if "prefixItems" in spec:
            return "[" + ", ".join(_type(s) for s in spec["prefixItems"]) + "]"
        return f"array of {_type(spec.get('items', {}))}"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"object of {_type(spec['additionalProperties'])}"
    return code(kind)


def _model(name: str, spec: dict, title: str) -> str:
    required = set(spec.get("required", ()))
    rows = []
    for prop, sub in spec.get("properties", {}).items():
        default = code(json.dumps(sub["default"])) if "default" in sub else ""
        rows.append([code(prop) + (" (required)" if prop in required else ""), _type(sub),
                     default, cell(sub.get("description", ""))])
    return "\n".join([f"(schema-{name.lower()})=", f"## {title}", "",
                      paragraphs(spec.get("description", "")), "",
                      table(["field", "type", "default", "meaning"], rows)])


def markdown() -> str:
    from chunker.output.hierarchy import Hierarchy

    schema = Hierarchy.model_json_schema()
    parts = [_model("hierarchy", schema, f"{code('Hierarchy')} (the file)")]
    parts += [_model(name, spec, code(name)) for name, spec in schema.get("$defs", {}).items()]
    return "\n\n".join(parts)
