"""Prove the books balance: every player's coins and XP, and every house account's coins,
equal the sum of their ledger rows (and so do the totals). Exits non-zero on any
difference, so it can run from cron or CI."""

from django.core.management.base import BaseCommand, CommandError

from gameplay.selectors import ledger_differences


class Command(BaseCommand):
    help = "Check every balance against its ledger (coins and XP); non-zero exit on any difference."

    def handle(self, *args, **options):
        differences = ledger_differences()
        for diff in differences:
            self.stdout.write(
                f"{diff.currency} {diff.account}: balance {diff.balance}, ledger {diff.ledger} "
                f"(off by {diff.balance - diff.ledger:+})"
            )
        if differences:
            raise CommandError(f"{len(differences)} balance(s) differ from the ledger.")
        self.stdout.write("Every balance equals its ledger (coins and XP).")
