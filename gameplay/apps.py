from django.apps import AppConfig


class GameplayConfig(AppConfig):
    name = "gameplay"
    verbose_name = "Gameplay"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from gameplay.signals import apply_preferences, trace_login

        user_logged_in.connect(trace_login, dispatch_uid="gameplay-trace-login")
        user_logged_in.connect(apply_preferences, dispatch_uid="gameplay-apply-preferences")
