"""A JSON Schema of the source format, for editors (`lmsexport schema`).

Generated from sourcespec.py, the definition the loader checks keys against, so the schema and
the loader cannot drift apart. It checks shape (which keys, which kinds of values, which enum
values) and carries each key's documentation as the editor's hover text; what only the whole
bank can tell (unique ids, pools that resolve) stays with `lmsexport check`.

JSON Schema draft-07: what the YAML language server of VS Code (redhat.vscode-yaml) implements
fully. A text value accepts a string, a number or a boolean, because the loader takes any scalar
as text (`text: 16` is "16"); only null, lists and mappings are refused.
"""

from __future__ import annotations

import json
from typing import Any

from . import __version__
from . import sourcespec as spec
from .model import QuestionType

SCHEMA_ID = "https://lmsexport.invalid/schema/source.schema.json"
"""A stable identifier, not a location: the schema is served by `lmsexport schema`, never fetched."""


def _value(v: spec.Value) -> dict[str, Any]:
    kind = v.kind
    if kind in ("text", "rich"):
        # a text has a character that is not white space (a string; other scalars always do)
        out: dict[str, Any] = {"type": ["string", "number", "boolean"], "pattern": "\\S"}
        if v.max_len:
            out["maxLength"] = v.max_len
        if kind == "rich":
            out["description"] = "Plain text, or Markdown in a file with `markup: markdown`."
        return out
    if kind == "id":
        return {"type": "string", "pattern": spec.ID_PATTERN}
    if kind == "lang":
        return {
            "type": "string",
            "minLength": 1,
            "maxLength": 35,
            "pattern": r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$",
        }
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "number":
        out = {"type": "number"}
        if v.positive:
            out["exclusiveMinimum"] = 0
        if v.non_negative:
            out["minimum"] = 0
        if v.minimum is not None:
            out["minimum"] = v.minimum
        if v.maximum is not None:
            out["maximum"] = v.maximum
        return out
    if kind == "credit":
        # a number, or a percent text such as "50%" or "-33.33333%"
        number: dict[str, Any] = {"type": "number"}
        sign = "-?"
        if v.minimum is not None:
            number["minimum"] = v.minimum
            sign = "-?" if v.minimum < 0 else ""
        if v.maximum is not None:
            number["maximum"] = v.maximum
        percent = {"type": "string", "pattern": rf"^\s*[+]?{sign}(\d+(\.\d*)?|\.\d+)\s*%\s*$"}
        return {"anyOf": [number, percent]}
    if kind == "count":
        out = {"type": "integer", "minimum": 1}
        if v.maximum is not None:
            out["maximum"] = int(v.maximum)
        return out
    if kind == "whole":
        out = {"type": "integer", "minimum": int(v.minimum or 0)}
        if v.maximum is not None:
            out["maximum"] = int(v.maximum)
        return out
    if kind == "formula":
        # a formula is a text or a bare number (`answer: 42`); the loader parses it
        out = {"type": ["string", "number"], "pattern": "\\S"}
        if v.max_len:
            out["maxLength"] = v.max_len
        out["description"] = "A formula (docs/formulas.md): numbers, variables, + - * / ^, functions."
        return out
    if kind == "tolerance":
        return {
            "anyOf": [
                {"type": "number", "minimum": 0},
                {"type": "string", "pattern": r"^\s*(\d+(\.\d*)?|\.\d+)\s*%\s*$"},
            ]
        }
    if kind == "names":
        assert v.item is not None
        return {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": spec.VARIABLE_NAME_PATTERN},
            "additionalProperties": _value(v.item),
        }
    if kind == "list-or-map":
        assert v.item is not None
        return {
            "anyOf": [
                {"type": "array", "items": _value(v.item), "minItems": 1},
                {"$ref": f"#/definitions/{v.ref}"},
            ]
        }
    if kind == "count-or-list":
        assert v.item is not None
        count: dict[str, Any] = {"type": "integer", "minimum": 1}
        if v.maximum is not None:
            count["maximum"] = int(v.maximum)
        return {"anyOf": [count, {"type": "array", "items": _value(v.item), "minItems": 1}]}
    if kind == "enum":
        return {"enum": list(v.values)}
    if kind == "range":
        return {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
    if kind == "list":
        assert v.item is not None
        out = {"type": "array", "items": _value(v.item)}
        if v.min_items:
            out["minItems"] = v.min_items
        return out
    if kind == "one-or-list":
        assert v.item is not None
        one = _value(v.item)
        return {"anyOf": [one, {"type": "array", "items": one, "minItems": 1}]}
    if kind == "map":
        return {"$ref": f"#/definitions/{v.ref}"}
    if kind == "text-or-map":
        assert v.item is not None
        return {"anyOf": [_value(v.item), {"$ref": f"#/definitions/{v.ref}"}]}
    raise AssertionError(f"unknown value kind {kind}")


def _mapping(m: spec.Mapping) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for k in m.keys:
        prop = _value(k.value)
        prop["description"] = k.doc
        props[k.name] = prop
    out: dict[str, Any] = {
        "type": "object",
        "description": m.doc,
        "properties": props,
        "additionalProperties": False,
    }
    if m.required:
        out["required"] = list(m.required)
    if m.any_of:
        out["anyOf"] = [{"required": list(keys)} for keys in m.any_of]
    if m.exclusive:
        out["not"] = {"anyOf": [{"required": list(pair)} for pair in m.exclusive]}
    return out


def _question() -> dict[str, Any]:
    """One question: the common keys, then, by `type` (single when absent), its own keys only."""
    cases = []
    for qtype in QuestionType:
        m = spec.QUESTIONS[qtype]
        shape = _mapping(m)
        test: dict[str, Any] = {"properties": {"type": {"const": qtype.value}}, "required": ["type"]}
        if qtype is QuestionType.SINGLE:
            test = {"not": {"required": ["type"]}}
            cases.append({"if": test, "then": shape})
            test = {"properties": {"type": {"const": qtype.value}}, "required": ["type"]}
        cases.append({"if": test, "then": shape})
    common = {k.name: {**_value(k.value), "description": k.doc} for k in spec.COMMON_QUESTION}
    return {
        "type": "object",
        "description": "A question; its type decides which keys it has besides the common ones.",
        "properties": common,
        "required": [k.name for k in spec.COMMON_QUESTION if k.required],
        "allOf": cases,
    }


def _blank() -> dict[str, Any]:
    """One blank of a cloze question: by its (required) `type`, that type's keys only."""
    cases = []
    for kind, m in spec.BLANKS.items():
        test = {"properties": {"type": {"const": kind}}, "required": ["type"]}
        cases.append({"if": test, "then": _mapping(m)})
    common = {k.name: {**_value(k.value), "description": k.doc} for k in spec.BLANK_COMMON}
    return {
        "type": "object",
        "description": "A blank of a cloze question, written [[n]] in its stem; its type decides its keys.",
        "properties": common,
        "required": [k.name for k in spec.BLANK_COMMON if k.required],
        "allOf": cases,
    }


def schema() -> dict[str, Any]:
    """The whole schema: a file is an assessment when it has `sections` and no `questions`."""
    definitions = {name: _mapping(m) for name, m in spec.MAPPINGS.items()}
    definitions["question"] = _question()
    definitions["blank"] = _blank()
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": f"lmsexport source file (lmsexport {__version__})",
        "description": "A quiz (with questions) or an assessment (with sections drawing from the bank).",
        "if": {"required": ["sections"], "not": {"required": ["questions"]}},
        "then": {"$ref": "#/definitions/assessment"},
        "else": {"$ref": "#/definitions/quiz"},
        "definitions": definitions,
    }


def schema_text() -> str:
    """The schema as `lmsexport schema` prints it: stable JSON, UTF-8, sorted definitions."""
    return json.dumps(schema(), ensure_ascii=False, indent=2) + "\n"
