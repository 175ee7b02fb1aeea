"""Every write in tournaments: one function per use case, keyword-only.

The bracket's shape comes from tournaments.bracket (pure); these functions load rows, ask
it what happens next and store the outcome. One module per use case, each importing only
those listed before it:

* common: status groups, the drawn bracket's shape, the tournament lock, organiser
  checks, fee refunds
* webhooks: organisers' endpoints, the deliveries an event writes, one signed attempt
* access: who may enter (invitations, a rating band, rated matches, no-show bans) and
  who runs the event with its organiser
* creation: creating a tournament, its settings and prizes
* registration: opening registration and check-in, registering, the waiting list,
  checking in, closing check-in
* draw: seeds, starting the tournament, storing the bracket
* swiss: Swiss events' games read back, the next round paired, the standings
* groups: two-stage events' next group round, group orders, the knock-out's draw
* finish: placements and prizes once the last round is over; the next Swiss or group
  round, or the two-stage knock-out, once a round is over
* batch: what one transaction changes in the bracket, written together
* tables: starting tables, showing up, the deadline, replays, feeding the next round
* results: recording finished matches at their tables
* leaving: withdrawing, disqualification, forfeits
* cancel: cancelling a tournament
* schedule: what the periodic tasks ask for (ready tables, tournaments due)

Callers use the package (`from tournaments import services`; `services.tournament_start`).

Concurrency rules:

* The tournament row orders registration, check-in, the draw, cancelling and finishing.
* A table row orders everything that happens at that table (players showing up, a match
  result, a disqualification). Advancing locks the finished tables, then the tables they
  feed (later rounds), each group in primary-key order, then the tournament for the last
  round: locks are always taken forward through the bracket, so two workers never
  deadlock.
* Work comes in batches (a round's tables starting, the results of a batch of matches):
  a `Batch` loads each table it locks once, keeps the changes in memory and writes them
  together, and the matches it opens are created together, so their bots play in one task.
* Doing it twice returns quietly: a match is recorded once (`TableMatch.recorded`, read
  again under the table lock), a table finishes once (its status under the lock), prizes
  and refunds carry ledger keys.
"""

from tournaments.services.access import (
    entry_refusal,
    no_show_ban_lift,
    tournament_new_invite_code,
    tournament_set_co_organisers,
    tournament_set_entry_conditions,
)
from tournaments.services.cancel import tournament_cancel
from tournaments.services.common import (
    ACTIVE_ENTRY,
    ADMITTED,
    BEFORE_START,
    OPEN_FOR_ENTRIES,
    STARTABLE,
    bracket_of,
    can_organise,
    can_run,
    pool_account,
)
from tournaments.services.creation import (
    BOUNDS,
    EDITABLE,
    planned_pool,
    rake_of,
    tournament_create,
    tournament_set_embed_origins,
    tournament_update,
    validate_prizes,
    validate_settings,
)
from tournaments.services.draw import entry_set_seed, round_name, tournament_start
from tournaments.services.finish import (
    _maybe_finish_tournament as _maybe_finish_tournament,  # tests finish twice through it
)
from tournaments.services.groups import group_orders
from tournaments.services.leaving import entry_disqualify, entry_withdraw
from tournaments.services.registration import (
    entry_check_in,
    entry_register,
    tournament_close_check_in,
    tournament_open_check_in,
    tournament_open_registration,
)
from tournaments.services.results import table_match_finished, table_matches_finished
from tournaments.services.schedule import (
    start_batch,
    tournament_advance,
    tournaments_due,
    tournaments_with_ready_tables,
    waiting_tables,
)
from tournaments.services.swiss import TABLE_TIEBREAKS, place_points, swiss_standings
from tournaments.services.tables import (
    table_deadline,
    table_replay,
    table_show_up,
    table_start,
    table_start_many,
)
from tournaments.services.webhooks import webhook_add, webhook_deliver, webhook_remove

__all__ = [
    "ACTIVE_ENTRY",
    "ADMITTED",
    "BEFORE_START",
    "BOUNDS",
    "EDITABLE",
    "OPEN_FOR_ENTRIES",
    "STARTABLE",
    "TABLE_TIEBREAKS",
    "bracket_of",
    "can_organise",
    "can_run",
    "entry_check_in",
    "entry_disqualify",
    "entry_refusal",
    "entry_register",
    "entry_set_seed",
    "entry_withdraw",
    "group_orders",
    "no_show_ban_lift",
    "place_points",
    "planned_pool",
    "pool_account",
    "rake_of",
    "round_name",
    "start_batch",
    "swiss_standings",
    "table_deadline",
    "table_match_finished",
    "table_matches_finished",
    "table_replay",
    "table_show_up",
    "table_start",
    "table_start_many",
    "tournament_advance",
    "tournament_cancel",
    "tournament_close_check_in",
    "tournament_create",
    "tournament_new_invite_code",
    "tournament_open_check_in",
    "tournament_open_registration",
    "tournament_set_co_organisers",
    "tournament_set_embed_origins",
    "tournament_set_entry_conditions",
    "tournament_start",
    "tournament_update",
    "tournaments_due",
    "tournaments_with_ready_tables",
    "validate_prizes",
    "validate_settings",
    "waiting_tables",
    "webhook_add",
    "webhook_deliver",
    "webhook_remove",
]
