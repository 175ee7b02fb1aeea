"""A tournament as files an organiser takes elsewhere: entries, results and standings as
CSV, and the whole event as one JSON document.

They hold what the tournament's page shows anyone who may see it, nothing more: names,
seeds, statuses, scores and placements, the match ids whose pages and move logs are public
once finished, and the draw seed only once it is revealed. A cell that starts with
=, +, - or @ is prefixed with an apostrophe, so a player named "=HYPERLINK(...)" stays text
in a spreadsheet.
"""

from __future__ import annotations

import csv
import io

from gameplay.models import Seat
from tournaments import selectors
from tournaments.models import Entry, TableMatch, TableSeat, Tournament

KINDS = ("entries", "results", "standings")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA) else text


def _csv(header: list[str], rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return out.getvalue()


def _iso(value) -> str:
    return value.isoformat() if value else ""


def entry_rows(tournament: Tournament) -> list[list]:
    return [
        [
            entry.pk,
            entry.player.display_name,
            entry.player.is_bot,
            entry.status,
            entry.seed,
            entry.placement,
            _iso(entry.registered_at),
            _iso(entry.checked_in_at),
        ]
        for entry in selectors.entries(tournament)
    ]


ENTRY_HEADER = ["entry", "player", "bot", "status", "seed", "placement", "registered", "checked_in"]


def result_rows(tournament: Tournament) -> list[list]:
    """One row per seat of every finished match, in bracket order."""
    played = TableMatch.objects.filter(
        table__tournament=tournament, match__finalized_at__isnull=False
    ).select_related("table", "match")
    by_match = {record.match_id: record for record in played}
    seats = (
        Seat.objects.filter(match_id__in=list(by_match))
        .select_related("player")
        .order_by("match_id", "index")
    )
    rows = []
    for seat in seats:
        record = by_match[seat.match_id]
        rows.append(
            [
                record.table.round_number,
                record.table.position + 1,
                record.number,
                seat.match_id,
                seat.index,
                seat.player.display_name,
                seat.score,
                seat.placement,
                seat.forfeited,
                record.match.status,
            ]
        )
    rows.sort(key=lambda row: (row[0], row[1], row[2], row[4]))
    return rows


RESULT_HEADER = [
    "round",
    "table",
    "game",
    "match",
    "seat",
    "player",
    "score",
    "placement",
    "forfeited",
    "status",
]


def standing_rows(tournament: Tournament) -> list[list]:
    """Final placements once the tournament is over; before, who is still in and how far
    each entry went, with the series wins and points summed over its tables."""
    totals: dict[int, list[int]] = {}
    for entry_id, wins, points in TableSeat.objects.filter(
        table__tournament=tournament
    ).values_list("entry_id", "wins", "points"):
        total = totals.setdefault(entry_id, [0, 0])
        total[0] += wins
        total[1] += points
    entries = Entry.objects.filter(tournament=tournament, seed__isnull=False).select_related(
        "player"
    )
    rows = [
        [
            entry.placement,
            entry.player.display_name,
            entry.status,
            entry.seed,
            entry.out_round,
            *totals.get(entry.pk, [0, 0]),
        ]
        for entry in entries
    ]
    rows.sort(key=lambda row: (row[0] is None, row[0] or 0, row[3] or 0))
    return rows


STANDING_HEADER = ["placement", "player", "status", "seed", "out_round", "wins", "points"]

TABLES = {
    "entries": (ENTRY_HEADER, entry_rows),
    "results": (RESULT_HEADER, result_rows),
    "standings": (STANDING_HEADER, standing_rows),
}


def as_csv(tournament: Tournament, kind: str) -> str:
    header, rows = TABLES[kind]
    return _csv(header, rows(tournament))


def as_document(tournament: Tournament) -> dict:
    """The whole event: settings, prizes, entries, every finished match's seats, the
    standings and the bracket as the API serves it."""

    def records(kind: str) -> list[dict]:
        header, rows = TABLES[kind]
        return [dict(zip(header, row, strict=True)) for row in rows(tournament)]

    return {
        "format": "knock-tournament/1",
        "tournament": {
            "id": tournament.pk,
            "name": tournament.name,
            "status": tournament.status,
            "game": tournament.variant,
            "options": tournament.options,
            "format": tournament.format,
            "table_size": tournament.table_size,
            "advance": tournament.advance,
            "best_of": tournament.best_of,
            "entry_fee": tournament.entry_fee,
            "starts_at": _iso(tournament.starts_at),
            "started_at": _iso(tournament.started_at),
            "finished_at": _iso(tournament.finished_at),
            "draw_seed": tournament.seed if tournament.draw_revealed else None,
            "draw_commitment": tournament.draw_commitment,
        },
        "prizes": [
            {"placement": prize.placement, "coins": prize.coins, "xp": prize.xp}
            for prize in tournament.prizes.all()
        ],
        "entries": records("entries"),
        "results": records("results"),
        "standings": records("standings"),
        "bracket": selectors.bracket(tournament),
    }
