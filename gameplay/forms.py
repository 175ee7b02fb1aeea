"""Forms of the site's account pages. The rules live in the services the views call
(gameplay.services.player_register, gameplay.usernames): a form collects the fields and
shows a service's refusal by the field it is about."""

import logging
import zoneinfo

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.forms import PasswordResetForm
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from config.errors import DomainError
from config.security import RateLimit

log = logging.getLogger(__name__)

# Which field each of player_register's error codes is about.
FIELD_OF_CODE = {
    "invalid_username": "username",
    "reserved_username": "username",
    "username_taken": "username",
    "username_confusable": "username",
    "invalid_email": "email",
    "invalid_password": "password1",
}


class SignupForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        label=_("Username"),
        help_text=_(
            "Letters of any script, digits and . @ + - _; no spaces. Ada and ada are the same name."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.CharField(
        required=False,
        max_length=254,
        label=_("Email (optional)"),
        help_text=_("Only used to send you a link if you forget your password."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password2") != data["password1"]:
            self.add_error("password2", _("The two passwords differ."))
        return data

    def explain(self, exc: DomainError) -> None:
        """Show the service's refusal by the field it is about; a weak password's details
        say why (too short, too common, ...)."""
        reasons = exc.details if exc.code == "invalid_password" and exc.details else None
        self.add_error(FIELD_OF_CODE.get(exc.code), reasons or exc.message)


class EmailForm(forms.Form):
    email = forms.CharField(
        required=False,
        max_length=254,
        label=_("Email"),
        help_text=_("Where a password reset link goes. Leave it empty to remove it."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class ClientSeedForm(forms.Form):
    client_seed = forms.CharField(
        required=False,
        max_length=64,
        label=_("Your client seed"),
        help_text=_(
            "Goes into every deal of the matches you sit down at, with the server's seed "
            "(committed before) and your opponents' seeds: nobody alone can choose a deal. "
            "1-64 printable characters, no spaces. Leave it empty and your browser picks a "
            "new random one each time you sit down."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label=_("Your time zone"),
        help_text=_("Times on Knock's pages read in it. Your browser told us this one."),
        choices=lambda: [(zone, zone) for zone in sorted(zoneinfo.available_timezones())],
    )


class LimitedPasswordResetForm(PasswordResetForm):
    """Django's reset form, sending at most the `reset_client` rate of mails per client
    address and the `reset_address` rate per email address. Past either nothing is sent,
    silently: the answer is the same page, so it tells nobody whether a mail went, or
    whether the address has an account."""

    def save(self, *args, request=None, **kwargs):
        email = self.cleaned_data["email"]
        per_client = RateLimit("reset_client")
        if not per_client.check(request) or not RateLimit("reset_address", email.casefold()).check(
            request
        ):
            log.warning("Password reset mail withheld: past a rate limit")
            return
        super().save(*args, request=request, **kwargs)

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        """In the language the account chose, else the asking browser's: the mail is read
        later, perhaps on another device."""
        from gameplay.models import Player

        chosen = Player.objects.filter(user=context["user"]).values_list("language", flat=True)
        with translation.override(chosen.first() or translation.get_language()):
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)
