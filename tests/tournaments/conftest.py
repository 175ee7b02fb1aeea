import pytest


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Tournament tests create many players; a slow password hash only costs time here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
