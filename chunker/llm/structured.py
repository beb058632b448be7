"""JSON-schema structured output for chat models that decode straight to a schema.

LangChain's default `with_structured_output` needs tool calling. In-process models
(the scripted test model, llama.cpp) instead receive the JSON schema as a bound
`json_schema` argument, constrain their own decoding to it, and the text is parsed
here. Parsing is lenient about what small models get wrong without changing meaning:
code fences, text around the object, raw control characters inside strings.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel

_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


def parse_json_lenient(text: str) -> Any:
    """Parse the first JSON object in `text`; raises ValueError when there is none."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty answer")
    body = _FENCE.sub("", text.strip())
    start = body.find("{")
    if start < 0:
        raise ValueError("no JSON object in the answer")
    decoder = json.JSONDecoder(strict=False)  # strict=False admits raw control chars
    try:
        value, _ = decoder.raw_decode(body, start)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at char {exc.pos}") from exc
    return value


def parse_into(text: str, schema: type[BaseModel] | dict) -> Any:
    value = parse_json_lenient(text)
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_validate(value)
    return value


def schema_dict(schema: type[BaseModel] | dict) -> dict:
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    return dict(schema)


def structured_parser(schema: type[BaseModel] | dict, include_raw: bool):
    """What follows a structured call: the answer's text parsed into `schema`; with
    `include_raw`, `{raw, parsed, parsing_error}` and never an exception (the caller decides:
    repair, then fallback)."""
    def parse(message: AIMessage) -> Any:
        return parse_into(message_text(message), schema)

    def parse_with_raw(message: AIMessage) -> dict:
        try:
            return {"raw": message, "parsed": parse(message), "parsing_error": None}
        except Exception as exc:
            return {"raw": message, "parsed": None, "parsing_error": exc}

    return parse_with_raw if include_raw else parse


class JsonSchemaChatModel(BaseChatModel):
    """Base class: `with_structured_output` binds `json_schema=...` and parses the text."""

    def with_structured_output(
        self, schema: type[BaseModel] | dict, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable:
        bound = self.bind(json_schema=schema_dict(schema))
        return bound | RunnableLambda(structured_parser(schema, include_raw))


def message_text(message: AIMessage) -> str:
    """A message's text, the text parts joined when the content is multi-part."""
    return content_text(message.content)


def content_text(content: str | list) -> str:
    if isinstance(content, list):
        return "".join(part if isinstance(part, str) else part.get("text", "") for part in content)
    return content
