"""JSON Schemas of the real service's components, for hypothesis-jsonschema.

The published documents are OpenAPI 3.0 (``nullable``, ``$ref`` into
``#/components/schemas``, ``readOnly``/``writeOnly``); hypothesis-jsonschema wants
plain, self-contained JSON Schema. This turns one into the other, so that the
tests generate what the real service may send rather than what our sandbox sends.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

# A copy of shared/spec/real-openapi, so the suite runs from any clone.
SPEC_DIR = Path(__file__).resolve().parents[1] / "data" / "real-openapi"
SURVEYS_FILE = "posthog-surveys-api-openapi.yml"
EXPORTS_FILE = "posthog-batch-exports-api-openapi.yml"

# Keys that only document, or that hypothesis-jsonschema does not know: dropped.
_DROP = {"description", "example", "readOnly", "title", "deprecated", "externalDocs", "discriminator", "xml"}
# The published schema marks these as required objects, but the real service sends null when no
# flag is set (the published schema is ambiguous there); generate both.
_SCALAR = {"type": ["string", "integer", "boolean", "null"]}
_REALLY_NULLABLE = {"linked_flag", "targeting_flag", "internal_targeting_flag"}
_UUID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


@cache
def _components(file: str) -> dict[str, Any]:
    with (SPEC_DIR / file).open(encoding="utf-8") as fh:
        document = yaml.safe_load(fh)
    schemas: dict[str, Any] = document["components"]["schemas"]
    return schemas


def _convert(node: Any, components: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_convert(item, components, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:  # no recursion in these components; guard anyway
            return {}
        return _convert(components[name], components, (*seen, name))
    out: dict[str, Any] = {}
    nullable = bool(node.get("nullable"))
    for key, value in node.items():
        if key in _DROP or key == "nullable":
            continue
        if key == "format" and value == "uuid":  # not a format jsonschema checks: as a pattern, as the service sends
            out["pattern"] = _UUID_PATTERN
            continue
        if key == "format" and value not in ("date-time", "date", "email", "uri"):
            continue  # int64, ...: not formats jsonschema checks; any string/integer will do
        if key == "properties":
            out[key] = {
                name: _convert(sub, components, seen)
                for name, sub in value.items()
                if not (isinstance(sub, dict) and sub.get("writeOnly"))
            }
            for name in _REALLY_NULLABLE & set(out[key]):
                out[key][name] = {"anyOf": [out[key][name], {"type": "null"}]}
            continue
        if key == "writeOnly":
            continue
        out[key] = _convert(value, components, seen)
    if "properties" in out and "additionalProperties" not in out:
        # unknown keys, as a newer server adds them; scalar values keep generation fast
        out["additionalProperties"] = _SCALAR
    if nullable:
        return {"anyOf": [out, {"type": "null"}]} if out else {}
    return out


def component(file: str, name: str) -> dict[str, Any]:
    """The named component schema, self-contained, as plain JSON Schema."""
    components = _components(file)
    converted: dict[str, Any] = _convert(components[name], components, (name,))
    return converted


# --------------------------------------------------------------------------- hypothesis-jsonschema compatibility
# hypothesis-jsonschema 0.23.1 (the latest release) drives Hypothesis' private ``cu.many`` with the
# old ``while elements.more(): ... elements.reject()`` protocol; Hypothesis 6.17x replaced it with a
# context manager and an iterator, so every object schema fails with "'many' object has no attribute
# 'more'". This adapter speaks the old protocol over the new class. Remove it once a fixed release exists.


class _ManyCompat:
    def __init__(self, data: Any, min_size: int, max_size: float, average_size: float) -> None:
        from hypothesis.internal.conjecture import utils as cu

        self._many = cu.many(data, min_size=min_size, max_size=max_size, average_size=average_size)
        self._many.__enter__()
        self._elements = iter(self._many)

    def more(self) -> bool:
        try:
            next(self._elements)
        except StopIteration:
            self._many.__exit__(None)
            return False
        return True

    def reject(self, why: str | None = None) -> None:
        self._many.reject(why)


def _install_many_compat() -> None:
    from types import SimpleNamespace

    from hypothesis.internal.conjecture import utils as cu
    from hypothesis_jsonschema import _from_schema

    if hasattr(cu.many, "more"):
        return  # an older Hypothesis: nothing to adapt
    shim = SimpleNamespace(**{name: getattr(cu, name) for name in dir(cu) if not name.startswith("__")})
    shim.many = _ManyCompat
    _from_schema.cu = shim  # type: ignore[attr-defined]


_install_many_compat()
