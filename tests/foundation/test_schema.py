"""The OpenAPI schema tells the truth about errors, nulls and the shapes of match views."""

import pytest

ERROR_REF = "#/components/schemas/Error"
METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/", {"format": "json"}).json()


def operations(schema):
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def component(schema, ref: str) -> dict:
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]]


def json_schema(response: dict) -> dict:
    return response["content"]["application/json"]["schema"]


def test_every_operation_documents_its_errors_in_the_one_shape(schema):
    for path, method, operation in operations(schema):
        responses = operation["responses"]
        where = f"{method.upper()} {path}"
        assert {"400", "429"} <= set(responses), where
        assert "Retry-After" in responses["429"]["headers"], where
        for status, response in responses.items():
            if status >= "400":
                assert json_schema(response)["$ref"] == ERROR_REF, (where, status)
        if method != "get":
            assert {"403", "409", "413"} <= set(responses), where
        if "{" in path:
            assert "404" in responses, where
    error = component(schema, ERROR_REF)
    body = component(schema, error["properties"]["error"]["$ref"])
    assert set(body["required"]) == {"code", "message", "details"}
    assert body["properties"]["details"]["nullable"] is True


def test_auth_and_media_type_errors_are_documented_where_they_can_happen(schema):
    paths = schema["paths"]
    assert "401" in paths["/api/me/"]["get"]["responses"]
    assert "401" not in paths["/api/auth/register/"]["post"]["responses"]
    assert "403" not in paths["/api/leagues/"]["get"]["responses"]
    assert "415" in paths["/api/matches/{id}/actions/"]["post"]["responses"]
    assert "415" not in paths["/api/tournaments/{id}/withdraw/"]["post"]["responses"]
    assert "415" in paths["/api/tournaments/{id}/register/"]["post"]["responses"]  # a code


def test_fees_document_402(schema):
    paths = schema["paths"]
    assert "402" in paths["/api/rooms/{id}/play/"]["post"]["responses"]
    assert "402" in paths["/api/tournaments/{id}/register/"]["post"]["responses"]


def typed(schema, response: dict) -> dict:
    ref = json_schema(response)["$ref"]
    shape = component(schema, ref)
    assert shape["type"] == "object" and shape["properties"], ref
    return shape


def test_match_views_and_actions_are_typed_objects(schema):
    paths = schema["paths"]
    view = typed(schema, paths["/api/matches/{id}/"]["get"]["responses"]["200"])
    acted = typed(schema, paths["/api/matches/{id}/actions/"]["post"]["responses"]["200"])
    assert view == acted
    assert {"seq", "legal_actions", "hand", "seats", "commitment"} <= set(view["required"])
    assert view["properties"]["to_move"]["nullable"] is True
    assert view["properties"]["turn_deadline"]["nullable"] is True
    play = paths["/api/rooms/{id}/play/"]["post"]["responses"]
    assert "match" in typed(schema, play["201"])["properties"]
    assert "queued" in typed(schema, play["202"])["properties"]
    registered = paths["/api/auth/register/"]["post"]["responses"]["201"]
    assert "token" in typed(schema, registered)["properties"]


def test_fields_that_can_be_null_are_nullable(schema):
    player = component(schema, "#/components/schemas/Player")
    assert player["properties"]["title"]["nullable"] is True
    summary = component(schema, "#/components/schemas/MatchSummary")
    assert summary["properties"]["room"]["nullable"] is True


def test_a_tournament_action_is_one_of_the_actions(schema):
    operation = schema["paths"]["/api/tournaments/{id}/{action}/"]["post"]
    action = next(p for p in operation["parameters"] if p["name"] == "action")
    assert set(action["schema"]["enum"]) == {
        "open-registration",
        "open-check-in",
        "close-check-in",
        "start",
        "cancel",
    }


def test_the_schema_generates_without_warnings(tmp_path):
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))
