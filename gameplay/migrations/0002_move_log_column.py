"""The move log moves from a row per move to one JSON column on the match."""

from django.db import migrations, models


def rows_to_log(apps, schema_editor):
    Match = apps.get_model("gameplay", "Match")
    Move = apps.get_model("gameplay", "Move")
    logs: dict[int, list] = {}
    for seat, action, automatic, match_id in (
        Move.objects.order_by("match_id", "number")
        .values_list("seat", "action", "automatic", "match_id")
        .iterator()
    ):
        move = {"seat": seat, "action": action}
        logs.setdefault(match_id, []).append({**move, "auto": True} if automatic else move)
    for match_id, log in logs.items():
        Match.objects.filter(pk=match_id).update(log=log)


def log_to_rows(apps, schema_editor):
    Match = apps.get_model("gameplay", "Match")
    Move = apps.get_model("gameplay", "Move")
    for match_id, log in Match.objects.exclude(log=[]).values_list("pk", "log").iterator():
        Move.objects.bulk_create(
            Move(
                match_id=match_id,
                number=number,
                seat=move["seat"],
                action=move["action"],
                automatic=bool(move.get("auto")),
            )
            for number, move in enumerate(log, start=1)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("gameplay", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="log",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text=(
                    "The append-only move log: one {seat, action} per accepted action, in "
                    'order (an automatic move for a timed-out player also has "auto": true). '
                    "Replaying it from the seed reproduces the match."
                ),
            ),
        ),
        migrations.RunPython(rows_to_log, log_to_rows),
        migrations.DeleteModel(name="Move"),
    ]
