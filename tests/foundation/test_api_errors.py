"""Every API error has one shape: {"error": {"code", "message", "details"}}."""

import pytest


def assert_error_shape(response, status: int, code: str):
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return body["error"]


@pytest.mark.urls("tests.foundation.error_urls")
def test_validation_error_400(api_client):
    error = assert_error_shape(api_client.post("/api/validate/", {"points": -3}), 400, "invalid")
    assert "points" in error["details"]


@pytest.mark.django_db
@pytest.mark.urls("tests.foundation.error_urls")
def test_unauthenticated_401(api_client):
    response = api_client.get("/api/private/")
    assert_error_shape(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.urls("tests.foundation.error_urls")
def test_conflict_409_carries_code_and_details(api_client):
    error = assert_error_shape(api_client.get("/api/conflict/"), 409, "stale_seq")
    assert error["details"] == {"seq": 3}


@pytest.mark.urls("tests.foundation.error_urls")
def test_unexpected_error_500_hides_the_traceback(api_client):
    api_client.raise_request_exception = False
    response = api_client.get("/api/crash/")
    error = assert_error_shape(response, 500, "server_error")
    assert "secret internal detail" not in response.content.decode()
    assert error["details"] is None


def test_unknown_api_path_404(api_client):
    assert_error_shape(api_client.get("/api/no-such-thing/"), 404, "not_found")


def test_schema_and_docs_are_served(client):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"openapi" in schema.content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content
    assert b"cdn.jsdelivr" not in docs.content  # served by the sidecar, works offline
