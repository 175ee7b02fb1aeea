"""Filter fields shared by the API's filter sets."""

from datetime import UTC

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django_filters.fields import IsoDateTimeField

# The largest id a row can have (a 64-bit primary key).
ID_MAX = 2**63 - 1


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


class IdFilter(django_filters.NumberFilter):
    """A row's id: a whole number from 1 to ID_MAX, else a 400 (SQLite cannot even compare a
    larger one with a column; a related id is not range-checked on its way there)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, min_value=1, max_value=ID_MAX, **kwargs)
