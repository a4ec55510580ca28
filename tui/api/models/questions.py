"""Survey questions and their branching: one model per kind, an unknown kind kept verbatim."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Field, PrivateAttr, Tag, TypeAdapter, ValidationError

from tui.api.models.common import ReadModel, describe_validation_error


class QuestionType(StrEnum):
    OPEN = "open"
    LINK = "link"
    RATING = "rating"
    SINGLE_CHOICE = "single_choice"
    MULTIPLE_CHOICE = "multiple_choice"


class BranchingType(StrEnum):
    NEXT_QUESTION = "next_question"
    END = "end"
    RESPONSE_BASED = "response_based"
    SPECIFIC_QUESTION = "specific_question"


class NextQuestionBranching(ReadModel):
    type: Literal["next_question"] = "next_question"


class EndBranching(ReadModel):
    type: Literal["end"] = "end"


class ResponseBasedBranching(ReadModel):
    type: Literal["response_based"] = "response_based"
    # response key -> question index, or "end"
    responseValues: dict[str, int | str] = Field(default_factory=dict)


class SpecificQuestionBranching(ReadModel):
    type: Literal["specific_question"] = "specific_question"
    index: int


class UnknownBranching(ReadModel):
    """A branching kind this version does not know; kept verbatim."""

    type: str


def _branching_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    # isinstance first: an unhashable ``type`` (a list) must not raise TypeError out of validation
    return kind if isinstance(kind, str) and kind in BranchingType._value2member_map_ else "unknown"


Branching = Annotated[
    Annotated[NextQuestionBranching, Tag("next_question")]
    | Annotated[EndBranching, Tag("end")]
    | Annotated[ResponseBasedBranching, Tag("response_based")]
    | Annotated[SpecificQuestionBranching, Tag("specific_question")]
    | Annotated[UnknownBranching, Tag("unknown")],
    Discriminator(_branching_tag),
]


class QuestionBase(ReadModel):
    """Fields common to every question kind (spec 2.4)."""

    type: str
    question: str = ""
    id: str | None = None  # the real service attaches responses to it: never drop it
    description: str | None = None
    descriptionContentType: str | None = None
    optional: bool | None = None
    buttonText: str | None = None
    branching: Branching | None = None


class OpenQuestion(QuestionBase):
    type: Literal["open"] = "open"


class LinkQuestion(QuestionBase):
    type: Literal["link"] = "link"
    link: str | None = None


class RatingQuestion(QuestionBase):
    type: Literal["rating"] = "rating"
    display: str | None = None
    scale: int | None = None
    lowerBoundLabel: str | None = None
    upperBoundLabel: str | None = None


class ChoiceQuestion(QuestionBase):
    """single_choice and multiple_choice share one model (spec 2.4)."""

    type: Literal["single_choice", "multiple_choice"] = "single_choice"
    choices: list[str] = Field(default_factory=list)
    shuffleOptions: bool | None = None
    hasOpenChoice: bool | None = None


class UnknownQuestion(QuestionBase):
    """A question kind this version does not know; kept verbatim."""


class InvalidQuestion(UnknownQuestion):
    """A question that could not be read as any kind (e.g. a rating whose ``scale`` is text).

    The published schema types ``questions`` as any JSON, so one malformed question
    must not hide the whole survey: it fails alone, like a bad item of a page.
    Every field is kept as it came (typed ``Any``) so that sending the survey back
    loses nothing; ``problem`` says what was wrong, for the screen. A subclass of
    :class:`UnknownQuestion` so screens treat it as "not editable here".
    """

    type: Any = ""
    question: Any = ""
    id: Any = None
    description: Any = None
    descriptionContentType: Any = None
    optional: Any = None
    buttonText: Any = None
    branching: Any = None
    _problem: str = PrivateAttr(default="")

    @property
    def problem(self) -> str:
        return self._problem

    @classmethod
    def from_raw(cls, raw: Any, problem: str) -> InvalidQuestion:
        """Keep a dict as it came; anything else (a bare string, a number) under ``value``."""
        made = cls.model_validate(raw if isinstance(raw, Mapping) else {"value": raw})
        made._problem = problem
        return made


def _question_tag(value: Any) -> str:
    if isinstance(value, InvalidQuestion):  # only ever an instance: dumping routes it to its own all-Any schema
        return "invalid"
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    if not isinstance(kind, str):
        return "unknown"
    if kind in ("single_choice", "multiple_choice"):
        return "choice"
    return kind if kind in ("open", "link", "rating") else "unknown"


Question = Annotated[
    Annotated[OpenQuestion, Tag("open")]
    | Annotated[LinkQuestion, Tag("link")]
    | Annotated[RatingQuestion, Tag("rating")]
    | Annotated[ChoiceQuestion, Tag("choice")]
    | Annotated[UnknownQuestion, Tag("unknown")]
    | Annotated[InvalidQuestion, Tag("invalid")],
    Discriminator(_question_tag),
]


QuestionAdapter: TypeAdapter[Question] = TypeAdapter(Question, config=ConfigDict(defer_build=True))


BranchingAdapter: TypeAdapter[Branching] = TypeAdapter(Branching, config=ConfigDict(defer_build=True))


def read_question(raw: Any) -> QuestionBase:
    """One question as its kind's model, or an :class:`InvalidQuestion` holding it verbatim; never raises."""
    if isinstance(raw, QuestionBase):
        return raw
    try:
        return QuestionAdapter.validate_python(raw)
    except ValidationError as err:
        return InvalidQuestion.from_raw(raw, describe_validation_error(err))
