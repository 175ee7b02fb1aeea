from django.contrib import admin

from config.ops.models import Heartbeat


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin):
    """Read-only, except that a retired worker's row can be deleted so /healthz forgets it."""

    list_display = ["name", "role", "pid", "started_at", "beat_at"]
    list_filter = ["role"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
