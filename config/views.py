from django.views.defaults import server_error as html_server_error

from config.api import api_server_error


def server_error(request, *args, **kwargs):
    """Errors under /api/ keep the API's JSON shape; pages get Django's HTML page."""
    if request.path.startswith("/api/"):
        return api_server_error(request)
    return html_server_error(request, *args, **kwargs)
