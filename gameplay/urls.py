from django.urls import path

from gameplay import views

urlpatterns = [
    path("", views.home, name="home"),
]
