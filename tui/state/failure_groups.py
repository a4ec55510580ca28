"""Failing runs of every watched export, grouped by what went wrong.

In an outage forty exports fail with forty slightly different messages (another
request id, another timestamp, another bucket name); the signature of an error
is its text with those parts stripped, so the forty read as one cause. Only
intervals whose latest attempt failed count: a repaired interval leaves its group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from tui.api.models.batch_exports import BatchExportRun
from tui.state.intervals import is_failed, latest_attempts
from tui.text.clean import clean
from tui.text.words import counted

PLACEHOLDER = "…"
SIGNATURE_LIMIT = 160

# Order matters: whole timestamps and uuids go before the numbers inside them would be stripped one by one.
_STRIPPERS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"),  # times
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b"),  # clock times
    re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),  # uuids
    re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|‘[^’\n]*’|“[^”\n]*”"),  # quoted values
    re.compile(r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b"),  # hex ids
    re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{10,}\b"),  # request ids and the like
    re.compile(r"(?<![A-Za-z])\d+(?:[.,]\d+)*"),  # numbers (not the 3 of "S3")
)
_RUNS_OF_PLACEHOLDERS = re.compile(r"…(?:[\s,:/._-]*…)+")
_SPACES = re.compile(r"\s+")


def _compute_signature(error: str) -> str:
    # Cleaned first: stripping the digits of ``ESC[2J`` would leave ``[…J`` in the signature.
    error = clean(error, oneline=False, limit=None).strip()
    text = error.splitlines()[0] if error else ""
    for pattern in _STRIPPERS:
        text = pattern.sub(PLACEHOLDER, text)
    text = _RUNS_OF_PLACEHOLDERS.sub(PLACEHOLDER, text)
    text = _SPACES.sub(" ", text).strip()
    if len(text) > SIGNATURE_LIMIT:
        text = text[: SIGNATURE_LIMIT - 1] + PLACEHOLDER
    return text or "no error message"


def error_signature(error: str | None, known: Mapping[str, str] | None = None) -> str:
    """The error with numbers, ids, times and quoted values replaced by ``…`` (first line only).

    ``known``: signatures already worked out, by message (an export's previous grouping: in an outage each poll
    groups the same messages again). Nothing is remembered here, so nothing grows with the messages seen.
    """
    if not error:
        return "no error message"
    found = known.get(error) if known is not None else None
    return found if found is not None else _compute_signature(error)


def clock_time(moment: datetime, today: date | None = None) -> str:
    """``09:10`` on ``today`` (or when no day is given), ``11-21 09:10`` on another day."""
    return f"{moment:%H:%M}" if today is None or moment.date() == today else f"{moment:%m-%d %H:%M}"


@dataclass(frozen=True)
class FailedRun:
    """One interval whose latest attempt failed, with its signature worked out once."""

    export_key: str
    run: BatchExportRun
    signature: str = ""
    when: datetime | None = None


@dataclass
class SignaturePart:
    """One export's failed intervals of one signature, summed up once while that export's runs do not change."""

    runs: list[FailedRun] = field(default_factory=list)
    first: datetime | None = None
    last: datetime | None = None
    sample_error: str = ""


@dataclass
class FailureGroup:
    """Runs that failed for one reason, across exports."""

    signature: str
    sample_error: str
    runs: list[FailedRun] = field(default_factory=list)
    export_keys: list[str] = field(default_factory=list)
    first: datetime | None = None
    last: datetime | None = None

    @property
    def run_count(self) -> int:
        return len(self.runs)

    @property
    def export_count(self) -> int:
        return len(self.export_keys)

    def summary(self, today: date | None = None) -> str:
        """``12 runs in 3 exports, first 09:10, last 11:40`` (with the day when it is not ``today``)."""
        runs = counted(self.run_count, "run")
        exports = counted(self.export_count, "export")
        parts = [f"{runs} in {exports}"]
        if self.first is not None:
            parts.append(f"first {clock_time(self.first, today)}")
        if self.last is not None:
            parts.append(f"last {clock_time(self.last, today)}")
        return ", ".join(parts)

    @property
    def first_interval(self) -> datetime | None:
        """Where the group's oldest failed interval begins: a group repair's window starts there by default."""
        starts = [r.run.data_interval_start or r.run.data_interval_end for r in self.runs]
        found = [s for s in starts if s is not None]
        return min(found) if found else None

    def runs_of(self, export_key: str) -> list[BatchExportRun]:
        return [failed.run for failed in self.runs if failed.export_key == export_key]


def _when(run: BatchExportRun) -> datetime | None:
    return run.finished_at or run.last_updated_at or run.created_at or run.data_interval_end


def known_signatures(parts: Mapping[str, SignaturePart]) -> dict[str, str]:
    """The signature of each message in an export's parts (for :func:`export_failures` when its runs change)."""
    return {failed.run.latest_error: failed.signature for part in parts.values() for failed in part.runs
            if failed.run.latest_error}


def export_failures(key: str, runs: Sequence[BatchExportRun],
                    known: Mapping[str, str] | None = None) -> dict[str, SignaturePart]:
    """One export's still-failed intervals by signature (callers cache this while its runs do not change, and
    pass the signatures of its previous parts as ``known``)."""
    parts: dict[str, SignaturePart] = {}
    for run in latest_attempts(runs):
        if not is_failed(run.status):
            continue
        signature = error_signature(run.latest_error, known)
        when = _when(run)
        part = parts.get(signature)
        if part is None:
            part = parts[signature] = SignaturePart(sample_error=run.latest_error or "")
        part.runs.append(FailedRun(key, run, signature, when))
        if when is not None:
            if part.first is None or when < part.first:
                part.first = when
            if part.last is None or when > part.last:
                part.last = when
                part.sample_error = run.latest_error or ""
    return parts


def build_groups(parts_by_export: Mapping[str, Mapping[str, SignaturePart]],
                 order: Iterable[str] | None = None) -> list[FailureGroup]:
    """Groups from each export's parts, the one failing most recently first (:func:`newest_first`).

    ``order`` lists the export keys in the table's order, so a group's exports are listed as the table shows them.
    Merging works per export and signature, not per run: a poll re-groups 10,000 runs in a few hundred steps.
    """
    groups: dict[str, FailureGroup] = {}
    for key in (order if order is not None else parts_by_export):
        for signature, part in parts_by_export.get(key, {}).items():
            group = groups.get(signature)
            if group is None:
                group = groups[signature] = FailureGroup(signature, part.sample_error)
            group.runs.extend(part.runs)
            group.export_keys.append(key)
            if part.first is not None and (group.first is None or part.first < group.first):
                group.first = part.first
            if part.last is not None and (group.last is None or part.last > group.last):
                group.last = part.last
                group.sample_error = part.sample_error
    return newest_first(groups.values())


def newest_first(groups: Iterable[FailureGroup]) -> list[FailureGroup]:
    """The group failing most recently first, so a live cause ranks above an older, larger one; then the biggest."""
    return sorted(groups, key=lambda g: (-(g.last.timestamp() if g.last else float("-inf")), -g.run_count,
                                         g.signature))


def failing_since(groups: Iterable[FailureGroup], since: datetime | None) -> list[FailureGroup]:
    """The groups with only the runs that failed at or after ``since`` (all of them when None); empty groups go."""
    if since is None:
        return list(groups)
    kept: list[FailureGroup] = []
    for group in groups:
        runs = [failed for failed in group.runs if failed.when is None or failed.when >= since]
        if not runs:
            continue
        times = [failed.when for failed in runs if failed.when is not None]
        newest = max(runs, key=lambda failed: failed.when or since)
        keys = list(dict.fromkeys(failed.export_key for failed in runs))
        kept.append(FailureGroup(group.signature, newest.run.latest_error or group.sample_error, runs, keys,
                                 min(times) if times else None, max(times) if times else None))
    return newest_first(kept)


def group_failures(runs_by_export: Mapping[str, Sequence[BatchExportRun]],
                   order: Iterable[str] | None = None) -> list[FailureGroup]:
    """Groups of still-failed intervals across exports (no caching: see :class:`tui.state.incident.IncidentDesk`)."""
    return build_groups({key: export_failures(key, runs) for key, runs in runs_by_export.items()}, order)
