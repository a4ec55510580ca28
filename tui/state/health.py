"""The one judge of a batch export's health, at one moment of the server's time.

The monitor's cells, its alerts and ``watchdeck status`` all ask :func:`judge`
and nothing else decides health, so they cannot disagree. The verdict is a
frozen :class:`Verdict`: a state, a reason in words and numbers, the lag, the
next due run, the latest run and the failure streak.

Run statuses fall in the real service's own groups (its run-status filter,
``STATUS_TO_GROUP`` in PostHog's
``frontend/src/scenes/data-pipelines/batch-exports/utils.ts``):

* running: Starting, Running, ContinuedAsNew;
* completed: Completed;
* failed: Failed, FailedRetryable, FailedBilling (a retryable failure is still
  a failed run: the interval's data did not arrive);
* cancelled: Cancelled, Terminated, TimedOut. The service files timed-out and
  terminated runs with the cancelled ones, so they are not "failing" here
  either; an export whose runs keep timing out exports no data, and that shows
  as overdue once the allowed lag has passed.

Which state wins when several hold (first match):

1. ``paused``: pausing is how an operator quiets an export, so a paused
   export is never failing nor overdue; its reason says where its last run
   failed (the service also pauses exports that keep failing);
2. ``failing``: the latest run is in the failed group (an ended export included);
3. ``ended`` (its ``end_at`` has passed): never overdue;
4. ``overdue``: no Completed data for longer than its freshness target where the
   profile sets one (``[profiles.NAME.freshness]``, by export id or name), else
   ``lag_intervals`` intervals plus ``grace`` (where no Completed run is known and
   the runs known stop inside the outage, the lag is a lower bound, from the
   oldest known run's interval start (:func:`streak_record`); an export whose
   whole record holds no Completed run counts from its ``start_at``, else its
   creation; one that has not started is never overdue);
5. ``no runs``; 6. ``running``; 7. ``unknown status`` (a status this version
   does not know); 8. ``ok``.

"Now" is the server's now (:mod:`tui.state.server_time`): ages and lags never
go negative, whatever this machine's clock says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from tui.api.models.batch_exports import BatchExport, BatchExportRun, RunStatus
from tui.text.words import coarse_duration as span  # the numbers of a reason: the one duration format
from tui.text.words import duration

DEFAULT_LAG_INTERVALS = 2.0
DEFAULT_GRACE_SECONDS = 600.0
LATEST_RUNS_SIZE = 10  # the server's ``latest_runs`` holds the ten newest runs
# Reading an export's runs list for its verdict pages back until the runs read reach this many allowed lags
# (then asks for the last Completed run alone); a record read back a week (the list's own window) is enough.
RECORD_MARGIN = 3.0
RECORD_WINDOW = timedelta(days=7)

RUNNING_GROUP = frozenset({RunStatus.STARTING, RunStatus.RUNNING, RunStatus.CONTINUED_AS_NEW})
COMPLETED_GROUP = frozenset({RunStatus.COMPLETED})
FAILED_GROUP = frozenset({RunStatus.FAILED, RunStatus.FAILED_RETRYABLE, RunStatus.FAILED_BILLING})
CANCELLED_GROUP = frozenset({RunStatus.CANCELLED, RunStatus.TERMINATED, RunStatus.TIMED_OUT})
KNOWN_STATUSES = frozenset(s.value for s in RunStatus)

# What the screens need of an answer; one without them is a bad item, not data.
EXPORT_REQUIRED_FIELDS = ("id", "name", "interval", "paused")
RUN_REQUIRED_FIELDS = ("id", "status")


class HealthState(StrEnum):
    OK = "ok"
    RUNNING = "running"
    FAILING = "failing"
    OVERDUE = "overdue"
    PAUSED = "paused"
    ENDED = "ended"
    NO_RUNS = "no runs"
    UNKNOWN_STATUS = "unknown status"


UNHEALTHY_STATES = frozenset({HealthState.FAILING, HealthState.OVERDUE})


@dataclass(frozen=True)
class Verdict:
    """What :func:`judge` decided about one export at ``judged_at`` (server time)."""

    state: HealthState
    reason: str
    judged_at: datetime
    latest_run: BatchExportRun | None
    failure_streak: int
    lag_seconds: float | None  # since the end of the newest Completed interval; never negative
    allowed_lag_seconds: float | None  # the freshness target, else intervals plus grace; None without either
    last_completed_end: datetime | None
    next_due: datetime | None  # None when paused, ended or the interval is unknown
    rule: str = ""  # which overdue rule applied, in words: "freshness target 2h", "2 intervals + 10m grace"
    # The runs known do not settle the verdict: no Completed run among them, or the failure streak reaches the
    # oldest of them; the export's runs list should be read further back (``needs_record``).
    record_short: bool = False
    # Where the runs known do not reach the streak's start or the last Completed run, the figures are bounds:
    # the streak is at least ``failure_streak`` long, the data at least ``lag_seconds`` old (:func:`streak_record`).
    failure_streak_is_lower_bound: bool = False
    lag_is_lower_bound: bool = False
    streak_start: datetime | None = None  # where the oldest failed interval of the streak known begins

    @property
    def unhealthy(self) -> bool:
        """Failing or overdue: what makes ``status`` exit 1 and the monitor count a problem."""
        return self.state in UNHEALTHY_STATES

    @property
    def failing(self) -> bool:
        return self.state is HealthState.FAILING

    @property
    def overdue(self) -> bool:
        return self.state is HealthState.OVERDUE

    @property
    def latest_age_seconds(self) -> float | None:
        """Since the latest run last did something (finished, updated or was created); never negative."""
        when = run_activity_time(self.latest_run) if self.latest_run is not None else None
        return None if when is None else age_seconds(when, self.judged_at)


# --------------------------------------------------------------------------- runs


def status_group(status: str) -> str:
    """``running``, ``completed``, ``failed``, ``cancelled`` or ``unknown``, as the service groups them."""
    if status in RUNNING_GROUP:
        return "running"
    if status in COMPLETED_GROUP:
        return "completed"
    if status in FAILED_GROUP:
        return "failed"
    if status in CANCELLED_GROUP:
        return "cancelled"
    return "unknown"


def is_failed(status: str | None) -> bool:
    return status in FAILED_GROUP


def _ts(value: datetime | None) -> float:
    return value.timestamp() if value is not None else float("-inf")


def run_created(run: BatchExportRun) -> datetime | None:
    """The time the runs list orders and filters by (creation), or the nearest stamp the run carries."""
    return run.created_at or run.last_updated_at or run.finished_at or run.data_interval_end


def run_order_key(run: BatchExportRun) -> tuple[float, float, str]:
    """The one ordering of runs: creation (or, missing that, the first time the run carries), then interval end.

    The latest run is the last thing that happened, so a retry of an old
    interval created now is newer than the scheduled run of the hour before.
    """
    created = run.created_at or run.last_updated_at or run.finished_at or run.data_interval_end
    return (_ts(created), _ts(run.data_interval_end), run.id)


def runs_newest_first(runs: Iterable[BatchExportRun]) -> list[BatchExportRun]:
    """Runs by :func:`run_order_key`, newest first, one per id (the list answer and the runs page overlap)."""
    unique: dict[str, BatchExportRun] = {}
    for run in runs:
        unique.setdefault(run.id, run)
    return sorted(unique.values(), key=run_order_key, reverse=True)


def latest_run(runs: Iterable[BatchExportRun]) -> BatchExportRun | None:
    ordered = runs_newest_first(runs)
    return ordered[0] if ordered else None


def run_activity_time(run: BatchExportRun) -> datetime | None:
    """When the run last did something: for "last run 3m ago"."""
    return run.finished_at or run.last_updated_at or run.created_at


def failure_streak(newest_first: Sequence[BatchExportRun]) -> int:
    """Failed runs in a row at the newest end. Runs in progress and cancelled ones neither count nor break it;
    a Completed run (or one of a status this version does not know) ends it."""
    return streak_record(newest_first, whole_record=True, read_since=None).count


@dataclass(frozen=True)
class StreakRecord:
    """The failure streak at the newest end of an export's record, as far back as the runs known reach.

    Where ``whole`` is False the runs known stop inside the streak: it is at least ``count`` runs long and
    began at or before ``start``. ``behind_since``: no Completed data is known and the runs known stop before
    it, so the export's data is at least as old as this (the oldest known run's interval start, or where the
    runs list was read from); None where the newest Completed run is known, or no run ever completed.
    """

    count: int
    start: datetime | None  # where the oldest failed interval of the streak known begins; None without a streak
    whole: bool
    behind_since: datetime | None = None
    ender_created: datetime | None = None  # when the run that ended the streak was created, where it is known

    @property
    def count_is_lower_bound(self) -> bool:
        return self.count > 0 and not self.whole


def streak_record(newest_first: Sequence[BatchExportRun], *, whole_record: bool,
                  read_since: datetime | None) -> StreakRecord:
    """The one reading of the failure streak: its length, its start and whether they are bounds.

    ``newest_first``: the export's runs known (:func:`runs_newest_first`); ``whole_record``: they are all of the
    export's runs; ``read_since``: every run created from then on is among them (None: the runs are one look at
    ``latest_runs``, the newest runs whatever their number). The streak is whole where the run that ended it is
    known and no run between it and the newest is missing (it was created after ``read_since``).

    Runs are created in the order of their intervals, so a Completed run older than every run known covered an
    interval that ends before the oldest known run's begins: that is how far behind the data is at least.
    """
    count = 0
    start: datetime | None = None
    ender: BatchExportRun | None = None
    for run in newest_first:
        if run.status in FAILED_GROUP:
            count += 1
            begins = run.data_interval_start or run.data_interval_end
            if begins is not None and (start is None or begins < start):
                start = begins
        elif run.status in RUNNING_GROUP or run.status in CANCELLED_GROUP:
            continue
        else:
            ender = run
            break
    ender_at = run_created(ender) if ender is not None else None
    whole = whole_record or (ender is not None and (read_since is None or ender_at is None or ender_at >= read_since))
    behind_since: datetime | None = None
    if not whole_record and newest_first and last_completed_end(newest_first) is None:
        oldest = newest_first[-1]
        bounds = [b for b in (oldest.data_interval_start or oldest.data_interval_end or run_created(oldest),
                              read_since) if b is not None]
        behind_since = min(bounds) if bounds else None
    return StreakRecord(count, start, whole, behind_since, ender_at)


def whole_record(export: BatchExport, read_since: datetime | None, more_runs: bool) -> bool:
    """Whether the runs known of ``export`` are its whole record: fewer than ten ``latest_runs`` are all of them
    (where the server gives ``latest_runs`` at all), and a runs list read since the export began holds every run.
    ``more_runs``: runs other than ``latest_runs`` are known."""
    beginning = export.start_at or export.created_at
    return (len(export.latest_runs) < LATEST_RUNS_SIZE and bool(export.latest_runs or not more_runs)) or (
        read_since is not None and beginning is not None and read_since <= beginning)


def export_streak(export: BatchExport, runs: Iterable[BatchExportRun] = (),
                  read_since: datetime | None = None) -> StreakRecord:
    """:func:`streak_record` of an export on its ``latest_runs`` and ``runs`` (a run history), as :func:`judge`
    reads it: where an alert's episode began (the start of the streak the server's record shows)."""
    more = list(runs)
    return streak_record(runs_newest_first([*export.latest_runs, *more]),
                         whole_record=whole_record(export, read_since, bool(more)), read_since=read_since)


def last_completed_end(runs: Iterable[BatchExportRun]) -> datetime | None:
    ends = [r.data_interval_end for r in runs if r.status == RunStatus.COMPLETED and r.data_interval_end is not None]
    return max(ends) if ends else None


def age_seconds(when: datetime, now: datetime) -> float:
    """``now - when`` in seconds, never negative (a server stamp a moment ahead of our estimate is "now")."""
    return max(0.0, (now - when).total_seconds())


# --------------------------------------------------------------------------- schedule


def due_anchor(runs: Iterable[BatchExportRun], step: int | None) -> datetime | None:
    """The end of the interval after the newest scheduled run (backfills do not move the schedule)."""
    ends = [r.data_interval_end for r in runs if r.data_interval_end is not None and r.backfill is None]
    return max(ends) + timedelta(seconds=step) if ends and step else None


def due_at(anchor: datetime | None, step: int | None, paused: bool, end_at: datetime | None,
           now: datetime) -> datetime | None:
    """When the next scheduled run should start; None when paused, unknown or past the export's end."""
    if paused or not step:
        return None
    if end_at is not None and end_at <= now:
        return None
    if anchor is not None:
        due = anchor
    else:
        epoch = now.timestamp()
        due = datetime.fromtimestamp(epoch - epoch % step + step, tz=now.tzinfo)
    if end_at is not None and due > end_at + timedelta(seconds=step):
        return None
    return due


# --------------------------------------------------------------------------- words


def target_for(export: BatchExport, targets: Mapping[str, float] | None) -> float | None:
    """The export's freshness target in seconds (named by id, else by name), or None."""
    if not targets:
        return None
    found = targets.get(export.id)
    return found if found is not None else targets.get(export.name)


def unmatched_targets_warning(targets: Mapping[str, float] | None, exports: Iterable[BatchExport]) -> str | None:
    """One line naming the freshness targets that name no watched export (by id or name), or None: a typo the
    operator should hear of once, at the first poll."""
    named = {key for export in exports for key in (export.id, export.name)}
    unmatched = [key for key in (targets or {}) if key not in named]
    if not unmatched:
        return None
    listed = ", ".join(repr(key) for key in unmatched)
    several = len(unmatched) > 1
    return (f"freshness target{'s' if several else ''} for {listed} name{'' if several else 's'} no watched export "
            "(by id or name): check the profile's [freshness] table")


def _rule_words(target: float | None, lag_intervals: float, grace_seconds: float, step: int | None) -> str:
    if target is not None:
        return f"freshness target {duration(target)}"
    if not step:
        return "interval unknown: no overdue rule"
    return f"{lag_intervals:g} intervals + {span(grace_seconds)} grace ({span(lag_intervals * step + grace_seconds)})"


def _status_words(run: BatchExportRun) -> str:
    return f"latest run {run.status or 'without a status'}"


# --------------------------------------------------------------------------- the judge


@dataclass(frozen=True)
class RecordView:
    """What the runs known of an export let a verdict know, before any state is chosen: the newest run, the
    newest Completed interval, the failure streak and whether these figures are the record's or only bounds."""

    runs: list[BatchExportRun]  # newest first, one per id
    latest: BatchExportRun | None
    done_end: datetime | None  # the end of the newest Completed interval known
    whole: bool  # the runs known are every run the export has
    streak: StreakRecord
    lag: float | None  # seconds behind: since ``done_end``, or at least since the streak record's ``behind_since``
    short: bool  # the runs list should be read further back for the figures to be the record's (``needs_record``)

    @property
    def lag_is_lower_bound(self) -> bool:
        return self.streak.behind_since is not None

    @property
    def bounded(self) -> bool:
        """Some figure is a bound: the streak is longer than the runs known show, or the lag older."""
        return self.streak.count_is_lower_bound or self.lag_is_lower_bound


def read_record(export: BatchExport, now: datetime, runs: Iterable[BatchExportRun] | None,
                read_since: datetime | None) -> RecordView:
    """:class:`RecordView` of ``export``'s ``latest_runs`` and ``runs``; ``read_since`` as :func:`judge` takes it.

    The record reaches far enough when it is whole, or the runs list was read back almost the whole window the
    service keeps; short of that, it settles the verdict only where it holds the run that ended the streak and
    reaches back to the newest Completed interval (:func:`_lag_settled`).
    """
    all_runs = runs_newest_first([*export.latest_runs, *(runs or ())])
    done_end = last_completed_end(all_runs)
    whole = whole_record(export, read_since, bool(runs))
    far_enough = whole or (read_since is not None and now - read_since >= RECORD_WINDOW - timedelta(hours=1))
    record = streak_record(all_runs, whole_record=whole, read_since=read_since)
    behind_since = record.behind_since
    lag = age_seconds(done_end, now) if done_end is not None else (
        age_seconds(behind_since, now) if behind_since is not None else None)
    short = not far_enough and (
        done_end is None or not record.whole or not _lag_settled(done_end, export, read_since, export.interval_seconds))
    return RecordView(all_runs, all_runs[0] if all_runs else None, done_end, whole, record, lag, short)


def judge(
    export: BatchExport,
    now: datetime,
    *,
    runs: Iterable[BatchExportRun] | None = None,
    lag_intervals: float = DEFAULT_LAG_INTERVALS,
    grace_seconds: float = DEFAULT_GRACE_SECONDS,
    target_seconds: float | None = None,
    read_since: datetime | None = None,
    runs_list: bool = True,
) -> Verdict:
    """The health of ``export`` at ``now`` (server time): what the record lets us know (:func:`read_record`),
    then which state that makes (:func:`_state`).

    ``runs`` adds runs from elsewhere (the runs list, the run history) to the
    export's own ``latest_runs``; duplicates by id are merged. ``target_seconds`` (the
    export's freshness target, :func:`target_for`) replaces intervals plus grace.
    ``read_since``: the server's runs list was read from then to now, so every
    run created since is among them. ``runs_list`` False: the server offers no
    runs list (it answered 404/405), so what ``latest_runs`` cannot settle stays a
    bound (the streak "10+", the lag "at least"), and the reason says why.
    """
    view = read_record(export, now, runs, read_since)
    step = export.interval_seconds
    if target_seconds is not None:
        allowed: float | None = target_seconds
    else:
        allowed = lag_intervals * step + grace_seconds if step else None
    limit = f"target {duration(target_seconds)}" if target_seconds is not None else f"allowed {span(allowed or 0)}"
    state, reason = _state(export, now, view, allowed, limit, read_since, runs_list)
    unreadable = "; the server offers no runs list to read further" if view.bounded and not runs_list else ""
    return Verdict(state=state, reason=reason + unreadable, judged_at=now, latest_run=view.latest,
                   failure_streak=view.streak.count, lag_seconds=view.lag, allowed_lag_seconds=allowed,
                   last_completed_end=view.done_end,
                   next_due=due_at(due_anchor(view.runs, step), step, export.paused, export.end_at, now),
                   rule=_rule_words(target_seconds, lag_intervals, grace_seconds, step),
                   record_short=view.short, failure_streak_is_lower_bound=view.streak.count_is_lower_bound,
                   lag_is_lower_bound=view.lag_is_lower_bound, streak_start=view.streak.start)


def _state(export: BatchExport, now: datetime, view: RecordView, allowed: float | None, limit: str,
           read_since: datetime | None, runs_list: bool) -> tuple[HealthState, str]:
    """The state the record makes, and why, in order of precedence: paused, failing, ended, overdue, no runs,
    running, a status this version does not know, then OK."""
    latest, streak = view.latest, view.streak
    in_a_row = f", {streak.count}{'' if streak.whole else '+'} failed runs in a row" if streak.count > 1 else ""
    if export.paused:
        since = f" for {span(age_seconds(export.last_paused_at, now))}" if export.last_paused_at else ""
        failed = ""
        if latest is not None and latest.status in FAILED_GROUP:
            when = run_activity_time(latest)
            ago = f" {span(age_seconds(when, now))} ago" if when is not None else ""
            failed = f"; the last run failed{ago} ({latest.status}{in_a_row})"
        return HealthState.PAUSED, f"paused{since}: no runs are scheduled{failed}"
    if latest is not None and latest.status in FAILED_GROUP:
        return HealthState.FAILING, f"{_status_words(latest)}{in_a_row}"
    if export.end_at is not None and export.end_at <= now:
        return HealthState.ENDED, f"ended {span(age_seconds(export.end_at, now))} ago: no runs are scheduled"
    not_started = export.start_at is not None and export.start_at > now
    if allowed is not None and not not_started:
        overdue = _overdue_reason(export, now, view, allowed, limit, read_since, runs_list)
        if overdue is not None:
            return HealthState.OVERDUE, overdue
    if latest is None:
        if not_started:
            assert export.start_at is not None
            return HealthState.NO_RUNS, f"no runs yet: starts in {span(age_seconds(now, export.start_at))}"
        return HealthState.NO_RUNS, "no runs yet"
    if latest.status in RUNNING_GROUP:
        return HealthState.RUNNING, f"{_status_words(latest)}"
    if latest.status not in KNOWN_STATUSES:
        return HealthState.UNKNOWN_STATUS, f"{_status_words(latest)}, a status this version does not know"
    lag = view.lag
    if latest.status in CANCELLED_GROUP:
        return HealthState.OK, (f"{_status_words(latest)} (counted as cancelled, as the service does)"
                                + (f"; data {span(lag)} behind" if lag is not None else ""))
    return HealthState.OK, f"data {span(lag)} behind" if lag is not None else "latest run completed"


def _overdue_reason(export: BatchExport, now: datetime, view: RecordView, allowed: float, limit: str,
                    read_since: datetime | None, runs_list: bool) -> str | None:
    """Why the data is older than allowed (from the newest Completed interval, else from where the record shows it
    at least is, else from the export's start), in words that say how far the runs known reach; None when not."""
    reference = view.done_end or view.streak.behind_since or export.start_at or export.created_at
    if reference is None or age_seconds(reference, now) <= allowed:
        return None
    behind = span(age_seconds(reference, now), round_up=True)  # over the limit: never shown at it
    if view.done_end is not None:
        reason = f"no completed data for {behind}, {limit}"
    elif not view.whole and read_since is not None and runs_list:
        reason = f"no completed run in the {span(age_seconds(read_since, now))} of runs read, {limit}"
    elif not view.whole:
        reason = f"no completed run among the {len(view.runs)} latest runs: {behind} at least, {limit}"
    else:
        reason = f"no completed run {behind} after it started, {limit}"
    if view.latest is not None and view.latest.status in RUNNING_GROUP:
        reason += " (a run is in progress)"
    return reason


def _lag_settled(done_end: datetime, export: BatchExport, read_since: datetime | None, step: int | None) -> bool:
    """Whether the newest Completed run known is the newest there is: every run created since its interval ended
    is known. A run completing a later interval was created after that interval ended, so where the runs known
    reach back to within one interval of ``done_end`` none is missing. A bulk repair's retries fill
    ``latest_runs`` and push the newest Completed run out of it: the lag then needs the runs list."""
    stamps = [c for c in (run_created(r) for r in export.latest_runs) if c is not None]
    known_since = read_since if read_since is not None else (min(stamps) if stamps else None)
    if known_since is None:
        return True
    return (known_since - done_end).total_seconds() < (step or 1)


def needs_record(verdict: Verdict) -> bool:
    """Whether the export's runs list should be read further back for this verdict to be true (lag, streak)."""
    return verdict.record_short


# --------------------------------------------------------------------------- incomplete answers


def missing_fields(item: BatchExport | BatchExportRun) -> list[str]:
    """Fields the screens need that the server's answer did not carry (a bare ``{"id": …}`` is not an export).

    Read from what the answer set, not from the model's defaults: a missing
    ``paused`` would otherwise read as "active" and a missing ``interval`` as "unknown".
    """
    required = EXPORT_REQUIRED_FIELDS if isinstance(item, BatchExport) else RUN_REQUIRED_FIELDS
    given = item.model_fields_set
    return [name for name in required if name not in given]


def incomplete_reason(export: BatchExport) -> str | None:
    """Why an export answer cannot be shown (its own fields or one of its runs'), or None when complete."""
    missing = missing_fields(export)
    if missing:
        return f"export {export.id}: missing {', '.join(missing)}"
    for run in export.latest_runs:
        missing = missing_fields(run)
        if missing:
            return f"export {export.id}: run {run.id} missing {', '.join(missing)}"
    return None


def incomplete_reason_of_run(run: BatchExportRun) -> str | None:
    """A run of a runs page without an id or a status cannot be judged: it is left out, never read as "no status".

    The monitor and ``status`` both filter runs pages through this, so neither judges a run the other would not.
    """
    missing = missing_fields(run)
    if not run.id and "id" not in missing:
        missing.insert(0, "id")
    return f"run {run.id or '?'} missing {', '.join(missing)}" if missing else None
