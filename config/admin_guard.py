"""The admin answers no question about a secret: no lookup, search, ordering, list column,
filter or form field of any registered admin reaches a field that is secret.

A changelist accepts query-string lookups on any local field (`?seed__lt=...`), which is a
prefix oracle on a seed however well the change form hides it. So every ModelAdmin the site
registers, the libraries' included, is given `SecretGuard` first in its bases by
`AdminSite.register`: a lookup, `_to_field` or ordering whose path reaches a secret field
through any relation is refused (400, Django's `DisallowedModelAdminLookup`), and secret
fields are taken out of the list columns, filters, search fields, ordering and forms.

A model names its secrets in a `SECRET_FIELDS` class attribute (`Match`, `Player`,
`Tournament`); the libraries' models are named here. A secret stays out of the admin even
after its reveal: the pages that reveal it (the match and tournament change forms) show it
through their own display methods once it is public.
"""

import functools
import types

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig as BaseAdminConfig
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import FieldDoesNotExist
from django.db.models import F, OrderBy
from django.db.models.constants import LOOKUP_SEP

# Secrets of the libraries' models, which cannot declare their own.
LIBRARY_SECRETS = {
    "auth.user": frozenset({"password"}),
    "authtoken.token": frozenset({"key"}),  # an API token is a password
    "sessions.session": frozenset({"session_key", "session_data"}),
}


def secret_fields(model) -> frozenset[str]:
    """The names of the model's secret fields (a proxy has its concrete model's)."""
    concrete = model._meta.concrete_model or model
    declared = frozenset(getattr(concrete, "SECRET_FIELDS", ()))
    return declared | LIBRARY_SECRETS.get(concrete._meta.label_lower, frozenset())


def reaches_secret(model, path: str) -> bool:
    """Whether a lookup or ordering path (`seed__lt`, `seats__match__seed`, `-seed`) names a
    secret field of the model or of any model it walks to through relations."""
    for part in path.lstrip("-?").split(LOOKUP_SEP):
        if part == "pk":
            part = model._meta.pk.name
        if part in secret_fields(model):
            return True
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False  # a transform or lookup (`lt`, `year`): nothing further to walk
        if not field.is_relation or field.related_model is None:
            return False
        model = field.related_model
    return False


def _ordering_reaches_secret(model, item) -> bool:
    if isinstance(item, OrderBy):
        item = item.expression
    if isinstance(item, F):
        item = item.name
    return isinstance(item, str) and reaches_secret(model, item)


def _without_fields(fieldsets, secret) -> list:
    return [
        (name, {**options, "fields": _strip(options.get("fields", ()), secret)})
        for name, options in fieldsets
    ]


def _strip(fields, secret) -> list:
    """Field names (or rows of them, as fieldsets nest them) without the secret ones."""
    kept = []
    for item in fields:
        if isinstance(item, (list, tuple)):
            row = [name for name in item if name not in secret]
            if row:
                kept.append(tuple(row))
        elif item not in secret:
            kept.append(item)
    return kept


class GuardedOrdering:
    """Orders a changelist by nothing secret: neither `?o=` on a column whose ordering
    reaches one, nor the admin's or the model's default ordering. (And reads a date
    hierarchy's year past datetime's range as a bad lookup, not a 500.)"""

    def get_filters(self, request):
        try:
            return super().get_filters(request)
        except OverflowError as exc:  # Django builds datetime(int(year), ...) unchecked
            raise IncorrectLookupParameters(exc) from exc

    def get_ordering_field(self, field_name):
        field = super().get_ordering_field(field_name)
        return None if _ordering_reaches_secret(self.model, field) else field

    def get_ordering(self, request, queryset):
        ordering = super().get_ordering(request, queryset)
        return [item for item in ordering if not _ordering_reaches_secret(self.model, item)]


@functools.cache
def _guarded(changelist: type[ChangeList]) -> type[ChangeList]:
    return type(f"Guarded{changelist.__name__}", (GuardedOrdering, changelist), {})


class SecretGuard:
    """First in the bases of every registered ModelAdmin (`AdminSite.register`).

    Forms leave out the secrets models declare; the libraries' forms show theirs masked
    (the password's hash summary) or not at all (a token's key)."""

    def _reaches(self, path) -> bool:
        return isinstance(path, str) and reaches_secret(self.model, path)

    def _declared(self) -> frozenset[str]:
        return frozenset(getattr(self.model, "SECRET_FIELDS", ()))

    def lookup_allowed(self, lookup, value, request=None):
        if reaches_secret(self.model, lookup):
            return False  # the changelist answers 400
        return super().lookup_allowed(lookup, value, request)

    def to_field_allowed(self, request, to_field):
        return not reaches_secret(self.model, to_field) and super().to_field_allowed(
            request, to_field
        )

    def get_changelist(self, request, **kwargs):
        return _guarded(super().get_changelist(request, **kwargs))

    def get_list_display(self, request):
        return [name for name in super().get_list_display(request) if not self._reaches(name)]

    def get_list_filter(self, request):
        return [
            item
            for item in super().get_list_filter(request)
            if not self._reaches(item[0] if isinstance(item, (list, tuple)) else item)
        ]

    def get_search_fields(self, request):
        return [name for name in super().get_search_fields(request) if not self._reaches(name)]

    def get_ordering(self, request):
        return [
            item
            for item in super().get_ordering(request) or ()
            if not _ordering_reaches_secret(self.model, item)
        ]

    def get_exclude(self, request, obj=None):
        excluded = super().get_exclude(request, obj)
        if excluded is None:  # Django then takes the form's own Meta.exclude: keep it
            excluded = getattr(getattr(self.form, "_meta", None), "exclude", None)
        return [*(excluded or ()), *self._declared()]

    def get_fields(self, request, obj=None):
        return _strip(super().get_fields(request, obj), self._declared())

    def get_fieldsets(self, request, obj=None):
        return _without_fields(super().get_fieldsets(request, obj), self._declared())

    def get_readonly_fields(self, request, obj=None):
        return _strip(super().get_readonly_fields(request, obj), self._declared())


class AdminSite(admin.AdminSite):
    """The default admin site, which puts `SecretGuard` in front of every ModelAdmin."""

    def register(self, model_or_iterable, admin_class=None, **options):
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, SecretGuard):
            admin_class = types.new_class(
                admin_class.__name__,
                (SecretGuard, admin_class),
                exec_body=lambda body: body.update(
                    {"__module__": admin_class.__module__, "__doc__": admin_class.__doc__}
                ),
            )
        super().register(model_or_iterable, admin_class, **options)


class AdminConfig(BaseAdminConfig):
    """django.contrib.admin with `AdminSite` as `admin.site`."""

    default_site = "config.admin_guard.AdminSite"
