#!/bin/sh
# Every step the image runs, in one place: the Dockerfile calls it at build time (install,
# collectstatic) and as the container's entry point (migrate, web, worker, beat,
# healthcheck); tests/foundation/test_image.py runs the same steps without Docker.
# Anything else is run as given (`docker compose run web python manage.py shell`).
set -eu
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python}"
# JSON logs are JSON lines only: no start-up banners from Celery then.
CELERY="$PYTHON -m celery -A config"
[ "${LOG_FORMAT:-plain}" = json ] && CELERY="$CELERY --quiet"

step="${1:-web}"
[ "$#" -gt 0 ] && shift

# The metrics folder every process of this machine (container) shares, emptied before a
# long-running process starts so no dead process's counts linger (docs/operations.md).
case "$step" in
  web | worker | beat)
    if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
      mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
      rm -f "$PROMETHEUS_MULTIPROC_DIR"/*.db
    fi
    ;;
esac

case "$step" in
  install)
    # Exactly the versions in constraints.txt, so every build gets the same set.
    "$PYTHON" -m pip install --no-cache-dir -c constraints.txt "$@" .
    ;;
  compilemessages)
    # The translations' .mo files, with Babel (no gettext in the image).
    exec "$PYTHON" manage.py compilemessages "$@"
    ;;
  collectstatic)
    # With the production storage (DEBUG=0): hashed names and the manifest that every page
    # needs once DEBUG is off. No secret is used here, so a build needs none.
    DEBUG=0 SECRET_KEY="${SECRET_KEY:-collectstatic-uses-no-secret}" \
      "$PYTHON" manage.py collectstatic --noinput --verbosity 0 "$@"
    ;;
  migrate)
    exec "$PYTHON" manage.py migrate --noinput "$@"
    ;;
  web)
    # uvicorn, trusting forwarded headers only with NUM_PROXIES (config/ops/web.py).
    exec "$PYTHON" -m config.ops.web "$@"
    ;;
  worker)
    exec $CELERY worker --loglevel "${LOG_LEVEL:-INFO}" "$@"
    ;;
  beat)
    exec $CELERY beat --loglevel "${LOG_LEVEL:-INFO}" \
      --schedule "${KNOCK_VAR_DIR:-var}/celerybeat-schedule" "$@"
    ;;
  healthcheck)
    # web (the default): /healthz?only=database,broker with an allowed Host;
    # worker, beat: this machine's heartbeat is fresh (manage.py check_heartbeat).
    role="${1:-web}"
    case "$role" in
      web) exec "$PYTHON" -m config.ops.web --check ;;
      worker | beat) exec "$PYTHON" manage.py check_heartbeat "$role" ;;
      *) echo "healthcheck: no such role: $role (web, worker, beat)" >&2; exit 2 ;;
    esac
    ;;
  *)
    exec "$step" "$@"
    ;;
esac
