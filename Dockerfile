# Docent: one image for the API (`docent serve`) and the ingest workers (`docent worker`).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DO_NOT_TRACK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    DOCENT_DATA_DIR=/data \
    DOCENT_HOST=0.0.0.0 \
    DOCENT_PORT=8000

RUN apt-get update \
 && apt-get install -y --no-install-recommends libmagic1 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# torch first and pinned to the CPU wheel: an unpinned torch pulls a multi-GB CUDA build.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

# Dependencies before the source, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir -p docent ingest retrieval render generate api web evals \
 && for p in docent ingest retrieval render generate api web evals; do touch $p/__init__.py; done \
 && pip install . \
 && pip uninstall -y docent

COPY . .
RUN pip install --no-deps . \
 && useradd --create-home --uid 10001 docent \
 && mkdir -p /data && chown docent:docent /data

USER docent
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=5 \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"
CMD ["docent", "serve"]
