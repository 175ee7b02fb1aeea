from django.contrib import admin
from django.urls import include, path, re_path
from django.utils import timezone
from django.views.decorators.http import last_modified
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.api import api_not_found
from config.api_index import ApiIndex
from config.health import healthz
from config.metrics import metrics
from config.views import home, notices

STARTED = timezone.now()  # the catalogue changes only with a deploy

api_patterns = [
    path("", ApiIndex.as_view(), name="api-index"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("", include("gameplay.api_urls")),
    path("", include("tournaments.api_urls")),
    path("", include("leagues.api_urls")),
]

# The admin carries the site's name (and its logo: templates/admin/base_site.html).
admin.site.site_header = "Knock admin"
admin.site.site_title = "Knock admin"
admin.site.index_title = "Rooms, players, tournaments and leagues"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("", home, name="home"),
    path("me/notices/", notices, name="notices"),
    # The table's words in the page's language (locale/*/LC_MESSAGES/djangojs.po): a
    # script file, so the CSP needs nothing more; static/table/strings.js reads it.
    path(
        "jsi18n/",
        last_modified(lambda request, **kwargs: STARTED)(JavaScriptCatalog.as_view()),
        name="javascript-catalog",
    ),
    path("admin/", admin.site.urls),
    path("api/", include(api_patterns)),
    re_path(r"^api/", api_not_found),
    path("", include("gameplay.urls")),  # before Django's accounts/: its password reset
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("tournaments.urls")),
    path("", include("leagues.urls")),
]

handler500 = "config.views.server_error"
