from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "config.ops"
    label = "ops"
    verbose_name = "Operations"
    default_auto_field = "django.db.models.BigAutoField"
