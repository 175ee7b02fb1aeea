from django.db import migrations, models

CANCEL_REASON_HELP = "Why it was cancelled: empty by its organiser, too_few_entries by the clock."
MIN_ENTRIES_HELP = "Fewest entries that can play at the start; fewer cancels and refunds."


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0018_entry_conditions"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="cancel_reason",
            field=models.CharField(
                blank=True, db_default="", help_text=CANCEL_REASON_HELP, max_length=16
            ),
        ),
        migrations.AddField(
            model_name="tournament",
            name="min_entries",
            field=models.PositiveIntegerField(db_default=2, default=2, help_text=MIN_ENTRIES_HELP),
        ),
        migrations.AddConstraint(
            model_name="tournament",
            constraint=models.CheckConstraint(
                condition=models.Q(min_entries__gte=2)
                & (
                    models.Q(max_entries__isnull=True)
                    | models.Q(min_entries__lte=models.F("max_entries"))
                ),
                name="tournament_min_entries_2_to_max",
            ),
        ),
    ]
