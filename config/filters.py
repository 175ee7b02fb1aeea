"""Filter fields shared by the API's filter sets."""

from datetime import UTC

import django_filters
from django.core.exceptions import ValidationError
from django_filters.fields import IsoDateTimeField


class UTCIsoDateTimeField(IsoDateTimeField):
    """An ISO 8601 time with any offset Python accepts, compared in UTC.

    PostgreSQL refuses offsets past 15:59 (`+16:00` is valid ISO 8601), so the value goes to
    the database in UTC; a time that leaves the calendar in UTC is a 400, not a 500.
    """

    default_error_messages = {"overflow": "This time is outside the supported range."}

    def to_python(self, value):
        value = super().to_python(value)
        if value is None:
            return None
        try:
            return value.astimezone(UTC)
        except OverflowError:
            raise ValidationError(self.error_messages["overflow"], code="overflow") from None


class UTCIsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UTCIsoDateTimeField
