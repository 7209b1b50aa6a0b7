#!/usr/bin/env bash
# `npm test [-- jest args]`: installs what is missing, then runs jest against a
# private stack (own PostgreSQL cluster with a fresh database, own Temporal dev
# server); see stack/test-env.ts. Exits with jest's exit code.
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
# The tooling gate first: a type error or a lint fault fails before any server starts.
bash stack/check.sh
bash stack/test-tools-setup.sh
bash stack/browser-setup.sh  # Debian's chromium for the dashboard browser tests (playwright-core drives it)
bash stack/temporal-test-server-setup.sh  # the time-skipping server of test/workflows/
# exec: signals (Ctrl-C, CI timeouts) go straight to test-env, which stops the servers.
exec node_modules/.bin/tsx stack/test-env.ts "$@"
