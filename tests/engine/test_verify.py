"""`python -m engine.verify` checks a finished match without trusting the server: the seed
against its commitment, every deal, every move's legality and the result; and the engine
installs and runs on its own, with no Django."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import fair, variants
from engine.verify import main

SEED = "verify-me"
ENGINE = Path(__file__).resolve().parents[2] / "engine"


def document(variant: str, players: int = 2) -> dict:
    options = {"target": 50} if variant == "gin" else {}
    record = variants.get(variant).play(players, SEED, ["greedy"] * players, options)
    return {
        "variant": variant,
        "options": options,
        "seats": [{"seat": s} for s in range(players)],
        "seed": SEED,
        "commitment": fair.commitment(SEED),
        "moves": [{"number": n, **m} for n, m in enumerate(record.moves, start=1)],
        "result": record.result,
    }


def run(doc: dict, tmp_path: Path, *args: str) -> int:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(doc))
    return main([*args, str(path)])


@pytest.mark.parametrize("variant", variants.names())
def test_a_fair_match_of_every_variant_is_verified(variant, tmp_path, capsys):
    assert run(document(variant), tmp_path) == 0
    out = capsys.readouterr().out
    assert "= sha256(seed): ok" in out
    assert "hand 1 dealt from the seed:" in out and "  seat 1: " in out
    assert out.count("  legal\n") == len(document(variant)["moves"])
    assert out.rstrip().endswith("every move was legal")


def test_another_seed_is_refused_by_the_commitment(tmp_path, capsys):
    doc = document("gin") | {"seed": "another-seed"}
    assert run(doc, tmp_path, "--quiet") == 1
    assert "does not match the commitment" in capsys.readouterr().err


def test_another_seed_with_its_own_commitment_deals_other_cards(tmp_path, capsys):
    doc = document("gin") | {"seed": "other", "commitment": fair.commitment("other")}
    assert run(doc, tmp_path, "--quiet") == 1
    assert "NOT VERIFIED" in capsys.readouterr().err


def test_one_changed_move_is_refused_with_its_number(tmp_path, capsys):
    doc = document("gin")
    discard = next(m for m in doc["moves"] if m["action"]["type"] == "discard")
    held = "KS" if discard["action"]["card"] != "KS" else "KH"
    discard["action"] = {"type": "discard", "card": held}
    assert run(doc, tmp_path, "--quiet") == 1
    assert f"move {discard['number']} by seat {discard['seat']} is illegal" in (
        capsys.readouterr().err
    )


def test_a_changed_result_is_refused(tmp_path, capsys):
    doc = document("basic")
    doc["result"] = {**doc["result"], "winner": 1 - doc["result"]["winner"]}
    assert run(doc, tmp_path, "--quiet") == 1
    assert "replayed result differs" in capsys.readouterr().err


def test_a_log_cut_short_is_refused(tmp_path, capsys):
    doc = document("indian")
    doc["moves"] = doc["moves"][:-1]
    assert run(doc, tmp_path, "--quiet") == 1
    assert "end before the match does" in capsys.readouterr().err


def test_a_forfeit_verifies_where_the_log_stops_with_the_tables_scores(tmp_path, capsys):
    doc = document("gin")
    doc["moves"] = doc["moves"][:5]
    forfeit = {"seat": 0, "reason": "timeouts", "seq": 5}
    doc["result"] = {"winner": 1, "scores": [0, 0], "placements": [2, 1], "forfeit": forfeit}
    assert run(doc, tmp_path) == 0
    assert "seat 0 forfeited (timeouts) after move 5" in capsys.readouterr().out
    doc["result"]["forfeit"] = {**forfeit, "seq": 4}
    assert run(doc, tmp_path, "--quiet") == 1
    assert "published at move 4, the log has 5" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "cannot read the match"),
        ("[]", "must be a JSON object"),
        ('{"variant": "gin"}', "lacks options, seed, commitment, moves, result, seats"),
        (json.dumps(document("gin") | {"seed": None}), "not revealed yet"),
    ],
)
def test_an_unreadable_document_exits_2_saying_why(text, message, tmp_path, capsys):
    path = tmp_path / "match.json"
    path.write_text(text)
    assert main([str(path)]) == 2
    assert message in capsys.readouterr().err


def test_the_engine_installs_and_verifies_on_its_own_without_django(tmp_path):
    """Built from engine/pyproject.toml into a folder of its own, then run by an
    interpreter that sees neither the repository nor any installed package."""
    source = shutil.copytree(
        ENGINE, tmp_path / "source", ignore=shutil.ignore_patterns("__pycache__")
    )
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
    )
    (tmp_path / "match.json").write_text(json.dumps(document("gin")))
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from engine.verify import main; import importlib.util;"
        "assert importlib.util.find_spec('django') is None, 'django is importable';"
        "sys.exit(main(['--quiet', sys.argv[2]]))"
    )
    verified = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(target), str(tmp_path / "match.json")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert verified.returncode == 0, verified.stderr
    assert "verified" in verified.stdout
    assert (target / "engine" / "variants" / "gin.py").exists()


def document_with_client_seeds() -> dict:
    """A gin match dealt from a server seed and two players' client seeds."""
    client_seeds = ["player-zero", "player-one"]
    dealt = fair.deal_seed(SEED, client_seeds)
    record = variants.get("gin").play(2, dealt, ["greedy"] * 2, {"target": 50})
    return {
        "variant": "gin",
        "options": {"target": 50},
        "seats": [{"seat": 0}, {"seat": 1}],
        "seed": SEED,
        "commitment": fair.commitment(SEED),
        "client_seeds": client_seeds,
        "moves": [{"number": n, **m, "at": "2026-12-01T13:00:00Z"} for n, m in
                  enumerate(record.moves, start=1)],
        "result": record.result,
    }  # fmt: skip


def test_a_match_with_client_seeds_is_verified_from_its_deal_seed(tmp_path, capsys):
    assert run(document_with_client_seeds(), tmp_path) == 0
    out = capsys.readouterr().out
    assert 'client seeds ["player-zero", "player-one"]' in out
    dealt = fair.deal_seed(SEED, ["player-zero", "player-one"])
    assert f"deal seed HMAC-SHA256(seed, client seeds) = {dealt}" in out


def test_one_changed_client_seed_is_refused(tmp_path, capsys):
    doc = document_with_client_seeds()
    doc["client_seeds"] = ["player-zero", "player-two"]
    assert run(doc, tmp_path, "--quiet") == 1
    assert "NOT VERIFIED" in capsys.readouterr().err


def test_client_seeds_that_do_not_fit_the_seats_cannot_be_read(tmp_path, capsys):
    doc = document_with_client_seeds() | {"client_seeds": ["only-one"]}
    assert run(doc, tmp_path) == 2
    assert "one entry per seat" in capsys.readouterr().err
