from django.db import migrations, models


def fill_skeletons(apps, schema_editor):
    """Every existing player's skeleton, so a new name is compared with the old ones too."""
    from gameplay.usernames import skeleton

    Player = apps.get_model("gameplay", "Player")
    batch = []
    for player in Player.objects.select_related("user").only("pk", "user__username").iterator():
        player.name_skeleton = skeleton(player.user.username)
        batch.append(player)
        if len(batch) == 1000:
            Player.objects.bulk_update(batch, ["name_skeleton"])
            batch = []
    Player.objects.bulk_update(batch, ["name_skeleton"])


class Migration(migrations.Migration):
    dependencies = [
        ("gameplay", "0019_player_time_zone"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="name_skeleton",
            field=models.CharField(blank=True, db_default="", default="", max_length=600),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop, elidable=True),
    ]
