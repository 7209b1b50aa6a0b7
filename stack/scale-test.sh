#!/usr/bin/env bash
# `npm run test:scale`: installs what is missing, then runs test/scale/scale.ts, which starts its own stack
# (PostgreSQL, the real Temporal server on it, two of each service process) and exits 1 when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
exec node_modules/.bin/tsx test/scale/scale.ts "$@"
