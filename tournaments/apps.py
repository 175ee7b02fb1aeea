from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from gameplay.events import match_finished
        from tournaments import tasks

        match_finished.connect(
            tasks.enqueue_match_finished, dispatch_uid="tournaments-match-finished"
        )
