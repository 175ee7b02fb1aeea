"""Settings no tournament could start with are refused when the organiser saves them, at
the field they concern, on the form and the API alike (issue 31, "honest form"); the
bounds the form and the serializer offer are the service's own (services.BOUNDS)."""

import pytest

from config.errors import DomainError
from tests.tournaments.helpers import FAST_GIN, organiser
from tournaments import forms, serializers, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

FORM = {
    "name": "Honest Cup",
    "variant": "gin",
    "seeding": "rating",
    "table_size": "2",
    "advance": "1",
    "best_of": "1",
    "min_level": "1",
    "entry_fee": "0",
    "show_up_seconds": "120",
    "turn_seconds": "30",
}
TWO_STAGE = {"format": "two_stage", "groups": 3, "group_advance": 5, "max_entries": 4}

IMPOSSIBLE = [
    ({**TWO_STAGE}, "groups"),
    ({**TWO_STAGE, "groups": 2}, "group_advance"),
    ({"min_entries": 9, "max_entries": 8}, "min_entries"),
    ({"min_entries": 1}, "min_entries"),
    ({"format": "swiss", "swiss_rounds": 31}, "swiss_rounds"),
    ({"format": "swiss", "swiss_rounds": 0}, "swiss_rounds"),
    ({**TWO_STAGE, "groups": 65}, "groups"),
]


@pytest.mark.parametrize(("values", "field"), IMPOSSIBLE)
def test_the_form_refuses_at_the_field(client, values, field):
    client.force_login(organiser())
    page = client.post("/tournaments/new/", {**FORM, **{k: str(v) for k, v in values.items()}})
    assert page.status_code == 200
    assert page.context["form"].errors.get(field), page.context["form"].errors
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(("values", "field"), IMPOSSIBLE)
def test_the_api_refuses_with_a_stable_code(api_client, values, field):
    api_client.force_authenticate(user=organiser())
    body = {"name": "Honest Cup", "variant": "gin", "options": FAST_GIN, **values}
    refused = api_client.post("/api/tournaments/", body, format="json")
    assert refused.status_code == 400, refused.json()
    error = refused.json()["error"]
    assert error["code"] in ("invalid_settings", "invalid"), error  # service, serializer
    assert field in str(error), error
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(("values", "field"), IMPOSSIBLE)
def test_the_service_refuses_naming_the_field(values, field):
    with pytest.raises(DomainError) as refused:
        services.tournament_create(
            organiser=organiser(), name="Honest Cup", variant="gin", **values
        )
    assert (refused.value.code, refused.value.details) == ("invalid_settings", {"field": field})


def test_a_two_stage_event_that_can_start_is_accepted(api_client):
    api_client.force_authenticate(user=organiser())
    body = {"name": "Fine Cup", "variant": "gin", "options": FAST_GIN, **TWO_STAGE}
    body.update(groups=2, group_advance=2)
    assert api_client.post("/api/tournaments/", body, format="json").status_code == 201


def test_one_definition_of_each_bound():
    for name, (low, high) in services.BOUNDS.items():
        field = forms.TournamentForm.base_fields[name]
        assert (field.min_value, field.max_value) == (low, high), name
        api = serializers.TournamentWriteSerializer().fields[name]
        assert (api.min_value, api.max_value) == (low, high), name


def test_the_page_shows_the_rules_the_clock_and_the_schedule(client):
    from datetime import timedelta

    from django.utils import timezone

    from tests.tournaments.helpers import open_tournament

    starts = timezone.now() + timedelta(hours=3)
    tournament = open_tournament(
        options={"target": 50}, starts_at=starts, min_entries=4, turn_seconds=45
    )
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Target 50" in page
    assert "45 s a turn" in page
    assert f'data-countdown datetime="{starts.isoformat()[:19]}' in page
    assert "fewer than 4 entries" in page
