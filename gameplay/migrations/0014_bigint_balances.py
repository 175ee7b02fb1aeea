"""Balances and ledger amounts in 64-bit columns (issue 24: a prize past 2^31 overflowed
`integer` and wedged its tournament). A deliberate breaking step (docs/operations.md,
Upgrading): each ALTER TYPE rewrites its table under an exclusive lock."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("gameplay", "0013_house_ledger_awardable_room_tables"),
    ]

    operations = [
        migrations.AlterField(
            model_name="coinentry",
            name="amount",
            field=models.BigIntegerField(),
        ),
        migrations.AlterField(
            model_name="coinentry",
            name="balance_after",
            field=models.BigIntegerField(),
        ),
        migrations.AlterField(
            model_name="player",
            name="coins",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="player",
            name="xp",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="xpentry",
            name="amount",
            field=models.PositiveBigIntegerField(),
        ),
    ]
