"""Configuration: defaults, then the environment, then the mapping given to create_app."""
import json
import os
import secrets
import time
from collections.abc import Mapping

DEFAULTS = {
    # None: read from instance/secret_key, generated there on first start (never a fixed key).
    "SECRET_KEY": None,
    "SQLALCHEMY_DATABASE_URI": None,  # None: SQLite file in the instance folder
    "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
    # Served over HTTPS (directly or behind a proxy): cookies only over HTTPS, https URLs in
    # mail. PROXY_COUNT: how many proxies in front set X-Forwarded-* (0: trust none).
    "HTTPS": False,
    "PROXY_COUNT": 0,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "REMEMBER_COOKIE_SAMESITE": "Lax",
    # Page forms carry a CSRF token bound to the session, valid as long as the session is.
    "WTF_CSRF_TIME_LIMIT": None,
    "WTF_CSRF_CHECK_DEFAULT": False,  # web/forms.py checks pages only, never the API
    "PASSWORD_RESET_TTL_MINUTES": 60,
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
    # Grading: "local" (a pool of grading processes beside the service) or "celery"
    # (CELERY_BROKER_URL).
    "GRADING_QUEUE": "local",
    "GRADING_WORKERS": 0,                 # local engine; 0: sized to the machine
    "GRADING_PROCESSES": True,            # local engine: False grades in threads of the service
    "GRADING_BACKENDS": "cpu",            # "cpu,cuda" where GPU workers serve the cuda queue
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "SUBMISSION_RATE_LIMIT": "20/minute;300/hour",   # per user, submissions and runs each
    # Per address: failed sign-ins (page and token exchange together), sign-ups, password-reset
    # requests. Answered with 429 and Retry-After.
    "LOGIN_RATE_LIMIT": "10/minute;50/hour",
    "SIGNUP_RATE_LIMIT": "10/hour",
    "TOKEN_RATE_LIMIT": "30/hour",
    "PASSWORD_RESET_RATE_LIMIT": "5/hour",
    "RATELIMIT_STORAGE_URI": "memory://",           # redis://... to share limits between processes
    "RATELIMIT_HEADERS_ENABLED": True,
    # Outgoing mail (invitations); unset MAIL_SERVER sends nothing and shows links instead.
    "MAIL_SERVER": None,
    "MAIL_PORT": 25,
    "MAIL_USE_TLS": False,
    "MAIL_USERNAME": None,
    "MAIL_PASSWORD": None,
    "MAIL_FROM": None,
    # /metrics: with a token, only to "Authorization: Bearer <token>"; without, only to loopback
    # clients (web/ops.py).
    "METRICS_TOKEN": None,
}

_ENV_PREFIX = "KERNELPATH_"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


class SettingError(ValueError):
    """An environment variable whose value does not fit its setting's type."""


def _typed(name: str, value: str, like):
    """`value` read as the type of the setting's current value `like`; text when it has none,
    so a secret of digits or a URL stays exactly as written."""
    if isinstance(like, bool):
        if value.strip().lower() in _TRUE:
            return True
        if value.strip().lower() in _FALSE:
            return False
        raise SettingError(f"{_ENV_PREFIX}{name} must be true or false, not {value!r}")
    if isinstance(like, (int, float)):
        try:
            return type(like)(value.strip())
        except ValueError:
            raise SettingError(f"{_ENV_PREFIX}{name} must be a number, not {value!r}") from None
    if isinstance(like, (dict, list)):
        try:
            parsed = json.loads(value)
        except ValueError:
            raise SettingError(f"{_ENV_PREFIX}{name} must be JSON, not {value!r}") from None
        if not isinstance(parsed, type(like)):
            raise SettingError(f"{_ENV_PREFIX}{name} must be a JSON {type(like).__name__}")
        return parsed
    return value


def from_environment(current: Mapping, environ: Mapping | None = None) -> dict:
    """Settings named KERNELPATH_* (prefix dropped), typed like the values in `current` (the
    defaults and Flask's own), plus DATABASE_URL and CELERY_BROKER_URL as given."""
    environ = os.environ if environ is None else environ
    found = {
        key[len(_ENV_PREFIX):]: _typed(key[len(_ENV_PREFIX):], value,
                                       current.get(key[len(_ENV_PREFIX):]))
        for key, value in environ.items()
        if key.startswith(_ENV_PREFIX) and len(key) > len(_ENV_PREFIX)
    }
    if environ.get("CELERY_BROKER_URL"):
        found["CELERY_BROKER_URL"] = environ["CELERY_BROKER_URL"]
    if environ.get("DATABASE_URL"):
        found["SQLALCHEMY_DATABASE_URI"] = environ["DATABASE_URL"]
    return found


def normalise_database_url(url: str) -> str:
    """Use the psycopg 3 driver for postgres URLs given without one."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def instance_secret_key(instance_path: str) -> str:
    """The secret key kept in the instance folder, made on first use (readable by its owner
    only). Several server processes may start at once: the first to create the file wins and
    the others read it."""
    path = os.path.join(instance_path, "secret_key")
    os.makedirs(instance_path, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # the winner may not have written it yet
            with open(path, encoding="ascii") as f:
                key = f.read().strip()
            if key:
                return key
            time.sleep(0.02)
        raise SettingError(f"{path} is empty; delete it to make a new key") from None
    key = secrets.token_hex(32)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key + "\n")
    return key
