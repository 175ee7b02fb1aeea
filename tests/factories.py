"""factory-boy factories; related rows stay consistent through SubFactory."""

import factory
from django.contrib.auth import get_user_model

from gameplay.models import Achievement, Level, Player, Reward, Room, Title


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("correct-horse-battery")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    user = factory.SubFactory(UserFactory)
    display_name = factory.LazyAttribute(lambda p: p.user.username)


class BotPlayerFactory(PlayerFactory):
    is_bot = True
    bot_kind = "greedy"


class TitleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Title

    code = factory.Sequence(lambda n: f"title-{n}")
    name = factory.Sequence(lambda n: f"Title {n}")


class RewardFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Reward

    code = factory.Sequence(lambda n: f"reward-{n}")
    name = factory.Sequence(lambda n: f"Reward {n}")


class LevelFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Level
        django_get_or_create = ("number",)

    number = factory.Sequence(lambda n: n + 1)
    xp_required = factory.LazyAttribute(lambda lv: (lv.number - 1) * 100)


class AchievementFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Achievement

    code = factory.Sequence(lambda n: f"achievement-{n}")
    name = factory.Sequence(lambda n: f"Achievement {n}")
    metric = "matches_played"
    threshold = 1


class RoomFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Room

    name = factory.Sequence(lambda n: f"Room {n}")
    variant = "gin"
    options = factory.LazyFunction(lambda: {"target": 25})
    seats = 2
    bot_pause_ms = 0  # bots answer at once in tests
