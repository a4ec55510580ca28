"""The Prometheus families of ``watchdeck metrics`` and ``watchdeck status --format prometheus|openmetrics``.

Pure: a :class:`Reading` (the exports with their health verdicts, the open
alerts by kind, the last successful poll, the server's clock skew) becomes
metric families at scrape time through :class:`ReadingCollector`, registered on
a ``prometheus_client`` registry with the poll's own histogram and counter
(:class:`PollMetrics`). The library writes the exposition; nothing here formats
text. The names are part of the interface (the README lists them):

* ``watchdeck_export_healthy{project,export_id,export}``: 0 while the export's
  alert episode is open (the dashboard's alert model), else 1;
* ``watchdeck_export_alert_open{project,export_id,export}``: 1 while the episode
  is open, the series a rule pages on: no state in its labels, so it holds
  through the kind changing inside the episode;
* ``watchdeck_export_alert_kind{project,export_id,export,kind}``: 1 for the open
  episode's current kind, 0 for the others (all 0 without an episode);
* ``watchdeck_export_alert_since_timestamp_seconds``: when the episode began on
  the server's record, absent without an episode;
* ``watchdeck_export_state{project,export_id,export,state}``: 1 for the current
  state, 0 for the others (``no runs`` is spelt ``no_runs``);
* ``watchdeck_export_lag_seconds``, ``watchdeck_export_failure_streak``,
  ``watchdeck_export_last_completed_end_timestamp_seconds``,
  ``watchdeck_export_freshness_target_seconds`` (the lag allowed: the profile's
  target, else intervals plus grace): per export, absent where unknown;
* ``watchdeck_export_is_lower_bound{project,export_id,export,figure}``: 1 where the export's
  ``lag_seconds`` or ``failure_streak`` (the ``figure``) is only a lower bound (the runs known stop inside the
  outage, e.g. a server without a runs list), else 0; a family of its own, so the figures' series keep their labels;
* ``watchdeck_export_silenced{project,export_id,export}``: 1 while the export (or its project) is silenced
  from a dashboard (its alert stays; shipped rules leave it out with ``unless``), else 0; served by the
  exporter, which reads the silences at each poll;
* ``watchdeck_alerts_open{kind}``;
* ``watchdeck_poll_duration_seconds`` (histogram), ``watchdeck_requests_total{outcome}`` (the
  requests' outcomes, and ``internal_error``: a poll that failed inside watchdeck),
  ``watchdeck_last_successful_poll_timestamp_seconds``, ``watchdeck_server_clock_skew_seconds``.

No label or value holds the API key: labels are the project id, the export's
id and name, a state, an alert kind and a request outcome. A label value from
the server goes through the one cleaning door (no control or bidi character
reaches a terminal that shows the page, a newline is a space; the library
escapes quotes and backslashes) and is cut at :data:`MAX_LABEL_CHARS`: an export costs a scrape about
3 KB whatever the length of its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from tui.api.answers import OUTCOMES
from tui.state.alert_book import Alert, AlertKind
from tui.state.health import HealthState, Verdict
from tui.text.clean import clean

PREFIX = "watchdeck"
EXPORT_LABELS = ("project", "export_id", "export")
#: Every state an export can be in, as a label value.
STATES: tuple[str, ...] = tuple(state.value.replace(" ", "_") for state in HealthState)
#: The outcome counted for a poll that failed inside watchdeck (not an answer: the poll loop goes on).
POLL_FAILED = "internal_error"
#: Every kind an alert episode can have, as a label value.
KINDS: tuple[str, ...] = tuple(str(kind) for kind in AlertKind)
POLL_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
MAX_LABEL_CHARS = 200
"""The longest label value served: a longer name is cut, ending in an ellipsis."""


def state_label(state: HealthState) -> str:
    return state.value.replace(" ", "_")


@dataclass(frozen=True)
class EpisodeReading:
    """An export's alert episode as one poll left it (the book changes its alerts in place at the next poll)."""

    kind: str
    since: datetime

    @classmethod
    def of(cls, alert: Alert | None) -> EpisodeReading | None:
        return None if alert is None else cls(str(alert.kind), alert.since)


@dataclass(frozen=True)
class ExportReading:
    project_id: str
    export_id: str
    name: str
    verdict: Verdict
    episode: EpisodeReading | None = None  # the alert book's episode in course for the export

    @property
    def labels(self) -> list[str]:
        return [label_value(self.project_id), label_value(self.export_id), label_value(self.name)]


def label_value(text: str) -> str:
    """Server text as a label value: cleaned, on one line, at most :data:`MAX_LABEL_CHARS` characters."""
    return clean(text, limit=MAX_LABEL_CHARS)


@dataclass(frozen=True)
class Reading:
    """What one poll found: replaced whole after each poll, so a scrape never sees half of two polls."""

    exports: Sequence[ExportReading] = ()
    alerts_open: Mapping[str, int] = field(default_factory=dict)  # every kind, 0 where none is open
    last_success_timestamp: float | None = None  # wall-clock seconds of the last successful poll's answer
    clock_skew_seconds: float | None = None  # server minus this machine; None before any answer
    # (project, export id) of the exports silenced now; None where the silences are not read (no family then)
    silenced: frozenset[tuple[str, str]] | None = None


def export_families(exports: Iterable[ExportReading]) -> list[Metric]:
    healthy = GaugeMetricFamily(f"{PREFIX}_export_healthy",
                                "0 while the export's alert episode is open (the dashboard's alert), else 1",
                                labels=EXPORT_LABELS)
    alert_open = GaugeMetricFamily(f"{PREFIX}_export_alert_open",
                                   "1 while the export's alert episode is open, whatever its kind, else 0",
                                   labels=EXPORT_LABELS)
    alert_kind = GaugeMetricFamily(f"{PREFIX}_export_alert_kind",
                                   "1 for the open alert episode's current kind, 0 for the others",
                                   labels=(*EXPORT_LABELS, "kind"))
    alert_since = GaugeMetricFamily(f"{PREFIX}_export_alert_since_timestamp_seconds",
                                    "When the open alert episode began on the server's record, Unix seconds",
                                    labels=EXPORT_LABELS)
    state = GaugeMetricFamily(f"{PREFIX}_export_state", "1 for the export's current health state, 0 for the others",
                              labels=(*EXPORT_LABELS, "state"))
    lag = GaugeMetricFamily(f"{PREFIX}_export_lag_seconds",
                            "Seconds since the end of the newest Completed data interval (server time)",
                            labels=EXPORT_LABELS)
    streak = GaugeMetricFamily(f"{PREFIX}_export_failure_streak", "Failed runs in a row at the newest end",
                               labels=EXPORT_LABELS)
    done = GaugeMetricFamily(f"{PREFIX}_export_last_completed_end_timestamp_seconds",
                             "End of the newest Completed data interval, Unix seconds", labels=EXPORT_LABELS)
    bound = GaugeMetricFamily(f"{PREFIX}_export_is_lower_bound",
                              "1 where the figure (lag_seconds, failure_streak) is a lower bound: the runs known "
                              "stop inside the outage", labels=(*EXPORT_LABELS, "figure"))
    target = GaugeMetricFamily(f"{PREFIX}_export_freshness_target_seconds",
                               "The lag allowed before the export is overdue: its freshness target, else its "
                               "intervals plus grace", labels=EXPORT_LABELS)
    for reading in exports:
        labels = reading.labels
        verdict = reading.verdict
        episode = reading.episode
        healthy.add_metric(labels, 0.0 if episode is not None else 1.0)
        alert_open.add_metric(labels, 1.0 if episode is not None else 0.0)
        for kind in KINDS:
            alert_kind.add_metric([*labels, kind], 1.0 if episode is not None and episode.kind == kind else 0.0)
        if episode is not None:
            alert_since.add_metric(labels, episode.since.timestamp())
        if verdict.allowed_lag_seconds is not None:
            target.add_metric(labels, verdict.allowed_lag_seconds)
        current = state_label(verdict.state)
        for name in STATES:
            state.add_metric([*labels, name], 1.0 if name == current else 0.0)
        if verdict.lag_seconds is not None:
            lag.add_metric(labels, verdict.lag_seconds)
        streak.add_metric(labels, float(verdict.failure_streak))
        bound.add_metric([*labels, "lag_seconds"], 1.0 if verdict.lag_is_lower_bound else 0.0)
        bound.add_metric([*labels, "failure_streak"], 1.0 if verdict.failure_streak_is_lower_bound else 0.0)
        if verdict.last_completed_end is not None:
            done.add_metric(labels, verdict.last_completed_end.timestamp())
    return [healthy, alert_open, alert_kind, alert_since, state, lag, streak, done, target, bound]


def silenced_family(exports: Iterable[ExportReading], silenced: frozenset[tuple[str, str]]) -> Metric:
    family = GaugeMetricFamily(f"{PREFIX}_export_silenced",
                               "1 while the export (or its project) is silenced from a dashboard, else 0",
                               labels=EXPORT_LABELS)
    for reading in exports:
        family.add_metric(reading.labels, 1.0 if (reading.project_id, reading.export_id) in silenced else 0.0)
    return family


def reading_families(reading: Reading) -> list[Metric]:
    families = export_families(reading.exports)
    if reading.silenced is not None:
        families.append(silenced_family(reading.exports, reading.silenced))
    alerts = GaugeMetricFamily(f"{PREFIX}_alerts_open", "Open alerts by kind (the dashboard's alert model)",
                               labels=("kind",))
    for kind, count in sorted(reading.alerts_open.items()):
        alerts.add_metric([kind], float(count))
    families.append(alerts)
    if reading.last_success_timestamp is not None:
        families.append(GaugeMetricFamily(f"{PREFIX}_last_successful_poll_timestamp_seconds",
                                          "When the last successful poll's answer was fetched, Unix seconds",
                                          value=reading.last_success_timestamp))
    if reading.clock_skew_seconds is not None:
        families.append(GaugeMetricFamily(f"{PREFIX}_server_clock_skew_seconds",
                                          "The server's clock minus this machine's, from its Date headers",
                                          value=reading.clock_skew_seconds))
    return families


class ReadingCollector(Collector):
    """Serves the latest :class:`Reading` at each scrape; holds nothing else, so memory stays flat."""

    def __init__(self) -> None:
        self.reading = Reading()

    def collect(self) -> Iterator[Metric]:
        yield from reading_families(self.reading)


class PollMetrics:
    """A registry with the reading's families, the polls' durations and the requests' outcomes."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.collector = ReadingCollector()
        self.registry.register(self.collector)
        self.poll_duration = Histogram(f"{PREFIX}_poll_duration_seconds", "How long one poll of every watched "
                                       "project took", buckets=POLL_BUCKETS, registry=self.registry)
        self.requests = Counter(f"{PREFIX}_requests", "Requests sent to the server, by outcome",
                                labelnames=("outcome",), registry=self.registry)
        for outcome in (*OUTCOMES, POLL_FAILED):  # every one from the start: a rate over a late series is wrong
            self.requests.labels(outcome=outcome)

    def count_request(self, outcome: str) -> None:
        self.requests.labels(outcome=outcome).inc()

    def show(self, reading: Reading) -> None:
        self.collector.reading = reading
