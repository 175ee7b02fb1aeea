"""Leave room on each PostgreSQL page so ranking a division rewrites rows in place.

Ranking updates every row of a division; rank columns are not indexed, so with free space
on the page PostgreSQL makes heap-only (HOT) updates and skips index maintenance, which
halves the time of a 100,000-row recompute (benchmarks/league_bench.py).
"""

from django.db import migrations


def fillfactor(value: int):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"ALTER TABLE leagues_standing SET (fillfactor = {value})")

    return apply


class Migration(migrations.Migration):
    dependencies = [("leagues", "0001_initial")]

    operations = [migrations.RunPython(fillfactor(70), fillfactor(100))]
