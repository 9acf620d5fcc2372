# One image for the web service (gunicorn) and the grading workers (Celery): docker-compose.yml.

# The browser assets (CodeMirror editor, Swagger UI) are bundled by the Makefile's targets at
# build time; Node stays out of the final image.
FROM node:20-bookworm-slim AS assets
RUN apt-get update && apt-get install -y --no-install-recommends make \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile package.json package-lock.json ./
COPY static/src static/src
RUN make static/vendor/editor.js static/vendor/swagger-ui/swagger-ui-bundle.js

FROM python:3.11-slim-bookworm
# PYTHONPATH: the `celery` command puts the working directory on the path only while it loads
# the app, and the judge imports gpu_tasks later.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 PATH=/opt/venv/bin:$PATH PYTHONPATH=/app FLASK_APP=app
# bubblewrap: the judge's sandbox; g++: the CPU backend's compiler; Pango: WeasyPrint's PDFs;
# tini: reaps what a finished sandbox leaves behind (assessments/judge/README.md, "Ending a run").
RUN apt-get update && apt-get install -y --no-install-recommends \
        bubblewrap g++ libpango-1.0-0 libpangoft2-1.0-0 tini \
    && rm -rf /var/lib/apt/lists/*
# A virtual environment, so the sandbox binds only the packages a candidate's code may use
# rather than the whole of the interpreter's site-packages.
RUN python -m venv /opt/venv
WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
COPY --from=assets /src/static/vendor static/vendor
# The track classifier and the taxonomy's tokens, made once here rather than at every start;
# the project's bytecode, which the environment says not to write at run time (every process
# and every sandbox would compile the judge's modules again).
RUN python -m skillmap.prepare \
    && python -m compileall -q assessments gpu_tasks skillmap jobdata candidates accounts web \
    && useradd --create-home --uid 10001 kernelpath \
    && mkdir -p instance && chown kernelpath instance
USER kernelpath
EXPOSE 8000
ENTRYPOINT ["tini", "--"]
CMD ["gunicorn", "--config", "gunicorn.conf.py", "--bind", "0.0.0.0:8000"]
