# Production image: one image, three roles (web, worker, beat) chosen by the command.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    KNOCK_VAR_DIR=/app/var

WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY engine ./engine
COPY outbox ./outbox
COPY gameplay ./gameplay
COPY tournaments ./tournaments
COPY leagues ./leagues
COPY templates ./templates
COPY static ./static
COPY manage.py ./
RUN pip install . \
    && DEBUG=1 python manage.py collectstatic --noinput --verbosity 0 \
    && useradd --system --home /app knock \
    && chown -R knock /app/var

USER knock
EXPOSE 8000
CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--workers", "3"]
