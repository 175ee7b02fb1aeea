"""API plumbing shared by every app: pagination and the one error shape.

Every error leaving /api/ looks like {"error": {"code", "message", "details"}} so a
client needs one code path for all of them.
"""

import logging

from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from config.errors import DomainError
from config.params import ascii_int

logger = logging.getLogger(__name__)


class Pagination(PageNumberPagination):
    """DRF's page numbers, read in ASCII digits only (`config.params.ascii_int`): DRF's own
    int() takes "٣" for page 3."""

    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param) or "1"
        if raw in self.last_page_strings:
            return paginator.num_pages
        number = ascii_int(raw, low=1)
        if number is None:
            message = self.invalid_page_message.format(page_number=raw, message="Invalid page.")
            raise exceptions.NotFound(message)
        return number

    def get_page_size(self, request):
        size = ascii_int(request.query_params.get(self.page_size_query_param) or "", low=1)
        return min(size, self.max_page_size) if size else self.page_size


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is larger than this API accepts."
    default_code = "payload_too_large"


def _from_suspicious(exc: SuspiciousOperation) -> exceptions.APIException:
    """Django's refusals of a request it will not read, as API errors (never a 500)."""
    # Logged where Django logs them when they escape a view.
    logging.getLogger(f"django.security.{type(exc).__name__}").warning("%s", exc)
    if isinstance(exc, RequestDataTooBig):
        return PayloadTooLarge()
    if isinstance(exc, TooManyFieldsSent):
        return exceptions.ParseError("The request has too many form fields.", "too_many_fields")
    if isinstance(exc, TooManyFilesSent):
        return exceptions.ParseError("The request has too many files.", "too_many_files")
    return exceptions.ParseError("The request was refused as malformed.", "bad_request")


class ApiError(exceptions.APIException):
    """A user-fixable error with a stable code, raised by API views."""

    def __init__(self, code: str, message: str, *, status_code: int = 400, details=None):
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.error_code = code
        self.details = details


def error_body(code: str, message: str, details=None) -> dict:
    return {"error": {"code": code, "message": message, "details": details}}


def _first_code(codes) -> str:
    if isinstance(codes, str):
        return codes
    if isinstance(codes, dict):
        codes = list(codes.values())
    for item in codes:
        found = _first_code(item)
        if found:
            return found
    return "error"


def exception_handler(exc, context):
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status_code)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, SuspiciousOperation):
        exc = _from_suspicious(exc)

    response = drf_exception_handler(exc, context)
    if response is None:
        # A bug, not a user error: log it with its traceback and say so plainly.
        logger.exception("Unhandled API error", exc_info=exc)
        return Response(
            error_body("server_error", "An unexpected error occurred."),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )

    if isinstance(exc, ApiError):
        body = error_body(exc.error_code, str(exc.detail), exc.details)
    elif isinstance(exc, exceptions.ValidationError):
        body = error_body("invalid", "The request has invalid fields.", exc.detail)
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = _first_code(exc.get_codes()) if isinstance(exc, exceptions.APIException) else "error"
        body = error_body(code, str(detail))
    response.data = body
    return response


@csrf_exempt  # it changes nothing, and a POST must get this answer, not the CSRF page
def api_not_found(request, *args, **kwargs):
    """Unknown /api/ paths answer in the API's shape instead of an HTML 404 page."""
    return JsonResponse(error_body("not_found", f"No API endpoint at {request.path}."), status=404)


def api_server_error(request):
    return JsonResponse(error_body("server_error", "An unexpected error occurred."), status=500)
