"""The API's request parsers (a module of their own: DRF's views import them by name)."""

from rest_framework import exceptions, parsers

# No request body of this API nests deeper than a few levels; a deeper one is abuse.
MAX_JSON_DEPTH = 32


def json_depth_exceeds(data, limit: int) -> bool:
    """Whether lists and objects in `data` nest deeper than `limit` (iterative: no
    recursion for an attacker to exhaust)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing nesting deeper than MAX_JSON_DEPTH with a 400.

    Python's decoder raises RecursionError, not ValueError, past about a thousand levels;
    the body's size is already capped by DATA_UPLOAD_MAX_MEMORY_SIZE (DRF reads it through
    request.body).
    """

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply.") from None
        if json_depth_exceeds(data, MAX_JSON_DEPTH):
            raise exceptions.ParseError(
                f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels."
            )
        return data
