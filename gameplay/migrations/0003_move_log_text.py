"""The move log becomes compact JSON text (jsonb parsed every write and rendered every read).

PostgreSQL converts in place, ``log::text`` forward and ``log::jsonb`` back.
"""

from django.db import migrations

import gameplay.models


class Migration(migrations.Migration):
    dependencies = [("gameplay", "0002_move_log_column")]

    operations = [
        migrations.AlterField(
            model_name="match",
            name="log",
            field=gameplay.models.JSONTextField(
                blank=True,
                default=list,
                help_text=(
                    "The append-only move log: one {seat, action} per accepted action, in "
                    'order (an automatic move for a timed-out player also has "auto": true). '
                    "Replaying it from the seed reproduces the match."
                ),
            ),
        ),
    ]
