"""The home page in a real browser."""

import pytest

pytestmark = pytest.mark.browser


def test_home_page_links_to_the_api_docs(page):
    page.goto("/")
    assert page.title() == "Home · Knock"
    page.click("text=API documentation")
    page.wait_for_selector("#swagger-ui")
    assert "/api/docs/" in page.url


@pytest.mark.django_db(transaction=True)
def test_a_player_logs_in_and_out(page, login):
    from tests.factories import UserFactory

    UserFactory(username="grace")
    login("grace")
    assert page.locator("header.site").inner_text().count("grace") == 1
    page.click("text=Log out")
    page.wait_for_selector("text=Logged out")
