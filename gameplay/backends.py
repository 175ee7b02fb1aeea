"""Signing in by a username in any case or compatibility form.

Names are unique whatever their case (migration 0004) and stored NFKC-normalised, so
"ALICE" and a fullwidth "Alice" (U+FF21) can only mean the account "Alice"; Django's ModelBackend
would look them up exactly and refuse them.
"""

import unicodedata

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


class CaseInsensitiveModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        user_model = get_user_model()
        if username is None:
            username = kwargs.get(user_model.USERNAME_FIELD)
        if username is None or password is None:
            return None
        name = unicodedata.normalize("NFKC", username).strip()
        try:
            user = user_model._default_manager.get(username__iexact=name)
        except user_model.DoesNotExist:
            user_model().set_password(password)  # the same work as a match: no timing oracle
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None
