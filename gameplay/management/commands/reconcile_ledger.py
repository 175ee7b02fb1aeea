"""Prove the books balance: every player's coins and XP, and every house account's coins,
equal the sum of their ledger rows (and so do the totals). Exits non-zero on any
difference, so it can run from cron or CI."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from gameplay.selectors import ledger_differences


class Command(BaseCommand):
    help = "Check every balance against its ledger (coins and XP); non-zero exit on any difference."

    def handle(self, *args, **options):
        differences = ledger_differences()
        for diff in differences:
            self.stdout.write(
                _(
                    "%(currency)s %(account)s: balance %(balance)s, ledger %(ledger)s "
                    "(off by %(off)s)"
                )
                % {**diff._asdict(), "off": f"{diff.balance - diff.ledger:+}"}
            )
        if differences:
            raise CommandError(
                _("%(count)s balance(s) differ from the ledger.") % {"count": len(differences)}
            )
        self.stdout.write(_("Every balance equals its ledger (coins and XP)."))
