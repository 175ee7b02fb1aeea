"""Resign, call off and Next hand over the table's socket: the same services and codes as
their HTTP endpoints, answered with a view carrying the frame's ref or an error frame."""

import pytest

from gameplay.models import Match
from tests.gameplay.test_consumers import frames_until, human_match, run_async, sessions, socket

pytestmark = pytest.mark.django_db(transaction=True)


def test_call_off_then_resign_and_next_hand_frames():
    match, ada, _bob = human_match()
    cookies = sessions(ada)

    async def run():
        comm = socket(match.pk, cookies[ada.pk])
        assert (await comm.connect())[0]
        hello, _ = await frames_until(comm, "view")
        assert hello["view"]["can_abort"] is True and hello["view"]["hand_break"] is None
        # Not resting: Next hand changes nothing and is no error.
        await comm.send_json_to({"type": "next_hand", "ref": 1})
        same, _ = await frames_until(comm, "view")
        assert same["ref"] == 1 and same["seq"] == 0
        await comm.send_json_to({"type": "abort", "ref": 2})
        off, _ = await frames_until(comm, "view")
        assert off["ref"] == 2 and off["view"]["status"] == "aborted"
        await comm.send_json_to({"type": "resign", "ref": 3})
        refused, _ = await frames_until(comm, "error")
        assert refused["ref"] == 3 and refused["error"]["code"] == "match_over"
        await comm.disconnect()

    run_async(run)
    assert Match.objects.get(pk=match.pk).status == Match.Status.ABORTED


def test_a_resign_frame_ends_the_match_out_of_turn_too():
    match, _ada, bob = human_match()
    cookies = sessions(bob)

    async def run():
        comm = socket(match.pk, cookies[bob.pk])
        assert (await comm.connect())[0]
        await frames_until(comm, "view")
        await comm.send_json_to({"type": "resign", "ref": 9})
        answer, _ = await frames_until(comm, "view")
        assert answer["ref"] == 9 and answer["view"]["status"] == "finished"
        assert answer["view"]["result"]["forfeit"] == {"seat": 1, "reason": "resigned", "seq": 1}
        await comm.disconnect()

    run_async(run)
    match.refresh_from_db()
    assert match.log[-1]["action"] == {"type": "resign"}
