"""Configuration: defaults, then the environment, then the mapping given to create_app."""
import os

DEFAULTS = {
    "SECRET_KEY": "dev-only-change-me",
    "SQLALCHEMY_DATABASE_URI": None,  # None: SQLite file in the instance folder
    "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
    "MAX_CONTENT_LENGTH": 1024 * 1024,
    "JOB_TEXT_MAX_BYTES": 200 * 1024,
    # Build the parser (spaCy pipeline, taxonomy matcher, track model) in a background thread
    # when the app starts, so the first parse a user asks for does not pay for it.
    "PARSER_WARM_UP": True,
    # What the API takes (web/inputs.py): JSON bodies nested deeper are refused with 400;
    # integers in paths, queries and bodies past +-API_MAX_INTEGER with 404/422 (the ids are
    # PostgreSQL INTEGER columns, 32-bit).
    "API_JSON_MAX_DEPTH": 32,
    "API_MAX_INTEGER": 2**31 - 1,
    "API_TITLE": "KernelPath API",
    "API_VERSION": "v1",
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/api/v1",
    "OPENAPI_JSON_PATH": "openapi.json",
    "API_SPEC_OPTIONS": {
        "components": {
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}
        }
    },
    "TOKEN_TTL_DAYS": 90,
    # Grading: "local" (worker threads in the service) or "celery" (CELERY_BROKER_URL).
    "GRADING_QUEUE": "local",
    "GRADING_WORKERS": 0,                 # local engine; 0: sized to the machine
    "GRADING_BACKENDS": "cpu",            # "cpu,cuda" where GPU workers serve the cuda queue
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "SUBMISSION_RATE_LIMIT": "20/minute;300/hour",   # per user, submissions and runs each
    "RATELIMIT_STORAGE_URI": "memory://",           # redis://... to share limits between processes
    "RATELIMIT_HEADERS_ENABLED": True,
    # Outgoing mail (invitations); unset MAIL_SERVER sends nothing and shows links instead.
    "MAIL_SERVER": None,
    "MAIL_PORT": 25,
    "MAIL_USE_TLS": False,
    "MAIL_USERNAME": None,
    "MAIL_PASSWORD": None,
    "MAIL_FROM": None,
}

_ENV_PREFIX = "KERNELPATH_"


def _coerce(value: str):
    """Read booleans and integers from the environment; keep everything else a string."""
    lowered = value.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    try:
        return int(value)
    except ValueError:
        return value


def from_environment(environ=None) -> dict:
    """Settings named KERNELPATH_* (prefix dropped) plus DATABASE_URL."""
    environ = os.environ if environ is None else environ
    found = {
        key[len(_ENV_PREFIX):]: _coerce(value)
        for key, value in environ.items()
        if key.startswith(_ENV_PREFIX)
    }
    if environ.get("CELERY_BROKER_URL"):
        found["CELERY_BROKER_URL"] = environ["CELERY_BROKER_URL"]
    if environ.get("DATABASE_URL"):
        found["SQLALCHEMY_DATABASE_URI"] = normalise_database_url(environ["DATABASE_URL"])
    return found


def normalise_database_url(url: str) -> str:
    """Use the psycopg 3 driver for postgres URLs given without one."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url
