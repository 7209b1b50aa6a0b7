#!/usr/bin/env bash
# Generates the Prisma client offline. `prisma generate` only checks that the
# schema-engine path exists (it never runs it), so any existing file will do;
# without it the CLI tries to download the engine from Prisma's servers.
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/node-setup.sh
export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-$PWD/package.json}"
export PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1
npx --no-install prisma generate --schema prisma/schema.prisma >/dev/null
