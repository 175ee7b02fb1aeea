"""The README's examples, run as written: its curl walk-throughs against a live server with
the demo data and a real Celery worker, and its replay recipe on the match they played.

The commands are read out of README.md itself, so an example that stops working fails
here. Placeholders in angle brackets (`<match>`, `<seq>`) are filled from the answers
of the commands before them, as a reader would.
"""

import json
import re
import shlex
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from gameplay.models import Room
from tests.gameplay.helpers import choose

pytestmark = [pytest.mark.django_db(transaction=True)]

README = Path(settings.BASE_DIR, "README.md").read_text()


def readme_block(heading: str, language: str) -> str:
    """The first ```language block after the line `heading`."""
    after = README[README.index(heading + "\n") :]
    match = re.search(rf"```{language}\n(.*?)```", after, re.S)
    assert match, f"no {language} block under {heading!r}"
    return match.group(1)


def commands(block: str) -> list[list[str]]:
    """Shell lines of a block, continuations joined and comments dropped, split into words."""
    joined = block.replace("\\\n", " ")
    words = (shlex.split(line, comments=True) for line in joined.splitlines())
    return [line for line in words if line]


class Shell:
    """Runs the README's `export` and `curl` lines over real HTTP to the live server."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.env: dict[str, str] = {}
        self.values: dict[str, str] = {}

    def fill(self, word: str) -> str:
        for name, value in self.env.items():
            word = word.replace(f"${name}", value)
        for placeholder in re.findall(r"<[^<>]+>", word):
            assert placeholder in self.values, f"nothing fills {placeholder} in {word!r}"
            word = word.replace(placeholder, self.values[placeholder])
        return word

    def run(self, words: list[str]):
        words = [self.fill(word) for word in words]
        if words[0] == "export":
            name, value = words[1].split("=", 1)
            self.env[name] = value
            return None
        assert words[0] == "curl", words
        return self.curl(words[1:])

    def curl(self, args: list[str]) -> tuple[int, object]:
        method, headers, data, url = None, {}, [], None
        args = iter(args)
        for arg in args:
            if arg == "-X":
                method = next(args)
            elif arg == "-H":
                name, value = next(args).split(":", 1)
                headers[name.strip()] = value.strip()
            elif arg == "-d":
                data.append(next(args))
            else:
                assert not arg.startswith("-"), f"the test knows no curl option {arg}"
                url = arg
        url = re.sub(r"^(https?://)?localhost:8000", self.base_url, url)
        body = None
        if data:
            body = "&".join(data).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(url, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        return status, json.loads(raw) if raw else None


@pytest.fixture
def demo_site(live_server, celery_worker, settings):
    settings.DEBUG = True  # load_demo refuses to run otherwise
    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    # Bots answer at once here; the demo's human-like pause would make a match minutes long.
    Room.objects.update(bot_pause_ms=0)
    return Shell(live_server.url)


def wait_for_my_turn(shell: Shell, match_id: int) -> dict:
    """Bots move on the worker: read the view again until it is ours or the match is over."""
    for _ in range(120):
        status, view = shell.curl(
            ["-H", shell.env["AUTH"], f"localhost:8000/api/matches/{match_id}/"]
        )
        assert status == 200, view
        if view["your_turn"] or view["status"] != "active":
            return view
        time.sleep(0.25)  # a polite client: well inside the API's per-player rate limit
    raise AssertionError("the bot never moved")


def test_the_readme_walk_throughs_and_replay_recipe_work_as_written(demo_site):
    """One test, so the demo is loaded once: the match walk-through, its replay recipe on
    the finished match, then the tournament walk-through with the same player."""
    walk_through_a_match(demo_site)
    walk_through_a_tournament(demo_site)
    walk_through_the_tokens(demo_site)


def walk_through_the_tokens(shell: Shell) -> None:
    """The last player's tokens listed (the demo player's: its login's), and the one in use
    revoked: it is refused from then on."""
    listed, revoke = commands(readme_block("### Your API tokens", "sh"))
    status, tokens = shell.run(listed)
    assert status == 200 and {"id", "name", "prefix", "expires_at"} <= set(tokens[0]), tokens
    current = next(token for token in tokens if token["current"])
    shell.values["<token_id>"] = str(current["id"])
    status, _ = shell.run(revoke)
    assert status == 204
    status, _ = shell.run(listed)
    assert status == 401


def token_header(shell: Shell, username: str, password: str) -> str:
    status, body = shell.curl(
        ["-X", "POST", "localhost:8000/api/auth/token/", "-d", f"username={username}",
         "-d", f"password={password}"]
    )  # fmt: skip
    assert status == 200, body
    return f"Authorization: Token {body['token']}"


def walk_through_a_match(shell: Shell) -> None:
    lines = commands(readme_block("### Playing a match over the API", "sh"))
    register, token, export, rooms, play, view, act = lines

    status, body = shell.run(register)
    assert status == 201 and {"id", "username", "token"} <= set(body)
    status, body = shell.run(token)
    assert status == 200
    shell.values["<token>"] = body["token"]
    shell.run(export)

    status, listed = shell.run(rooms)
    assert status == 200
    assert {"id", "name", "variant", "entry_fee", "locked"} <= set(listed[0])
    gin = next(
        room
        for room in listed
        if room["variant"] == "gin" and not room["locked"] and room["entry_fee"] == 0
    )
    assert gin["name"] == "Gin Quick Play"
    shell.values["<room>"] = str(gin["id"])

    status, body = shell.run(play)
    assert status == 201, body
    match_id = body["match"]
    shell.values["<match>"] = str(match_id)

    status, seen = shell.run(view)
    assert status == 200 and {"seq", "legal_actions", "hand", "table"} <= set(seen)
    seen = wait_for_my_turn(shell, match_id)
    while seen["status"] == "active":
        shell.values["<seq>"] = str(seen["seq"])
        shell.values["<action>"] = json.dumps(choose(seen))
        status, answer = shell.run(act)
        assert status == 200, answer
        seen = wait_for_my_turn(shell, match_id)

    assert seen["status"] == "finished"
    recipe = readme_block("in Python from this checkout:", "python")
    namespace = {"view": seen}
    exec(recipe, namespace)
    assert namespace["game"].result == seen["result"]  # the recipe ran to its end
    # The same recipe, verbatim, on the downloadable document, fetched with no sign-in.
    status, document = shell.curl([f"localhost:8000/api/matches/{match_id}/document/"])
    assert status == 200 and document["client_seeds"][0], document
    namespace = {"view": document}
    exec(recipe, namespace)
    assert namespace["game"].result == document["result"]


def walk_through_a_tournament(shell: Shell) -> None:
    """As the demo's organiser, with the match walk-through's player and the demo player."""
    create, open_registration, register, start, bracket, show_up = commands(
        readme_block("### Running a tournament over the API", "sh")
    )
    shell.env["ORGANISER"] = token_header(shell, "admin", "knock-demo")
    status, body = shell.run(create)
    assert status == 201 and body["status"] == "draft", body
    shell.values["<id>"] = str(body["id"])
    status, body = shell.run(open_registration)
    assert status == 200 and body["status"] == "registration", body

    player = shell.env["AUTH"]
    demo_player = token_header(shell, "demo", "knock-demo-player")
    for header in (player, demo_player):
        shell.env["AUTH"] = header
        status, body = shell.run(register)
        assert status == 201 and body["status"] == "registered", body
    status, body = shell.run(start)
    assert status == 200 and body["status"] == "running", body

    status, drawn = shell.run(bracket)
    assert status == 200, drawn
    (final,) = drawn["rounds"][0]["tables"]
    shell.values["<table>"] = str(final["id"])
    for header in (player, demo_player):
        shell.env["AUTH"] = header
        status, body = shell.run(show_up)
        assert status == 200, body
    status, drawn = shell.run(bracket)
    assert drawn["rounds"][0]["tables"][0]["matches"], "both showed up: the match starts"
