"""The base of every user-fixable domain error raised by services.

Services stay free of HTTP, yet each error knows the status an API should answer with;
config.api turns it into the one error shape.
"""


class DomainError(Exception):
    status_code = 400
    code = "invalid_request"

    def __init__(self, message: str, *, code: str | None = None, details=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details


class NotAllowed(DomainError):
    status_code = 403
    code = "forbidden"


class NotFound(DomainError):
    status_code = 404
    code = "not_found"


class Conflict(DomainError):
    status_code = 409
    code = "conflict"
