"""Ratings: one OpenSkill (Plackett-Luce) rating per player and variant."""

from django.utils import timezone
from openskill.models import PlackettLuce

from config.db import bulk_update
from gameplay.models import Match, Player, Rating, RatingChange, Seat

RATING_MODEL = PlackettLuce()


def ratings_update(*, matches: list[Match], seats_of: dict[int, list[Seat]]) -> None:
    """One Plackett-Luce update per match, ties allowed, matches in the order given.

    A player seated in two of these matches gets the second update on top of the first.
    """
    wanted = {(seat.player_id, match.variant) for match in matches for seat in seats_of[match.pk]}
    if not wanted:
        return
    Rating.objects.bulk_create(
        [
            Rating(
                player_id=player_id,
                variant=variant,
                mu=RATING_MODEL.mu,
                sigma=RATING_MODEL.sigma,
                ordinal=RATING_MODEL.mu - 3 * RATING_MODEL.sigma,
            )
            for player_id, variant in sorted(wanted)
        ],
        ignore_conflicts=True,  # first rated match in this variant; others already exist
    )
    # Locked in player order, so two batches sharing players never deadlock.
    locked = {
        (rating.player_id, rating.variant): rating
        for rating in Rating.objects.select_for_update()
        .filter(
            player_id__in={player_id for player_id, _ in wanted},
            variant__in={variant for _, variant in wanted},
        )
        .order_by("player_id", "variant")
    }
    now = timezone.now()
    changes = []
    for match in matches:
        seats = seats_of[match.pk]
        ratings = [locked[(seat.player_id, match.variant)] for seat in seats]
        teams = [[RATING_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        updated = RATING_MODEL.rate(teams, ranks=[seat.placement for seat in seats])
        for rating, [new] in zip(ratings, updated, strict=True):
            rating.mu, rating.sigma = new.mu, new.sigma
            rating.ordinal = new.ordinal()
            rating.rated_matches += 1
            rating.last_rated_at = now
            changes.append(
                RatingChange(
                    rating=rating, match=match, mu=new.mu, sigma=new.sigma, ordinal=rating.ordinal
                )
            )
    bulk_update(
        [locked[key] for key in sorted(wanted)],
        ["mu", "sigma", "ordinal", "rated_matches", "last_rated_at"],
    )
    RatingChange.objects.bulk_create(changes)


def rating_ordinal(*, player: Player, variant: str) -> float:
    rating = Rating.objects.filter(player=player, variant=variant).first()
    return rating.ordinal if rating else RATING_MODEL.mu - 3 * RATING_MODEL.sigma
