"""Tournament formats beyond the single-elimination knock-out (issue 18), on plain data.

Each module is a set of plain functions and frozen dataclasses with no database, in the
habit of `tournaments.bracket`: a service loads rows, calls one of these and writes what it
returns, so every rule is proven by property tests without a database.

* `double` -- double elimination: winners' and losers' brackets and the grand final.
* `swiss` -- Swiss pairing for head-to-head matches, byes and colours.
* `tiebreaks` -- Swiss standings: score, Buchholz, median Buchholz, Sonneborn-Berger,
  head-to-head and rating, selectable and in any order.
* `swiss_tables` -- Swiss at 3-6 seat tables: points by place, seat rotation, few repeats.
* `two_stage` -- round-robin groups drawn by snake, then the qualifiers seeded into a bracket.
"""
