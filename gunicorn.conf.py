"""gunicorn settings (`make serve`, the container): `gunicorn -c gunicorn.conf.py`.

Processes: WEB_CONCURRENCY, else one per core with the celery grading engine. The local engine
grades in a pool of processes that the web process starts, and must have exactly one web process
per database (two would each re-queue the other's unfinished work at start-up:
assessments/queue.py), so it gets one process and more threads. Threads per process: WEB_THREADS. Address: 127.0.0.1:8000, or 0.0.0.0:$PORT
when PORT is set (gunicorn's own default), or --bind. Anything else: GUNICORN_CMD_ARGS.
"""
import os
import shutil
import tempfile

import settings

wsgi_app = "app:create_app()"

_engine = settings.from_environment(settings.DEFAULTS).get(
    "GRADING_QUEUE", settings.DEFAULTS["GRADING_QUEUE"])
# The cores this process may use (a container's cpuset), not the host's.
_cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
workers = int(os.environ.get("WEB_CONCURRENCY") or (_cores if _engine == "celery" else 1))
if _engine == "local" and workers != 1:
    raise RuntimeError("the local grading engine runs in one web process per database: "
                       "unset WEB_CONCURRENCY, or grade with KERNELPATH_GRADING_QUEUE=celery")
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS") or max(4, 2 * _cores // workers))
accesslog = "-"
# Nothing here uses gunicornc, and its socket's default path is one per user, shared by every
# server that user starts.
control_socket_disable = True


def on_starting(server):
    """/metrics adds up the files every worker writes to PROMETHEUS_MULTIPROC_DIR (a temporary
    one unless given); files of an earlier run would be added in, so they go first. Set here,
    before any worker imports prometheus_client, which reads it once."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        directory = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(
            prefix="kernelpath-metrics-")
        server.kernelpath_metrics_tmp = directory
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.endswith(".db"):
            os.remove(os.path.join(directory, name))


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    if hasattr(server, "kernelpath_metrics_tmp"):
        shutil.rmtree(server.kernelpath_metrics_tmp, ignore_errors=True)
