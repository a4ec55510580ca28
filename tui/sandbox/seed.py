"""Deterministic demo data: three projects, surveys of every kind, batch exports with run history.

Everything is derived from the seed and the simulation clock's "now", so two sandboxes with
the same seed and a frozen clock serve identical data. The main project (id 1) stays free of
hostile strings; project 3 carries markup, Textual actions and ANSI escapes on purpose.
Run history is produced by the simulator itself (ticking from the past up to now), so seeded
runs and live runs follow the same rules.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from tui.sandbox.db import Database, dumps, set_meta
from tui.sandbox.outages import DEMO_DESTINATION, DEMO_LASTS, DEMO_STARTED, add_outage
from tui.sandbox.simulator import Simulator, derived_uuid, make_plan
from tui.sandbox.timeutil import INTERVALS, floor_interval, iso

USERS: list[dict[str, Any]] = [
    {"first_name": "Ada", "last_name": "Okafor", "email": "ada.okafor@acme.io", "role": "product"},
    {"first_name": "Jonas", "last_name": "Lindqvist", "email": "jonas@acme.io", "role": "engineering"},
    {"first_name": "Priya", "last_name": "Raman", "email": "priya.raman@acme.io", "role": "data"},
    {"first_name": "Mateo", "last_name": "García", "email": "mateo.garcia@acme.io", "role": "marketing"},
    {"first_name": "Sun", "last_name": "Li", "email": "sun.li@acme.io", "role": "leadership"},
]

PROJECTS = [(1, "Demo project", "UTC"), (2, "Staging", "Europe/Berlin"), (3, "Playground", "America/New_York")]

SURVEY_NAMES = [
    "Net Promoter Score (quarterly)", "Onboarding experience", "Pricing page exit survey",
    "Feature request: dashboards",
    "Why are you cancelling?", "Mobile app satisfaction", "Beta program sign-up", "Docs helpfulness",
    "Checkout experience", "Support CSAT", "Session replay feedback", "Data warehouse interest",
    "Homepage redesign poll", "Product-market fit (Sean Ellis)", "Integration wishlist", "Team plan upgrade reasons",
    "API developer experience", "Billing clarity check", "Trial conversion blockers", "Search results relevance",
    "Email digest preferences", "Accessibility feedback", "Notification fatigue", "Export to CSV usage",
    "SSO rollout feedback", "Self-serve analytics survey", "Release notes readership", "Community forum interest",
    "Dark mode poll", "Performance perception", "Customer effort score", "Webinar follow-up",
    "Annual plan interest", "Churned user interview invite", "Heatmaps early access", "In-app guide feedback",
    "Admin console usability", "Free tier limits", "Localization request", "Roadmap priorities vote",
]
HOSTILE = ["[bold]x[/bold] launch survey", "[@click=app.quit]Quit now", "\x1b[31mRed alert\x1b[0m survey",
           "Tab\tand\u200bzero-width <script>alert(1)</script>"]

FLAG_KEYS = ["new-onboarding-flow", "pricing-page-v2", "beta-dashboards", "mobile-app-rollout", "checkout-redesign",
             "sso-enforcement", "heatmaps-early-access", "dark-mode"]

SECRET_KEYS: dict[str, tuple[str, ...]] = {
    "S3": ("aws_access_key_id", "aws_secret_access_key"),
    "AwsS3": ("aws_access_key_id", "aws_secret_access_key"),
    "S3Compatible": ("aws_access_key_id", "aws_secret_access_key"),
    "Snowflake": ("user", "password", "private_key", "private_key_passphrase"),
    "Postgres": ("user", "password"),
    "Redshift": ("user", "password", "aws_access_key_id", "aws_secret_access_key"),
    "BigQuery": ("private_key", "private_key_id", "client_email", "token_uri"),
    "HTTP": ("token",),
    "Databricks": (),
    "AzureBlob": (),
}

# (name, destination, model, interval, profile)
EXPORTS_P1 = [
    ("Events to S3 data lake", "S3", "events", "hour", "normal"),
    ("Snowflake warehouse (hourly)", "Snowflake", "events", "hour", "flaky"),
    ("Postgres replica - product events", "Postgres", "events", "every 5 minutes", "normal"),
    ("BigQuery analytics (daily)", "BigQuery", "events", "day", "normal"),
    ("Redshift persons sync", "Redshift", "persons", "day", "normal"),
    ("Realtime webhook relay", "HTTP", "events", "every 5 minutes", "normal"),
    ("Databricks lakehouse events", "Databricks", "events", "every 15 minutes", "normal"),
    ("S3 persons snapshot", "S3", "persons", "day", "normal"),
    ("Snowflake persons", "Snowflake", "persons", "hour", "normal"),
    ("Postgres audit trail", "Postgres", "events", "every 15 minutes", "normal"),
    ("BigQuery weekly rollup", "BigQuery", "events", "week", "normal"),
    ("S3 archive (Parquet, ended)", "S3", "events", "hour", "normal"),
]
PAUSED_INDEX = 4
ENDED_INDEX = 11
HISTORY = {"every 5 minutes": timedelta(hours=30), "every 15 minutes": timedelta(days=3),
           "hour": timedelta(days=10), "day": timedelta(days=40), "week": timedelta(weeks=16)}
DEST_CYCLE = ["S3", "Snowflake", "Postgres", "BigQuery", "Redshift", "HTTP", "Databricks"]
INTERVAL_CYCLE = ["hour", "day", "every 5 minutes", "every 15 minutes"]


def destination_config(dest: str, n: int) -> dict[str, Any]:
    """A realistic config (secrets included; responses strip them)."""
    if dest == "S3":
        return {"bucket_name": f"acme-posthog-export-{n}", "region": "eu-west-1", "prefix": "events/{year}/{month}/",
                "compression": "gzip", "file_format": "JSONLines", "max_file_size_mb": None, "encryption": None,
                "kms_key_id": None, "aws_access_key_id": "sandbox-access-key-id",
                "aws_secret_access_key": "sandbox-secret-access-key", "include_events": [], "exclude_events": []}
    if dest == "Snowflake":
        return {"account": "acme-xy12345", "database": "ANALYTICS", "warehouse": "COMPUTE_WH", "schema": "POSTHOG",
                "table_name": "events" if n % 2 else "persons", "role": "POSTHOG_EXPORT", "user": "posthog_export",
                "password": "sandbox-password", "authentication_type": "password", "include_events": [],
                "exclude_events": []}
    if dest == "Postgres":
        return {"host": "analytics-db.internal", "port": 5432, "database": "analytics", "schema": "public",
                "table_name": "events", "user": "exporter", "password": "sandbox-password",
                "has_self_signed_cert": False, "include_events": [], "exclude_events": ["$feature_flag_called"]}
    if dest == "Redshift":
        return {"host": "acme.abc123.eu-west-1.redshift.amazonaws.com", "port": 5439, "database": "analytics",
                "schema": "posthog", "table_name": "persons", "user": "exporter", "password": "sandbox-password",
                "properties_data_type": "varchar", "mode": "INSERT", "include_events": [], "exclude_events": []}
    if dest == "BigQuery":
        return {"project_id": "acme-analytics", "dataset_id": "posthog", "table_id": "events",
                "private_key": "-----BEGIN PRIVATE KEY-----\nsandbox\n-----END PRIVATE KEY-----\n",
                "private_key_id": "sandbox-key-id", "client_email": "exporter@acme-analytics.iam.gserviceaccount.com",
                "token_uri": "https://oauth2.googleapis.com/token", "use_json_type": True, "include_events": [],
                "exclude_events": []}
    if dest == "HTTP":
        return {"url": "https://us.i.posthog.com/batch/", "token": "sandbox-project-token",
                "include_events": [], "exclude_events": []}
    return {"http_path": "/sql/1.0/warehouses/4f2c1b9e0a", "catalog": "analytics", "schema": "posthog",
            "table_name": "events", "use_variant_type": True, "use_automatic_schema_evolution": True,
            "include_events": [], "exclude_events": []}


def _qid(seed: int, *parts: object) -> str:
    return derived_uuid(seed, "question", *parts)


def question_set(kind: int, seed: int, sid: str, hostile: bool = False) -> list[dict[str, Any]]:
    """Question lists covering every question kind and every branching kind."""
    q = lambda n: _qid(seed, sid, n)  # noqa: E731
    text = HOSTILE[kind % len(HOSTILE)] if hostile else None
    sets: list[Callable[[], list[dict[str, Any]]]] = [
        lambda: [
            {"id": q(0), "type": "rating", "question": text or "How likely are you to recommend us to a friend?",
             "description": "", "descriptionContentType": "text", "optional": False, "buttonText": "Submit",
             "display": "number", "scale": 10, "isNpsQuestion": True, "lowerBoundLabel": "Unlikely",
             "upperBoundLabel": "Very likely",
             "branching": {"type": "response_based",
                           "responseValues": {"detractors": 1, "passives": 2, "promoters": "end"}}},
            {"id": q(1), "type": "open", "question": "What is the main reason for your score?",
             "descriptionContentType": "text", "optional": True, "buttonText": "Next",
             "branching": {"type": "end"}},
            {"id": q(2), "type": "open", "question": "What could we do to make it a 10?",
             "descriptionContentType": "text", "optional": True, "buttonText": "Send"},
        ],
        lambda: [
            {"id": q(0), "type": "rating", "question": text or "How satisfied are you with this page?",
             "descriptionContentType": "text", "optional": False, "display": "emoji", "scale": 5,
             "lowerBoundLabel": "Not at all", "upperBoundLabel": "Very", "buttonText": "Submit",
             "branching": {"type": "next_question"}},
            {"id": q(1), "type": "single_choice", "question": "What brought you here today?",
             "choices": ["Comparing plans", "Checking my invoice", "Looking for docs", "Other"],
             "shuffleOptions": False, "hasOpenChoice": True, "optional": False, "buttonText": "Next",
             "descriptionContentType": "text",
             "branching": {"type": "response_based", "responseValues": {"0": 2, "1": "end"}}},
            {"id": q(2), "type": "open", "question": "Anything else we should know?", "optional": True,
             "description": "<p>We read <b>every</b> answer.</p>", "descriptionContentType": "html",
             "buttonText": "Send"},
        ],
        lambda: [
            {"id": q(0), "type": "multiple_choice", "question": text or "Which features would you use?",
             "choices": ["Scheduled reports", "Custom dashboards", "Alerts", "SQL access", "Something else"],
             "shuffleOptions": True, "hasOpenChoice": True, "optional": False, "buttonText": "Next",
             "descriptionContentType": "text"},
            {"id": q(1), "type": "link", "question": "Want to talk to our product team?",
             "description": "Book a 20 minute call.", "descriptionContentType": "text",
             "link": "https://cal.com/acme/research", "buttonText": "Book a call", "optional": True,
             "branching": {"type": "end"}},
        ],
        lambda: [
            {"id": q(0), "type": "single_choice", "question": text or "How did you hear about us?",
             "choices": ["Search", "A friend", "Social media", "Conference"], "shuffleOptions": False,
             "hasOpenChoice": False, "optional": False, "buttonText": "Next", "descriptionContentType": "text",
             "branching": {"type": "specific_question", "index": 2}},
            {"id": q(1), "type": "open", "question": "Which conference?", "optional": True, "buttonText": "Next",
             "descriptionContentType": "text"},
            {"id": q(2), "type": "rating", "question": "How easy was it to get started?", "display": "number",
             "scale": 7, "lowerBoundLabel": "Very hard", "upperBoundLabel": "Very easy", "optional": False,
             "buttonText": "Submit", "descriptionContentType": "text"},
        ],
        lambda: [
            {"id": q(0), "type": "open", "question": text or "What is one thing we should improve?",
             "description": "<p>Be as <i>blunt</i> as you like.</p>", "descriptionContentType": "html",
             "optional": False, "buttonText": "Send"},
            {"id": q(1), "type": "link", "question": "Prefer e-mail?", "link": "mailto:feedback@acme.io",
             "buttonText": "Write to us", "optional": True, "descriptionContentType": "text"},
        ],
        lambda: [
            {"id": q(0), "type": "rating", "question": text or "How would you rate the new design?",
             "display": "emoji", "scale": 3, "lowerBoundLabel": "Dislike", "upperBoundLabel": "Love it",
             "optional": False, "buttonText": "Submit", "descriptionContentType": "text",
             "branching": {"type": "response_based", "responseValues": {"negative": 1, "neutral": "end",
                                                                         "positive": "end"}}},
            {"id": q(1), "type": "multiple_choice", "question": "What felt off?",
             "choices": ["Colours", "Layout", "Typography", "Speed"], "shuffleOptions": False,
             "hasOpenChoice": False, "optional": True, "buttonText": "Send", "descriptionContentType": "text"},
        ],
    ]
    return sets[kind % len(sets)]()


CONDITIONS = [
    None,
    {"url": "https://app.acme.io/pricing", "urlMatchType": "icontains", "seenSurveyWaitPeriodInDays": 14,
     "events": {"repeatedActivation": False, "values": []}, "actions": {"values": []}},
    {"url": "", "selector": "#feedback-button", "events": {"repeatedActivation": True,
                                                            "values": [{"name": "checkout_completed"}]},
     "deviceTypes": ["Desktop", "Tablet"], "deviceTypesMatchType": "icontains"},
    {"url": "/settings/.*", "urlMatchType": "regex", "seenSurveyWaitPeriodInDays": 30, "linkedFlagVariant": "any"},
]

APPEARANCE = {"backgroundColor": "#eeeded", "submitButtonColor": "black", "ratingButtonColor": "white",
              "borderColor": "#c9c6c6", "placeholder": "Start typing...", "displayThankYouMessage": True,
              "thankYouMessageHeader": "Thank you for your feedback!", "position": "right", "whiteLabel": False,
              "surveyPopupDelaySeconds": 2}


def flag_doc(team_id: int, key: str, name: str, filters: dict[str, Any], active: bool = True) -> dict[str, Any]:
    return {"team_id": team_id, "name": name, "key": key, "filters": filters, "deleted": False, "active": active,
            "ensure_experience_continuity": False, "has_encrypted_payloads": False, "version": 1,
            "evaluation_runtime": "all", "bucketing_identifier": None, "evaluation_contexts": []}


def internal_flag_filters(survey_id: str) -> dict[str, Any]:
    return {"groups": [{"variant": "", "properties": [
        {"key": f"$survey_dismissed/{survey_id}", "type": "person", "value": "is_not_set", "operator": "is_not_set"},
        {"key": f"$survey_responded/{survey_id}", "type": "person", "value": "is_not_set",
         "operator": "is_not_set"}], "rollout_percentage": 100}]}


class _FlagAlloc:
    def __init__(self) -> None:
        self.next_id = 1
        self.rows: list[tuple[int, int, str]] = []

    def add(self, doc: dict[str, Any]) -> int:
        fid = self.next_id
        self.next_id += 1
        self.rows.append((fid, doc["team_id"], dumps(doc)))
        return fid


def user_doc(seed: int, uid: int, u: dict[str, Any]) -> dict[str, Any]:
    return {"id": uid, "uuid": derived_uuid(seed, "user", uid), "distinct_id": derived_uuid(seed, "distinct", uid),
            "first_name": u["first_name"], "last_name": u["last_name"], "email": u["email"],
            "is_email_verified": uid != 4, "hedgehog_config": None if uid % 2 else {"use_as_profile": False},
            "role_at_organization": u["role"]}


def build_survey(
    seed: int, rng: random.Random, project_id: int, i: int, name: str, now: datetime, flags: _FlagAlloc,
    linked_flag_ids: list[int], hostile: bool = False,
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """One survey row plus its activity rows."""
    sid = derived_uuid(seed, "survey", project_id, i)
    created = now - timedelta(days=rng.uniform(1, 180), seconds=rng.randint(0, 86400))
    creator = 1 + rng.randrange(len(USERS))
    mode = i % 8
    start = end = None
    if mode == 1:
        start = now + timedelta(days=rng.uniform(1, 10))
    elif mode in (2, 3, 4, 6):
        start = created + timedelta(hours=rng.uniform(1, 48))
        start = min(start, now - timedelta(hours=1))
        if mode == 6:
            end = now + timedelta(days=rng.uniform(2, 20))
    elif mode in (5, 7):
        start = created + timedelta(hours=rng.uniform(1, 48))
        start = min(start, now - timedelta(days=1))
        end = start + (now - start) * rng.uniform(0.3, 0.9)
    archived = mode == 7
    stype = "popover" if i % 5 in (0, 1, 2) else ("widget" if i % 5 == 3 else ("api" if i % 10 == 4 else
                                                                                "external_survey"))
    linked = None
    targeting = None
    internal = None
    if stype != "external_survey":
        if linked_flag_ids and i % 3 == 0:
            linked = linked_flag_ids[i % len(linked_flag_ids)]
        if i % 4 == 1:
            targeting = flags.add(flag_doc(project_id, f"survey-targeting-{sid[:8]}",
                                           f"Targeting flag for survey {name}",
                                           {"groups": [{"variant": None, "properties": [
                                               {"key": "email", "type": "person", "value": "@acme.io",
                                                "operator": "not_icontains"}], "rollout_percentage": 50}]}))
        if start is not None:
            internal = flags.add(flag_doc(project_id, f"survey-targeting-{sid[:8]}-custom",
                                          f"Internal targeting flag for survey {name}", internal_flag_filters(sid),
                                          active=not archived and end is None))
    recurring = i % 9 == 2 and start is not None
    doc: dict[str, Any] = {
        "name": name, "description": "" if i % 3 else f"Asked of {rng.choice(['new', 'active', 'paying'])} users.",
        "type": stype, "schedule": "recurring" if recurring else "once", "linked_flag_id": linked,
        "linked_insight_id": None, "questions": question_set(i, seed, sid, hostile),
        "conditions": None if stype in ("external_survey", "api") else CONDITIONS[i % len(CONDITIONS)],
        "appearance": None if stype == "api" else dict(APPEARANCE, widgetType="tab") if stype == "widget"
        else dict(APPEARANCE),
        "created_at": iso(created), "start_date": iso(start) if start else None,
        "end_date": iso(end) if end else None, "archived": archived,
        "responses_limit": 500 if i % 7 == 3 else None,
        "iteration_count": 4 if recurring else None, "iteration_frequency_days": 30 if recurring else None,
        "iteration_start_dates": [iso(start + timedelta(days=30 * k)) for k in range(4)] if recurring and start
        else [],
        "current_iteration": 2 if recurring else None,
        "current_iteration_start_date": iso(start + timedelta(days=30)) if recurring and start else None,
        "response_sampling_start_date": None, "response_sampling_interval_type": None,
        "response_sampling_interval": None, "response_sampling_limit": None,
        "response_sampling_daily_limits": None, "enable_partial_responses": i % 2 == 0,
        "enable_iframe_embedding": False, "translations": None, "form_content": None,
        "__created_by": creator, "__targeting_flag": targeting, "__internal_flag": internal,
    }
    base = 0 if start is None or start > now else rng.randint(0, 2500)
    rate = rng.uniform(0.5, 25.0) if start is not None and end is None and not archived else 0.0
    row = (sid, project_id, name, iso(created), int(archived), base, rate, dumps(doc))
    acts = [activity_row(seed, project_id, sid, name, creator, "created", None, created)]
    if start is not None and start < now:
        acts.append(activity_row(seed, project_id, sid, name, creator, "updated",
                                 [change("start_date", None, iso(start))], start))
    if end is not None and end < now:
        acts.append(activity_row(seed, project_id, sid, name, 1 + (creator % len(USERS)), "updated",
                                 [change("end_date", None, iso(end))], end))
    if archived and end is not None:
        acts.append(activity_row(seed, project_id, sid, name, creator, "updated",
                                 [change("archived", False, True)], end + timedelta(hours=3)))
    return row, acts


def change(field: str, before: Any, after: Any) -> dict[str, Any]:
    return {"type": "Survey", "action": "changed", "field": field, "before": before, "after": after}


def activity_row(
    seed: int, project_id: int, item_id: str, name: str, user_id: int, activity: str,
    changes: list[dict[str, Any]] | None, at: datetime,
) -> tuple[Any, ...]:
    entry = {"id": derived_uuid(seed, "activity", item_id, activity, iso(at)), "user_id": user_id,
             "activity": activity, "scope": "Survey", "item_id": item_id,
             "detail": {"id": None, "name": name, "short_id": None, "type": None, "changes": changes,
                        "merge": None, "trigger": None}}
    return (project_id, item_id, iso(at), dumps(entry))


def export_row(
    seed: int, project_id: int, i: int, name: str, dest: str, model: str, interval: str, profile: str,
    now: datetime, history: timedelta, start_at: datetime | None = None, end_at: datetime | None = None,
) -> tuple[Any, ...]:
    eid = derived_uuid(seed, "export", project_id, i)
    first_end = floor_interval(now - history, interval) + timedelta(seconds=INTERVALS[interval])
    created = first_end - timedelta(days=1, minutes=17 * (i + 1))
    query = ("SELECT uuid, event, timestamp, distinct_id, properties FROM events" if model == "events"
             else "SELECT team_id, distinct_id, person_id, properties FROM persons")
    doc = {"name": name, "model": model, "destination": {"type": dest, "config": destination_config(dest, i)},
           "hogql_query": query, "last_paused_at": None, "last_updated_at": iso(created),
           "filters": None, "timezone": "UTC", "offset_day": 0 if interval == "week" else None,
           "offset_hour": 0 if interval in ("day", "week") else None,
           "integration": 7 if dest == "Databricks" else None}
    return (eid, project_id, iso(created), 0, 0, interval, iso(start_at) if start_at else None,
            iso(end_at) if end_at else None, iso(first_end), profile, dumps(doc))


def seed_database(
    db: Database, sim: Simulator, now: datetime, seed: int, surveys: int | None = None, exports: int | None = None,
    scenario: str | None = None,
) -> None:
    """Fill an empty database; ticks the simulator to produce history up to ``now``.

    The ``outage`` scenario adds one destination outage that began a little before ``now`` and is
    still going on, so failures across several exports of that destination show at once.
    """
    rng = random.Random(seed)
    flags = _FlagAlloc()
    survey_rows: list[tuple[Any, ...]] = []
    activity_rows: list[tuple[Any, ...]] = []
    export_rows: list[tuple[Any, ...]] = []
    projects = []
    for pid, pname, tz in PROJECTS:
        projects.append((pid, dumps({
            "id": pid, "uuid": derived_uuid(seed, "project", pid), "organization": derived_uuid(seed, "org"),
            "api_token": f"sandbox-project-token-{pid}", "name": pname, "completed_snippet_onboarding": True,
            "has_completed_onboarding_for": {"product_analytics": True, "surveys": True}, "ingested_event": True,
            "is_demo": pid == 1, "timezone": tz, "access_control": False,
            # older than every survey and export the seed makes (surveys reach back 180 days)
            "created_at": iso(floor_interval(now - timedelta(days=365), "day") + timedelta(hours=9, minutes=30)),
        })))
    users = [(uid, dumps(user_doc(seed, uid, u))) for uid, u in enumerate(USERS, start=1)]
    for pid in (1, 2, 3):
        linked_ids = [flags.add(flag_doc(pid, key, key.replace("-", " ").capitalize(),
                                         {"groups": [{"properties": [], "rollout_percentage": 20 + 10 * k}],
                                          "multivariate": None, "payloads": {}}))
                      for k, key in enumerate(FLAG_KEYS[: 8 if pid == 1 else 2])]
        if pid == 1:
            count = surveys if surveys is not None else len(SURVEY_NAMES)
            names = [SURVEY_NAMES[i % len(SURVEY_NAMES)] + ("" if i < len(SURVEY_NAMES) else f" #{i}")
                     for i in range(count)]
        elif pid == 2:
            names = ["Staging smoke survey", "Staging NPS copy", "QA checklist feedback"]
        else:
            names = [*HOSTILE, "Plain survey in the playground"]
        for i, name in enumerate(names):
            row, acts = build_survey(seed, rng, pid, i, name, now, flags, linked_ids, hostile=(pid == 3))
            survey_rows.append(row)
            activity_rows.extend(acts)

    specs: list[tuple[int, str, str, str, str, str, timedelta, datetime | None, datetime | None]] = []
    for i, (name, dest, model, interval, profile) in enumerate(EXPORTS_P1):
        end_at = floor_interval(now - timedelta(days=3), "hour") if i == ENDED_INDEX else None
        specs.append((1, name, dest, model, interval, profile, HISTORY[interval], None, end_at))
    extra = (exports - len(EXPORTS_P1)) if exports is not None else 0
    if exports is not None and exports < len(EXPORTS_P1):
        specs = specs[:exports]
    for k in range(max(0, extra)):
        interval = INTERVAL_CYCLE[k % len(INTERVAL_CYCLE)]
        dest = DEST_CYCLE[k % len(DEST_CYCLE)]
        specs.append((1, f"{dest} export #{k + 1}", dest, "events" if k % 3 else "persons", interval, "normal",
                      timedelta(seconds=INTERVALS[interval] * 10), None, None))
    specs += [
        (2, "Staging S3 mirror", "S3", "events", "hour", "normal", timedelta(days=2), None, None),
        (2, "Staging Postgres", "Postgres", "persons", "day", "normal", timedelta(days=10), None, None),
        (3, "[bold]x[/bold] export", "HTTP", "events", "every 15 minutes", "flaky", timedelta(hours=12), None,
         None),
        (3, "\x1b[31mRed\x1b[0m [@click=app.quit]export", "S3", "events", "hour", "normal", timedelta(days=1),
         None, None),
    ]
    counters = {1: 0, 2: 0, 3: 0}
    for pid, name, dest, model, interval, profile, history, start_at, end_at in specs:
        export_rows.append(export_row(seed, pid, counters[pid], name, dest, model, interval, profile, now, history,
                                      start_at, end_at))
        counters[pid] += 1

    activity_rows.sort(key=lambda r: str(r[2]))
    with db.transaction() as c:
        c.executemany("INSERT INTO projects(id, data) VALUES(?, ?)", projects)
        c.executemany("INSERT INTO users(id, data) VALUES(?, ?)", users)
        c.executemany("INSERT INTO flags(id, team_id, data) VALUES(?, ?, ?)", flags.rows)
        c.executemany("INSERT INTO surveys(id, project_id, name, created_at, archived, responses_base, "
                      "responses_rate, data) VALUES(?,?,?,?,?,?,?,?)", survey_rows)
        c.executemany("INSERT INTO activity(project_id, item_id, created_at, data) VALUES(?,?,?,?)",
                      activity_rows)
        c.executemany("INSERT INTO exports(id, project_id, created_at, deleted, paused, interval, start_at, end_at, "
                      "next_end, profile, data) VALUES(?,?,?,?,?,?,?,?,?,?,?)", export_rows)

    if scenario == "outage":
        with db.transaction() as c:
            add_outage(c, DEMO_DESTINATION, now - DEMO_STARTED, now - DEMO_STARTED + DEMO_LASTS)

    # Force every terminal status to appear in the main project's last week.
    p1 = [r for r in export_rows if r[1] == 1]
    forced = ["Failed", "FailedRetryable", "TimedOut", "Terminated", "Cancelled", "ContinuedAsNew"]
    for j, status in enumerate(forced if p1 else []):
        for r in (p1[j % len(p1)], p1[(j + 6) % len(p1)]):
            step = timedelta(seconds=INTERVALS[r[5]])
            at = floor_interval(now - timedelta(hours=6), r[5]) - step * (1 + j % 3)
            sim.forced[(r[0], iso(at))] = status
    p2 = [r for r in export_rows if r[1] == 2]
    sim.forced[(p2[0][0], iso(floor_interval(now, "hour") - timedelta(hours=5)))] = "FailedBilling"

    paused_id = p1[PAUSED_INDEX][0] if len(p1) > PAUSED_INDEX else None
    pause_at = now - timedelta(days=3, hours=5)
    sim.tick(pause_at)
    if paused_id is not None:
        with db.transaction() as c:
            _pause(c, paused_id, pause_at)
    sim.tick(now)
    sim.forced = {}
    with db.transaction() as c:
        _seed_in_flight(c, sim, seed, p1, now)
        set_meta(c, "seeded", "1")
        set_meta(c, "seed", str(seed))
        set_meta(c, "seeded_at", iso(now))


def _pause(c: sqlite3.Connection, export_id: str, at: datetime) -> None:
    row = c.execute("SELECT data FROM exports WHERE id=?", (export_id,)).fetchone()
    doc = json.loads(row["data"])
    doc["last_paused_at"] = iso(at)
    doc["last_updated_at"] = iso(at)
    c.execute("UPDATE exports SET paused=1, data=? WHERE id=?", (dumps(doc), export_id))


def _seed_in_flight(c: sqlite3.Connection, sim: Simulator, seed: int, p1: list[tuple[Any, ...]], now: datetime) -> None:
    """Two retries in flight (one Starting, one Running) so every status shows on a frozen clock too."""
    if not p1:
        return
    for k, (age, start_delay) in enumerate([(3.0, 20.0), (90.0, 5.0)]):
        row = p1[min(k + 2, len(p1) - 1)]
        doc = json.loads(row[10])
        interval = row[5]
        step = timedelta(seconds=INTERVALS[interval])
        end = floor_interval(now, interval) - step * (4 + k)
        backfill_id = derived_uuid(seed, "seed-retry", k)
        plan = make_plan(random.Random(seed + k), interval=interval, destination=doc["destination"]["type"],
                         model=doc["model"], profile="normal", name=doc["name"], interval_start=iso(end - step),
                         interval_end=iso(end), force="Completed", start_delay_override=start_delay,
                         min_duration=600.0)
        created = now - timedelta(seconds=age)
        c.execute("INSERT INTO backfills(id, export_id, start_at, end_at, created_at, total_runs) VALUES(?,?,?,?,?,1)",
                  (backfill_id, row[0], iso(end - step), iso(end), iso(created)))
        sim.insert_run(c, derived_uuid(seed, "seed-retry-run", k), row[0], created, iso(end - step), iso(end), plan,
                       backfill_id, now)
