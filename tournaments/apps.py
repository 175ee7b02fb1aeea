from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from gameplay.events import match_finished
        from gameplay.profile import register_section
        from gameplay.selectors import register_match_labels
        from gameplay.table_context import register_context
        from tournaments import selectors, tasks
        from tournaments.views import profile_section, table_context

        match_finished.connect(
            tasks.enqueue_match_finished, dispatch_uid="tournaments-match-finished"
        )
        register_section(profile_section)
        register_context(table_context)
        register_match_labels(selectors.match_labels)
