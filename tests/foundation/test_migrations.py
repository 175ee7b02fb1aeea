"""Upgrades keep the old code working: migrate runs before the new code starts, so no
migration may break the release still running (docs/operations.md, "Upgrading").

- Every column added since each app's first migration has a database default or is
  nullable: the old code's INSERTs, which do not name the column, still succeed.
- django-migration-linter passes over every migration of Knock's apps, with the locking
  index operations counted as errors, except the historical steps in `ACCEPTED` (each
  written down in docs/operations.md as a deliberate breaking step).
- The linter, configured so, refuses a deliberately bad migration in a temporary app.
"""

import textwrap

import pytest
from django.apps import apps
from django.db import connection, migrations, models
from django.db.migrations.loader import MigrationLoader
from django.db.models import NOT_PROVIDED
from django_migration_linter import MigrationLinter

from tests.served import ROOT

# No transaction around the tests: sqlmigrate refuses AddIndexConcurrently inside one.
pytestmark = pytest.mark.django_db(transaction=True)

OUR_APPS = ["gameplay", "tournaments", "leagues", "outbox", "ops"]

#: Migrations released before the linter ran, each a breaking step for the release before
#: it (their added columns got database defaults later, in gameplay 0011 and tournaments
#: 0012), and gameplay 0014's widening of balances; listed with why.
ACCEPTED = {
    ("gameplay", "0002_move_log_column"): "the move log column (NOT NULL), the Move table dropped",
    ("gameplay", "0003_move_log_text"): "the move log's type changed from jsonb to text",
    ("gameplay", "0005_table_live"): "bot pause and spectators columns (NOT NULL)",
    ("gameplay", "0006_match_spectators"): "match.spectators_allowed (NOT NULL)",
    ("gameplay", "0007_dummy_claim_windows"): "claim window columns (NOT NULL)",
    ("gameplay", "0009_pre_committed_server_seeds"): "seat_seeds, next_seed (NOT NULL)",
    ("gameplay", "0014_bigint_balances"): "balances widened to bigint: tables rewritten",
    ("tournaments", "0002_lean_bracket_keys"): "indexes dropped and rebuilt in place",
    ("tournaments", "0004_entry_updates_in_place"): "an index dropped",
    ("tournaments", "0005_waiting_table_indexes"): "indexes built without CONCURRENTLY",
    ("tournaments", "0006_spectators"): "tournament.spectators_allowed (NOT NULL)",
    ("tournaments", "0007_draw_commitment"): "tournament.draw_commitment (NOT NULL)",
    ("tournaments", "0007_tournament_formats"): "format, grand_final and the Swiss columns",
    ("tournaments", "0009_two_stage_second_stage"): "tournament.second_stage (NOT NULL)",
    ("tournaments", "0010_two_stage_group_stage"): "tournament.group_stage (NOT NULL)",
}

#: Index operations that lock a table while they run count as errors, not warnings: on a
#: big table build indexes with AddIndexConcurrently in a migration with atomic = False.
LOCKING = ["CREATE_INDEX", "CREATE_INDEX_EXCLUSIVE", "DROP_INDEX", "REINDEX"]


def linter(**options) -> MigrationLinter:
    return MigrationLinter(
        no_cache=True,
        no_output=True,
        ignore_initial_migrations=True,
        warnings_as_errors_tests=LOCKING,
        **options,
    )


def added_fields() -> list[tuple[str, models.Field]]:
    """(migration, field now) of every NOT NULL column added after an app's first
    migration."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    found = []
    for (app, name), migration in sorted(loader.disk_migrations.items()):
        if app not in OUR_APPS or migration.initial:
            continue
        for operation in migration.operations:
            if isinstance(operation, migrations.AddField) and not operation.field.many_to_many:
                field = apps.get_model(app, operation.model_name)._meta.get_field(operation.name)
                if not field.null:
                    found.append((f"{app}.{name}", field))
    return found


def test_every_column_added_since_the_first_migration_has_a_database_default():
    added = added_fields()
    assert len(added) > 20
    missing = [f"{field} ({name})" for name, field in added if field.db_default is NOT_PROVIDED]
    assert missing == []


@pytest.mark.postgres
def test_the_migrated_database_has_those_defaults():
    """What the old code's INSERTs meet: the column defaults in PostgreSQL's catalogue."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND is_nullable = 'NO'"
            " AND column_default IS NOT NULL"
        )
        defaulted = set(cursor.fetchall())
    added = [(field.model._meta.db_table, field.column) for _, field in added_fields()]
    assert [column for column in added if column not in defaulted] == []


@pytest.mark.postgres
def test_the_migration_linter_passes_over_knocks_migrations():
    lint = linter(include_apps=OUR_APPS, ignore_name=[name for _, name in ACCEPTED])
    lint.lint_all_migrations()
    assert lint.nb_total > len(ACCEPTED)
    assert not lint.has_errors, (
        "run the linter for the details (tests/foundation/test_migrations.py)"
    )


@pytest.mark.postgres
def test_each_accepted_exception_is_still_needed():
    for app, name in ACCEPTED:
        lint = linter()
        lint.lint_all_migrations(app_label=app, migration_name=name)
        assert lint.nb_total == 1 and lint.has_errors, f"{name} passes: drop it from ACCEPTED"


def test_the_accepted_exceptions_are_written_down_as_breaking_steps():
    upgrading = (ROOT / "docs" / "operations.md").read_text().split("## Upgrading")[1]
    assert [
        name for app, name in ACCEPTED if f"`{app}/migrations/{name}.py`" not in upgrading
    ] == []


BAD_APP = {
    "0001_initial.py": """
        operations = [
            migrations.CreateModel(
                "Thing", [("id", models.BigAutoField(primary_key=True))]
            )
        ]
    """,
    # What the issue found: a NOT NULL column with only a Python default.
    "0002_not_null_column.py": """
        dependencies = [("lintprobe", "0001_initial")]
        operations = [
            migrations.AddField("thing", "size", models.IntegerField(default=0))
        ]
    """,
    "0003_plain_index.py": """
        dependencies = [("lintprobe", "0002_not_null_column")]
        operations = [
            migrations.AddIndex("thing", models.Index(fields=["size"], name="thing_size"))
        ]
    """,
    "0004_safe_column.py": """
        dependencies = [("lintprobe", "0003_plain_index")]
        operations = [
            migrations.AddField(
                "thing", "colour", models.CharField(max_length=8, default="", db_default="")
            )
        ]
    """,
    "0005_concurrent_index.py": """
        from django.contrib.postgres.operations import AddIndexConcurrently
        atomic = False
        dependencies = [("lintprobe", "0004_safe_column")]
        operations = [
            AddIndexConcurrently(
                "thing", models.Index(fields=["colour"], name="thing_colour")
            )
        ]
    """,
}


@pytest.fixture
def lintprobe(tmp_path, monkeypatch, settings):
    """A temporary app whose migrations are written above."""
    package = tmp_path / "lintprobe"
    (package / "migrations").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "migrations" / "__init__.py").write_text("")
    for name, body in BAD_APP.items():
        head = (
            "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n"
        )
        lines = textwrap.dedent(body).strip().splitlines()
        imports = [line for line in lines if line.startswith("from ")]
        rest = [line for line in lines if not line.startswith("from ")]
        text = "\n".join(imports) + "\n" + head + textwrap.indent("\n".join(rest), "    ") + "\n"
        (package / "migrations" / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, "lintprobe"]
    return "lintprobe"


@pytest.mark.postgres
def test_the_linter_refuses_a_bad_migration_in_a_temporary_app(lintprobe):
    verdicts = {}
    for name in [name.removesuffix(".py") for name in BAD_APP][1:]:
        lint = linter()
        lint.lint_all_migrations(app_label=lintprobe, migration_name=name)
        assert lint.nb_total == 1, name
        verdicts[name] = "refused" if lint.has_errors else "passed"
    assert verdicts == {
        "0002_not_null_column": "refused",
        "0003_plain_index": "refused",
        "0004_safe_column": "passed",
        "0005_concurrent_index": "passed",
    }
