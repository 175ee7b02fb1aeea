from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    name = "leagues"
    verbose_name = "Leagues"

    def ready(self) -> None:
        from gameplay.events import match_finished
        from gameplay.models import Match
        from gameplay.profile import register_section
        from gameplay.table_context import register_context
        from leagues.tasks import on_match_finished
        from leagues.views import profile_section, table_context

        match_finished.connect(on_match_finished, sender=Match, dispatch_uid="leagues-results")
        register_section(profile_section)
        register_context(table_context)
