"""Tournament formats beyond the single-elimination knock-out (issue 18), on plain data.

Each module is a set of plain functions and frozen dataclasses with no database, in the
habit of `tournaments.bracket`: a service loads rows, calls one of these and writes what it
returns, so every rule is proven by property tests without a database.

* `double` -- double elimination: winners' and losers' brackets and the grand final.
* `swiss` -- Swiss pairing for head-to-head matches, byes and colours.
* `tiebreaks` -- Swiss standings: score, Buchholz, median Buchholz, Sonneborn-Berger,
  head-to-head and rating, selectable and in any order.
* `swiss_tables` -- Swiss at 3-6 seat tables: points by place, seat rotation, few repeats.
* `two_stage` -- round-robin or Swiss groups drawn by snake, then the qualifiers seeded into
  a single- or double-elimination bracket.

What a service calls (entries are any hashable ids; seeds are 1-based, 1 the best):

* ``double.build_double(n, grand_final="reset"|"simple") -> DoubleBracket``; per match
  ``double.walkover(bracket, ref, present)`` then ``double.advance(bracket, ref, seats,
  winner, loser_out=False) -> tuple[Move, ...]``; ``double.play_out`` for simulations.
* ``swiss.default_rounds(n)``; ``swiss.pair_round(players, games) -> Pairing`` (pairs in
  board order, first seat first; the bye; any unavoidable repeats);
  ``tiebreaks.standings(players, games, tiebreaks, ratings) -> list[Standing]``.
* ``swiss_tables.pair_tables(players, games, table_size=4, points=(3, 1, 0, 0),
  bye_points=None) -> TableRound``; ``swiss_tables.table_standings(...)``.
* ``two_stage.draw_groups(entries, n_groups)``, ``two_stage.group_schedule(group)``,
  ``two_stage.group_order(group, results)``, ``two_stage.seed_qualifiers(finishing,
  advance) -> list`` (the second stage's seed order, for ``bracket.build_bracket`` or
  ``double.build_double``); ``two_stage.swiss_group_order(group, games)`` for Swiss groups;
  ``two_stage_layout.build_two_stage(n, groups, advance, second_stage="single"|"double",
  group_stage="round_robin"|"swiss", swiss_rounds=None)`` lays a whole event out.
"""
