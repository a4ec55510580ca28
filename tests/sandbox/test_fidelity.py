"""Every object the sandbox returns validates against the real service's published schemas.

The one tolerated difference is the published flaw that flag objects may be null (see conftest).
"""

from __future__ import annotations

from typing import Any, Protocol

import httpx


class RealSchemas(Protocol):
    def validate(self, doc: str, component: str, instance: Any) -> None: ...

S = "/api/projects/1/surveys/"
E = "/api/environments/1/batch_exports/"


def test_survey_list_and_objects(client: httpx.Client, real_schemas: RealSchemas) -> None:
    for project in (1, 2, 3):
        page = client.get(f"/api/projects/{project}/surveys/").json()
        real_schemas.validate("surveys", "PaginatedSurveyList", page)
        for s in page["results"][:3]:
            real_schemas.validate("surveys", "Survey", client.get(f"/api/projects/{project}/surveys/{s['id']}/").json())


def test_survey_write_responses(client: httpx.Client, real_schemas: RealSchemas) -> None:
    created = client.post(S, json={"name": "Fidelity check", "type": "widget",
                                   "questions": [{"type": "open", "question": "Hi?"}]})
    assert created.status_code == 201
    real_schemas.validate("surveys", "SurveySerializerCreateUpdateOnly", created.json())
    patched = client.patch(f"{S}{created.json()['id']}/", json={"archived": True})
    real_schemas.validate("surveys", "SurveySerializerCreateUpdateOnly", patched.json())
    real_schemas.validate("surveys", "Survey", client.get(f"{S}{created.json()['id']}/").json())


def test_exports_and_runs(client: httpx.Client, real_schemas: RealSchemas) -> None:
    for project in (1, 2, 3):
        page = client.get(f"/api/environments/{project}/batch_exports/").json()
        real_schemas.validate("batch", "PaginatedBatchExportList", page)
        for e in page["results"]:
            real_schemas.validate("batch", "BatchExport", e)
            runs = client.get(f"{E.replace('/1/', f'/{project}/')}{e['id']}/runs/").json()
            real_schemas.validate("batch", "PaginatedBatchExportRunList", runs)
            for r in runs["results"]:
                real_schemas.validate("batch", "BatchExportRun", r)
