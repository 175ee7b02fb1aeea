# Production image: one image, three roles (web, worker, beat) chosen by the command.
# Every step it runs is in deploy/entrypoint.sh, which tests/foundation/test_image.py runs
# end to end without Docker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    KNOCK_VAR_DIR=/app/var

WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY config ./config
COPY engine ./engine
COPY competition ./competition
COPY outbox ./outbox
COPY gameplay ./gameplay
COPY tournaments ./tournaments
COPY leagues ./leagues
COPY templates ./templates
COPY locale ./locale
COPY static ./static
COPY deploy ./deploy
COPY manage.py ./
RUN deploy/entrypoint.sh install \
    && deploy/entrypoint.sh compilemessages \
    && deploy/entrypoint.sh collectstatic \
    && useradd --system --no-create-home --home-dir /app knock \
    && chown -R knock /app/var

USER knock
EXPOSE 8000
# The web role's check; compose gives worker and beat their own (healthcheck worker|beat).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
    CMD ["deploy/entrypoint.sh", "healthcheck", "web"]
ENTRYPOINT ["deploy/entrypoint.sh"]
CMD ["web"]
