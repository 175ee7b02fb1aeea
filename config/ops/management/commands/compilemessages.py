"""`manage.py compilemessages` without GNU gettext: every locale/<lang>/LC_MESSAGES/*.po of
LOCALE_PATHS written as its .mo with Babel (a pinned dependency), so `make run`, `make
test` and the image need nothing beyond Python. It replaces Django's command of the same
name (which calls msgfmt) and refuses a catalogue whose translations drop or change a
placeholder of their msgid, as msgfmt --check-format would. Fuzzy entries are left out,
as msgfmt leaves them. docs/operations.md, "Languages"."""

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


def catalogues() -> list[Path]:
    return sorted(
        po for base in settings.LOCALE_PATHS for po in Path(base).glob("*/LC_MESSAGES/*.po")
    )


def compile_po(po: Path) -> tuple[Path, list[str]]:
    """Write po's .mo next to it; the problems found (then nothing is written)."""
    with po.open("rb") as source:
        catalog = read_po(source, locale=po.parent.parent.name)
    problems = [
        f"{po}:{message.lineno}: {error}" for message, errors in catalog.check() for error in errors
    ]
    mo = po.with_suffix(".mo")
    if not problems:
        with mo.open("wb") as target:
            write_mo(target, catalog, use_fuzzy=False)
    return mo, problems


class Command(BaseCommand):
    help = "Compile every .po catalogue of LOCALE_PATHS to .mo (Babel; no gettext needed)."

    def handle(self, *args, **options):
        problems = []
        for po in catalogues():
            mo, found = compile_po(po)
            problems += found
            if not found and options["verbosity"] > 1:
                self.stdout.write(f"compiled {mo}")
        if problems:
            raise CommandError("\n".join(problems))
