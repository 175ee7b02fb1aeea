"""Pool 201 drops now cost the published 25/50 (engine/README.md); the Indian matches of
that format stored before played 20/40. Writing that into their options keeps them
replaying, finalizing and verifying as they were played."""

from django.db import migrations

PLAYED = {"first_drop": 20, "middle_drop": 40}


def record_drops_as_played(apps, schema_editor):
    Match = apps.get_model("gameplay", "Match")
    stored = Match.objects.filter(variant="indian", options__format="pool201").exclude(
        options__has_key="first_drop"
    )
    for match in stored.only("pk", "options").iterator():
        match.options = {**match.options, **PLAYED}
        match.save(update_fields=["options"])


class Migration(migrations.Migration):
    dependencies = [("gameplay", "0009_pre_committed_server_seeds")]

    operations = [migrations.RunPython(record_drops_as_played, migrations.RunPython.noop)]
