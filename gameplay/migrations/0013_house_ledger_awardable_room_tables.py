"""The house accounts and their ledger, the awardable flags on titles and rewards, and the
tables a room allows a player at once."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("gameplay", "0012_api_tokens"),
    ]

    operations = [
        migrations.CreateModel(
            name="HouseAccount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code", models.SlugField(unique=True)),
                ("coins", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="HouseEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("amount", models.BigIntegerField()),
                ("balance_after", models.BigIntegerField()),
                ("reason", models.CharField(max_length=120)),
                ("key", models.CharField(max_length=120)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "account",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="gameplay.houseaccount",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "house entries",
                "ordering": ["-id"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("account", "key"), name="house_entry_once_per_key"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("amount", 0), _negated=True),
                        name="house_entry_nonzero",
                    ),
                ],
            },
        ),
        migrations.AddField(
            model_name="reward",
            name="awardable_by_organisers",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Organisers may offer it as a tournament prize.",
            ),
        ),
        migrations.AddField(
            model_name="room",
            name="max_tables_per_player",
            field=models.PositiveSmallIntegerField(
                db_default=1,
                default=1,
                help_text="Tables one player may sit at in this room at once.",
            ),
        ),
        migrations.AddField(
            model_name="title",
            name="awardable_by_organisers",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Organisers may offer it as a tournament prize (never a level's).",
            ),
        ),
        migrations.AddConstraint(
            model_name="room",
            constraint=models.CheckConstraint(
                condition=models.Q(("max_tables_per_player__gte", 1)), name="room_max_tables_min"
            ),
        ),
    ]
