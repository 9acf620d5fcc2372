"""Operations: /healthz for load balancers and orchestrators, /metrics for Prometheus, and the
request-latency histogram behind it. What a scrape shows beyond this module's own histogram
comes from the app (`register(app, scrape_registry)`), so this module imports no area."""
from __future__ import annotations

import hmac
import ipaddress
import logging
import time
from collections.abc import Callable

from flask import (Blueprint, Flask, abort, current_app, jsonify, request, request_finished,
                   request_started)
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from sqlalchemy import text

from extensions import db

log = logging.getLogger(__name__)
bp = Blueprint("ops", __name__)

BROKER_TIMEOUT_S = 2
# Labels come from the route table, never the raw path or method, so a scan of made-up URLs
# cannot grow the number of series.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
REQUEST_SECONDS = Histogram(
    "kernelpath_http_request_duration_seconds", "Time to answer a request, by Flask endpoint.",
    ("endpoint", "method", "status"))
_STARTED = "kernelpath.started"
_SCRAPE = "kernelpath.scrape_registry"


def register(app: Flask, scrape_registry: Callable[[], CollectorRegistry]) -> None:
    """Serve the endpoints; `scrape_registry()` gives what one scrape of /metrics shows."""
    app.extensions[_SCRAPE] = scrape_registry
    app.register_blueprint(bp)
    # Signals rather than before/after_request: they wrap every hook, whatever its order.
    request_started.connect(_started, app)
    request_finished.connect(_finished, app)


def _started(_app, **_):
    request.environ[_STARTED] = time.perf_counter()


def _finished(_app, response, **_):
    started = request.environ.get(_STARTED)
    if started is None:
        return
    method = request.method if request.method in _METHODS else "other"
    REQUEST_SECONDS.labels(request.endpoint or "unmatched", method,
                           str(response.status_code)).observe(time.perf_counter() - started)


@bp.get("/healthz")
def healthz():
    """200 when the database answers and the grading queue can take work, else 503 naming the
    failing part. Reads only."""
    checks = {"database": _check(_database), "grading_queue": _check(_grading_queue)}
    failed = [name for name, outcome in checks.items() if outcome != "ok"]
    body = {"status": "unavailable" if failed else "ok", "checks": checks}
    if failed:
        body["failed"] = failed
    resp = jsonify(body)
    resp.status_code = 503 if failed else 200
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _check(probe) -> str:
    """"ok", or why not: the error's type only (the endpoint is public; details go to the log)."""
    try:
        problem = probe()
    except Exception as exc:
        log.warning("health check %s failed: %r", probe.__name__, exc)
        return f"error: {type(exc).__name__}"
    return problem or "ok"


def _database():
    with db.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


def _grading_queue():
    queue = current_app.extensions["grading_queue"]
    if queue.name == "celery":
        return _ping_broker(queue.celery.conf.broker_url)
    # Local engine: started by the first request (this one included), its threads all alive.
    problem = queue.problem()
    return f"error: {problem}" if problem else None


def _ping_broker(url: str):
    from kombu import Connection

    # Every wait bounded: a broker that accepts connections but never answers must not hang.
    options = ({"socket_timeout": BROKER_TIMEOUT_S, "socket_connect_timeout": BROKER_TIMEOUT_S}
               if url.startswith("redis") else
               {"read_timeout": BROKER_TIMEOUT_S, "write_timeout": BROKER_TIMEOUT_S})
    with Connection(url, connect_timeout=BROKER_TIMEOUT_S, transport_options=options) as conn:
        conn.ensure_connection(max_retries=0)
        if url.startswith("redis"):
            conn.default_channel.client.ping()


@bp.get("/metrics")
def prometheus_metrics():
    _authorise_scrape()
    body = generate_latest(current_app.extensions[_SCRAPE]())
    return body, 200, {"Content-Type": CONTENT_TYPE_LATEST, "Cache-Control": "no-store"}


def _authorise_scrape() -> None:
    """With METRICS_TOKEN: that bearer token, from anywhere. Without: loopback clients only,
    and not through a proxy the app was not told about (PROXY_COUNT), which would make every
    visitor look local."""
    token = current_app.config.get("METRICS_TOKEN")
    if token:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            abort(403)
        return
    proxied = not current_app.config.get("PROXY_COUNT") and (
        "X-Forwarded-For" in request.headers or "Forwarded" in request.headers)
    try:
        local = ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        local = False
    if proxied or not local:
        abort(403)
