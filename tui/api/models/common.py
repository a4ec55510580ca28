"""What every model read from the server shares: the base model, times, and pages with their bad items.

Reading is tolerant (see :mod:`tui.api.models`): a malformed item in a list fails that item only
(:func:`parse_items`). An id that names an object in a path is typed by its kind (:data:`SurveyId` and the
like): in an answer (read with :data:`ANSWER`, as :func:`parse_items` and the client read every answer), one
of another shape makes its item a bad item (:mod:`tui.api.ids`). Models made here (a local draft, a test's
fixture) keep the ids they are given: no id reaches a path without :mod:`tui.api.urls` checking it again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo

from tui.api.ids import IdKind, id_problem


def _to_aware(value: Any) -> Any:
    """Accept ISO strings with or without a zone; a naive time is taken as UTC.

    The first branch is the common case, and fast: a 200-export poll reads ~11,000 of them.
    """
    if type(value) is str:
        try:
            parsed = datetime.fromisoformat(value)  # reads a trailing Z too
        except ValueError:
            pass
        else:
            return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.fromisoformat(text)
        except ValueError as err:
            raise ValueError(f"not an ISO 8601 date-time: {value!r}") from err
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


Timestamp = Annotated[datetime | None, BeforeValidator(_to_aware)]


def _object_or_none(value: Any) -> Any:
    """The published schema allows any JSON in some object fields (``destination.config``, ``schema``).

    The real serializers always send an object or null; anything else is read as
    "not given" rather than failing the whole export over a field no screen edits.
    """
    return value if isinstance(value, Mapping) else None


JsonObject = Annotated[dict[str, Any] | None, BeforeValidator(_object_or_none)]


ANSWER: dict[str, Any] = {"answer": True}
"""The validation context of what a server answered: its ids are checked for the service's shape."""


def _shaped(kind: IdKind) -> Callable[[Any, ValidationInfo], Any]:
    def check(value: Any, info: ValidationInfo) -> Any:
        if not (isinstance(info.context, Mapping) and info.context.get("answer")):
            return value
        problem = id_problem(kind, str(value) if isinstance(value, int) else value)
        if problem is not None:
            raise ValueError(problem)
        return value

    return check


SurveyId = Annotated[str, AfterValidator(_shaped("survey"))]
ExportId = Annotated[str, AfterValidator(_shaped("export"))]
RunId = Annotated[str, AfterValidator(_shaped("run"))]
BackfillId = Annotated[str, AfterValidator(_shaped("backfill"))]
ProjectId = Annotated[int | str, AfterValidator(_shaped("project"))]


class ReadModel(BaseModel):
    """Base of every model read from the server: keeps unknown fields."""

    # defer_build: a model is built on first use, so start-up does not pay for the survey models
    # while the monitor only reads exports.
    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=(), defer_build=True)

    @property
    def extra_fields(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})


T = TypeVar("T", bound=BaseModel)


class ItemError(BaseModel):
    """One list item that did not parse; the rest of the page still shows."""

    index: int
    id: str | None = None
    message: str


class Page(BaseModel, Generic[T]):
    """A page of a list: limit/offset (count), cursor (no count) or page-number (total_count)."""

    count: int | None = None
    next: str | None = None
    previous: str | None = None
    results: list[T] = Field(default_factory=list)
    errors: list[ItemError] = Field(default_factory=list)


def describe_validation_error(err: ValidationError) -> str:
    """One line naming the first bad field, for an operator rather than a developer."""
    first = err.errors()[0] if err.errors() else None
    if first is None:
        return "invalid object"
    loc = ".".join(str(part) for part in first.get("loc", ()))
    return f"{loc or 'object'}: {first.get('msg', 'invalid')}"


def read_answer(model: type[T], data: Any) -> T:
    """``model`` from what a server answered (ids checked: :data:`ANSWER`)."""
    return model.model_validate(data, context=ANSWER)


def parse_items(items: Iterable[Any], model: type[T] | Callable[[Any], T]) -> tuple[list[T], list[ItemError]]:
    """Validate each item of an answer on its own, so one malformed item (an id of another shape too) fails alone."""
    validate: Callable[[Any], T] = (
        partial(model.model_validate, context=ANSWER)  # type: ignore[assignment]
        if isinstance(model, type) and issubclass(model, BaseModel) else model
    )
    good: list[T] = []
    bad: list[ItemError] = []
    for index, raw in enumerate(items):
        try:
            good.append(validate(raw))
        except ValidationError as err:
            item_id = raw.get("id") if isinstance(raw, Mapping) else None
            bad.append(ItemError(index=index, id=str(item_id) if item_id is not None else None,
                                 message=describe_validation_error(err)))
    return good, bad


def parse_page(data: Any, model: type[T]) -> Page[T]:
    """Read any of the three list envelopes (or a bare list) into a :class:`Page`."""
    if isinstance(data, list):
        items, errors = parse_items(data, model)
        return Page[model](count=len(data), results=items, errors=errors)  # type: ignore[valid-type]
    if not isinstance(data, Mapping):
        raise ValueError("expected a JSON object with results")
    raw_results = data.get("results")
    if not isinstance(raw_results, list):
        raise ValueError("the response has no results list")
    items, errors = parse_items(raw_results, model)
    count = data.get("count", data.get("total_count"))
    return Page[model](  # type: ignore[valid-type]
        count=count if isinstance(count, int) else None,
        next=data.get("next") if isinstance(data.get("next"), str) else None,
        previous=data.get("previous") if isinstance(data.get("previous"), str) else None,
        results=items,
        errors=errors,
    )
