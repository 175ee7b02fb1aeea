from django.urls import path

from tournaments import api

urlpatterns = [
    path("tournaments/", api.TournamentList.as_view(), name="api-tournaments"),
    path("tournaments/<int:pk>/", api.TournamentDetail.as_view(), name="api-tournament"),
    path("tournaments/<int:pk>/register/", api.Register.as_view(), name="api-tournament-register"),
    path("tournaments/<int:pk>/withdraw/", api.Withdraw.as_view(), name="api-tournament-withdraw"),
    path("tournaments/<int:pk>/check-in/", api.CheckIn.as_view(), name="api-tournament-check-in"),
    path("tournaments/<int:pk>/entries/", api.Entries.as_view(), name="api-tournament-entries"),
    path(
        "tournaments/<int:pk>/entries/<int:entry_id>/disqualify/",
        api.Disqualify.as_view(),
        name="api-tournament-disqualify",
    ),
    path(
        "tournaments/<int:pk>/entries/<int:entry_id>/seed/",
        api.EntrySeed.as_view(),
        name="api-tournament-seed",
    ),
    path("tournaments/<int:pk>/bracket/", api.Bracket.as_view(), name="api-tournament-bracket"),
    path(
        "tournaments/<int:pk>/tables/<int:table_id>/show-up/",
        api.ShowUp.as_view(),
        name="api-tournament-show-up",
    ),
    path(
        "tournaments/<int:pk>/tables/<int:table_id>/replay/",
        api.Replay.as_view(),
        name="api-tournament-replay",
    ),
    path(
        "tournaments/<int:pk>/embed-origins/",
        api.EmbedOrigins.as_view(),
        name="api-tournament-embed-origins",
    ),
    path(
        "tournaments/<int:pk>/entry-conditions/",
        api.EntryConditions.as_view(),
        name="api-tournament-entry-conditions",
    ),
    path(
        "tournaments/<int:pk>/co-organisers/",
        api.CoOrganisers.as_view(),
        name="api-tournament-co-organisers",
    ),
    path("tournaments/<int:pk>/webhooks/", api.Webhooks.as_view(), name="api-tournament-webhooks"),
    path(
        "tournaments/<int:pk>/webhooks/<int:webhook_id>/",
        api.WebhookDetail.as_view(),
        name="api-tournament-webhook",
    ),
    path(
        "tournaments/<int:pk>/webhooks/<int:webhook_id>/deliveries/",
        api.WebhookDeliveries.as_view(),
        name="api-tournament-webhook-deliveries",
    ),
    path(
        "tournaments/<int:pk>/<slug:action>/",
        api.TournamentAction.as_view(),
        name="api-tournament-action",
    ),
]
