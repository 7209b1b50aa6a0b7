#!/usr/bin/env bash
# `npm test`: installs what is missing, then runs, each on a private stack of its own:
#   1. the full jest suite on the Temporal dev server (stack/test-env.ts);
#   2. the tier that must hold on the production Temporal server, built from its Go module and run on
#      PostgreSQL (stack/temporal-server.ts): jobs, batches, webhooks, cancels, retries, discoveries,
#      operator search and the history replays;
#   3. the scale test (test/scale/scale.ts): two of each process, 1,000 jobs, kills, a PostgreSQL restart
#      and a rolling restart.
# Exits non-zero when any of them failed (all three run either way).
# `npm test -- <jest args>` runs only jest with those arguments; `npm run test:temporal-postgres` only tier 2;
# `npm run test:scale` only tier 3.
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
# The tooling gate first: a type error or a lint fault fails before any server starts. It also installs the
# test tools (stack/test-tools-setup.sh: ruff, which it runs, and schemathesis).
bash stack/check.sh
bash stack/browser-setup.sh  # Debian's chromium for the dashboard browser tests (playwright-core drives it)
bash stack/temporal-test-server-setup.sh  # the time-skipping server of test/workflows/
# The Go tools every tier starts (Temporal, MinIO, stripe-mock): built here, never inside a test.
node_modules/.bin/tsx stack/build-test-tools.ts

TEMPORAL_POSTGRES_TIER=(
  test/jobs.test.ts test/jobs-lifecycle.test.ts test/batches.test.ts test/webhooks.test.ts
  test/discoveries.test.ts test/operator-visibility.test.ts test/replay/histories.test.ts
)
if [ "${1:-}" = "--temporal-postgres" ]; then
  shift
  TEMPORAL_SERVER=postgres exec node_modules/.bin/tsx stack/test-env.ts "${TEMPORAL_POSTGRES_TIER[@]}" "$@"
fi
# exec: signals (Ctrl-C, CI timeouts) go straight to test-env, which stops the servers.
if [ $# -gt 0 ]; then exec node_modules/.bin/tsx stack/test-env.ts "$@"; fi

# The three tiers one after another. A TERM or INT is passed to the tier running (it stops its servers) and
# ends the run.
child=""
stopped=0
trap 'stopped=1; [ -n "$child" ] && kill -TERM "$child" 2>/dev/null || true' TERM INT
tier() {
  local rc=0
  "$@" &
  child=$!
  wait "$child" || rc=$?
  # A trapped signal ends `wait` early: wait for the tier to finish stopping its servers.
  while kill -0 "$child" 2>/dev/null; do wait "$child" || rc=$?; done
  child=""
  return "$rc"
}
status=0
tier node_modules/.bin/tsx stack/test-env.ts || status=$?
if [ "$stopped" = 0 ]; then
  echo "[test] tier 2: the production Temporal server on PostgreSQL"
  tier env TEMPORAL_SERVER=postgres node_modules/.bin/tsx stack/test-env.ts "${TEMPORAL_POSTGRES_TIER[@]}" || status=$?
fi
if [ "$stopped" = 0 ]; then
  echo "[test] tier 3: the scale test"
  tier node_modules/.bin/tsx test/scale/scale.ts || status=$?
fi
exit "$status"
