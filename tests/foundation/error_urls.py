"""Views that raise each kind of error, to prove the API's one error shape."""

from django.urls import include, path
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from config.api import ApiError


class ScoreSerializer(serializers.Serializer):
    points = serializers.IntegerField(min_value=0)


@api_view(["POST"])
@permission_classes([AllowAny])
def validate(request):
    serializer = ScoreSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return Response(serializer.data)


@api_view(["GET"])
@permission_classes([IsAuthenticated])
def private(request):
    return Response({"ok": True})


@api_view(["GET"])
@permission_classes([AllowAny])
def conflict(request):
    raise ApiError("stale_seq", "The match has moved on.", status_code=409, details={"seq": 3})


@api_view(["GET"])
@permission_classes([AllowAny])
def crash(request):
    raise RuntimeError("secret internal detail")


urlpatterns = [
    path(
        "api/",
        include(
            [
                path("validate/", validate),
                path("private/", private),
                path("conflict/", conflict),
                path("crash/", crash),
            ]
        ),
    ),
]
