"""Every match of a tournament, as the API publishes it once over, passes `engine.verify`
(the check anyone can run without trusting Knock), forfeits included."""

import json

import pytest

from engine.verify import main
from gameplay.models import Match
from tests.tournaments.helpers import (
    bots,
    drive,
    humans,
    lose,
    open_tournament,
    register_all,
)
from tournaments import services

pytestmark = pytest.mark.django_db


def test_every_match_of_a_tournament_verifies_from_the_api(api_client, tmp_path, capsys):
    tournament = open_tournament(show_up_seconds=0, best_of=1)
    players = bots(8)
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
        services.table_start(table_id=table_id)
    lose(tournament, players[0])  # one match ends in a forfeit
    drive(tournament)
    matches = Match.objects.filter(tournament_table__table__tournament=tournament)
    assert matches.count() == 7
    for match in matches:
        api_client.force_authenticate(match.seats.first().player.user)  # a seat sees it now
        published = api_client.get(f"/api/matches/{match.pk}/").json()
        path = tmp_path / f"{match.pk}.json"
        path.write_text(json.dumps(published))
        assert main(["--quiet", str(path)]) == 0, capsys.readouterr().err
        number = len(published["moves"]) + 1
        illegal = {"type": "discard", "card": "JK"}  # no joker in Gin's deck
        published["moves"].append({"number": number, "seat": 0, "action": illegal})
        path.write_text(json.dumps(published))
        assert main(["--quiet", str(path)]) == 1
        assert "is illegal" in capsys.readouterr().err


def test_every_match_of_a_tournament_downloads_as_a_document_that_verifies(
    client, tmp_path, capsys
):
    """The downloadable document, as anyone (signed in or not) gets it, with people's client
    seeds in it; one changed move, seed or result and it no longer verifies."""
    tournament = open_tournament(show_up_seconds=0, best_of=1)
    players = [*humans(2), *bots(2)]
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
        services.table_start(table_id=table_id)
    for person in players[:2]:
        lose(tournament, person)  # people forfeit here: bots play the rest
    drive(tournament)
    matches = Match.objects.filter(tournament_table__table__tournament=tournament)
    assert matches.count() == 3
    assert sum(seed is not None for m in matches for seed in m.client_seeds) == 2
    path = tmp_path / "match.json"
    for match in matches:
        document = client.get(f"/api/matches/{match.pk}/document/").json()
        path.write_text(json.dumps(document))
        assert main(["--quiet", str(path)]) == 0, capsys.readouterr().err
        changed_seed = {**document, "seed": document["seed"][::-1]}
        changed_result = {**document, "result": {**document["result"], "scores": [999, 999]}}
        for broken in (changed_seed, changed_result):
            path.write_text(json.dumps(broken))
            assert main(["--quiet", str(path)]) == 1
        capsys.readouterr()
