"""A Content-Security-Policy on every response, and the site working under it in Chromium.

The browser tests' `page` fixture fails any test whose pages report a CSP violation, so
every page the suite visits is checked; these add the pages only an admin or a developer sees.
"""

import re

import pytest

from tests.factories import UserFactory


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {
        name: values
        for name, *values in (part.split() for part in header.split(";") if part.strip())
    }


PAGES = ["/", "/rooms/", "/tournaments/", "/leagues/", "/accounts/login/", "/admin/login/"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", [*PAGES, "/api/docs/"])
def test_every_page_has_a_policy_with_a_nonce_for_its_inline_code(client, path):
    response = client.get(path, follow=True)
    assert response.status_code == 200
    rules = policy(response)
    assert rules["default-src"] == ["'self'"]
    assert rules["object-src"] == ["'none'"]
    assert rules["frame-ancestors"] == ["'none'"]
    assert rules["base-uri"] == ["'self'"]
    assert rules["form-action"] == ["'self'"]
    assert "'unsafe-inline'" not in rules["script-src"] + rules["style-src"]
    assert "'unsafe-eval'" not in rules["script-src"]
    page = response.content.decode()
    for tag in re.findall(r"<(?:script|style)\b[^>]*>", page):
        if "src=" not in tag:
            nonce = re.search(r'nonce="([^"]+)"', tag)
            assert nonce, f"inline code without a nonce: {tag}"
            directive = "script-src" if tag.startswith("<script") else "style-src"
            assert f"'nonce-{nonce.group(1)}'" in rules[directive]
    assert not re.search(r"\son[a-z]+=", page), "inline event handlers never run under the policy"
    assert not re.search(r"\sstyle=", page), "style attributes never apply under the policy"


@pytest.mark.django_db
def test_the_api_and_its_docs_have_the_policy_and_websockets_to_the_site_are_allowed(client):
    for path in ("/api/", "/api/schema/", "/api/docs/", "/api/no-such-thing/"):
        rules = policy(client.get(path))
        assert rules["default-src"] == ["'self'"]
        assert rules["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]


@pytest.mark.browser
def test_swagger_ui_renders_the_api_under_the_policy(page):
    page.goto("/api/docs/")
    page.wait_for_selector(".opblock-tag-section")
    assert page.locator(".opblock").count() > 20
    page.locator(".opblock-summary-path", has_text="/api/leagues/").first.click()
    page.click("text=Try it out")
    page.click("text=Execute")
    status = page.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for()
    assert "200" in status.inner_text()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_admin_works_under_the_policy(page, login):
    UserFactory(username="root", is_staff=True, is_superuser=True)
    page.goto("/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "correct-horse-battery")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    page.goto("/admin/tournaments/tournament/add/")
    # The date and time shortcuts are the admin's own JavaScript.
    page.wait_for_selector(".datetimeshortcuts")
    page.locator(".datetimeshortcuts a", has_text="Today").first.click()
    assert page.locator("input.vDateField").first.input_value()
    page.goto("/admin/auth/user/add/")
    page.wait_for_selector("#id_username")


@pytest.mark.django_db
def test_the_browsable_api_keeps_the_policy_and_only_lets_style_attributes_apply(client):
    client.force_login(UserFactory(username="reader"))
    response = client.get("/api/rooms/", HTTP_ACCEPT="text/html")
    assert response.status_code == 200 and b"<html" in response.content
    rules = policy(response)
    assert rules["style-src-attr"] == ["'unsafe-inline'"]
    assert "'unsafe-inline'" not in rules["script-src"] + rules["style-src"]
    for nonce in re.findall(r'<style nonce="([^"]+)"', response.content.decode()):
        assert f"'nonce-{nonce}'" in rules["style-src"]
    assert not re.search(r"<style>", response.content.decode())
    assert "style-src-attr" not in policy(client.get("/api/rooms/", HTTP_ACCEPT="application/json"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_browsable_api_renders_under_the_policy(page, login):
    """The `page` fixture fails the test on any violation Chromium reports."""
    UserFactory(username="reader")
    login("reader")
    page.goto("/api/rooms/")
    page.wait_for_selector(".response-info")
    assert page.locator(".request-info").count() == 1
