#!/usr/bin/env bash
# What .ci/run runs: the test command (`npm test`: the suite, the tier on the production Temporal server and
# the scale test; or CI_TEST_COMMAND), then a
# check that the checkout is as it was. Set-up and tests may write only
# ignored files (.tools, .data, node_modules, prisma/generated); a changed
# tracked file (a rewritten lock file, a reformatted source) or a new file
# that .gitignore does not cover fails the run, even when every test passed.
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/node-setup.sh
before=$(git status --porcelain=v1 --untracked-files=all)
status=0
bash -c "${CI_TEST_COMMAND:-npm test}" || status=$?
after=$(git status --porcelain=v1 --untracked-files=all)
if [ "$after" != "$before" ]; then
  echo "[ci] set-up or tests changed the checkout (tracked files changed, or files not covered by .gitignore appeared):" >&2
  diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
  exit 1
fi
exit "$status"
