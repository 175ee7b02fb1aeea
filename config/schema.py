"""The OpenAPI schema's view of errors: every operation documents the error responses it
can give, all in the one error shape of config.api."""

from drf_spectacular.openapi import AutoSchema as BaseAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable, for programs: e.g. `invalid`, `stale_seq`.")
    message = serializers.CharField(help_text="For people.")
    details = serializers.JSONField(
        allow_null=True, help_text="Per-field messages for `invalid`; else extra facts or null."
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


def error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


INSUFFICIENT_COINS = error("Not enough coins for the entry fee (`insufficient_coins`).")

ERRORS = {
    400: "Invalid input: `details` names each bad field, or `code` the broken rule.",
    401: "No valid credentials: send `Authorization: Token <key>` (or a session cookie).",
    403: "Not allowed: another seat's turn, not the organiser, a locked room, or CSRF.",
    404: "No such object, or not one the caller may see.",
    409: "The state moved on (e.g. a stale `seq`); re-read it and try again.",
    413: "The request body is larger than 2.5 MB.",
    415: "The request body's media type is not JSON, form or multipart.",
    429: "A rate limit (`throttled`) or a login lock-out (`locked_out`); see Retry-After.",
}
RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "Seconds until the request may be made again.",
    }
}


class AutoSchema(BaseAutoSchema):
    def _error_statuses(self) -> list[int]:
        view = self.view
        unsafe = self.method not in ("GET", "HEAD", "OPTIONS")
        authenticates = bool(view.authentication_classes)
        public = all(issubclass(p, AllowAny) for p in view.permission_classes)
        statuses = [400, 429]
        if authenticates:
            statuses.append(401)  # a bad token is refused even where no login is needed
        if unsafe or not public:
            statuses.append(403)
        if "{" in self.path or self._is_list_view():
            statuses.append(404)  # an unknown id, or a page past the last
        if unsafe:
            statuses += [409, 413]
            if self.get_request_serializer() is not None:
                statuses.append(415)
        return sorted(statuses)

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status in self._error_statuses():
            responses.setdefault(
                str(status), self._get_response_for_code(error(ERRORS[status]), str(status))
            )
        responses["429"].setdefault("headers", {}).update(RETRY_AFTER)
        return responses
