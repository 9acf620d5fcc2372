"""SQLAlchemy engines for code that grades outside Flask: the local queue's grading processes
and Celery workers. One engine per database URL and process."""
from __future__ import annotations

import threading

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine

_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def sqlite_for_concurrent_use(engine: Engine) -> None:
    """Write-ahead log, so graders' writes do not block readers; wait for locks instead of
    failing (the web process and the grading processes share one SQLite file)."""
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _pragmas(connection, _record):
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=15000")
        cursor.close()


def engine_for(url: str) -> Engine:
    """This process's engine for `url` (created once, with the SQLite settings above)."""
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            engine = create_engine(url, pool_pre_ping=True)
            sqlite_for_concurrent_use(engine)
            _engines[url] = engine
        return engine
