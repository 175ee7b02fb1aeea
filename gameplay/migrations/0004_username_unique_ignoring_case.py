"""Usernames become unique whatever their case: a unique index on LOWER(username).

Accounts whose names already differ only in case keep the oldest one's name; each later one
is renamed `<name>-<id>` (its player's display name stays), and every rename is printed so
an admin can tell those players their new login name.
"""

from django.conf import settings
from django.db import migrations, models
from django.db.models.functions import Lower

INDEX = "auth_user_username_lower_uniq"
MAX_LENGTH = 150


def _constraint() -> models.UniqueConstraint:
    return models.UniqueConstraint(Lower("username"), name=INDEX)


def _free_name(username: str, pk: int, taken: set[str]) -> str:
    suffix, attempt = f"-{pk}", 1
    while True:
        name = username[: MAX_LENGTH - len(suffix)] + suffix
        if name.lower() not in taken:
            return name
        attempt += 1
        suffix = f"-{pk}-{attempt}"


def rename_case_duplicates(apps, schema_editor):
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    rows = user_model.objects.annotate(key=Lower("username")).order_by("pk")
    keys = list(rows.values_list("pk", "username", "key"))
    taken = {key for _, _, key in keys} | {username.lower() for _, username, _ in keys}
    seen: set[str] = set()
    for pk, username, key in keys:
        if key not in seen:
            seen.add(key)
            continue
        name = _free_name(username, pk, taken)
        taken.add(name.lower())
        user_model.objects.filter(pk=pk).update(username=name)
        print(
            f"\n  username {username!r} (user {pk}) is an older one's in another case: now {name!r}"
        )


def add_index(apps, schema_editor):
    schema_editor.add_constraint(apps.get_model(settings.AUTH_USER_MODEL), _constraint())


def drop_index(apps, schema_editor):
    schema_editor.remove_constraint(apps.get_model(settings.AUTH_USER_MODEL), _constraint())


class Migration(migrations.Migration):
    dependencies = [
        ("gameplay", "0003_move_log_text"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(rename_case_duplicates, migrations.RunPython.noop),
        migrations.RunPython(add_index, drop_index),
    ]
