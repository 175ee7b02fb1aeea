from django.urls import path

from tournaments import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournament-list"),
    path("tournaments/new/", views.tournament_create, name="tournament-create"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament-detail"),
    path("tournaments/<int:pk>/edit/", views.tournament_edit, name="tournament-edit"),
    path("tournaments/<int:pk>/register/", views.register, name="tournament-register"),
    path("tournaments/<int:pk>/withdraw/", views.withdraw, name="tournament-withdraw"),
    path("tournaments/<int:pk>/check-in/", views.check_in, name="tournament-check-in"),
    path(
        "tournaments/<int:pk>/tables/<int:table_id>/take-seat/",
        views.take_seat,
        name="tournament-take-seat",
    ),
    path(
        "tournaments/<int:pk>/tables/<int:table_id>/replay/",
        views.replay,
        name="tournament-replay",
    ),
    path(
        "tournaments/<int:pk>/entries/<int:entry_id>/disqualify/",
        views.disqualify,
        name="tournament-disqualify",
    ),
    path(
        "tournaments/<int:pk>/entries/<int:entry_id>/seed/",
        views.set_seed,
        name="tournament-seed",
    ),
    path(
        "tournaments/<int:pk>/export/<slug:kind>.csv",
        views.export_csv,
        name="tournament-export-csv",
    ),
    path("tournaments/<int:pk>/export.json", views.export_json, name="tournament-export-json"),
    path("tournaments/<int:pk>/embed/", views.embed, name="tournament-embed"),
    path(
        "tournaments/<int:pk>/entry-conditions/",
        views.entry_conditions,
        name="tournament-entry-conditions",
    ),
    path("tournaments/<int:pk>/invite-code/", views.new_invite_code, name="tournament-invite-code"),
    path(
        "tournaments/<int:pk>/co-organisers/", views.co_organisers, name="tournament-co-organisers"
    ),
    path(
        "tournaments/<int:pk>/embed/origins/",
        views.embed_origins,
        name="tournament-embed-origins",
    ),
    path("tournaments/<int:pk>/webhooks/", views.webhook_add, name="tournament-webhook-add"),
    path(
        "tournaments/<int:pk>/webhooks/<int:webhook_id>/remove/",
        views.webhook_remove,
        name="tournament-webhook-remove",
    ),
    path("tournaments/<int:pk>/manage/<slug:action>/", views.manage, name="tournament-manage"),
]
