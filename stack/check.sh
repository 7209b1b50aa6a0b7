#!/usr/bin/env bash
# The tooling gate, run first by `npm test` (and so by .ci/run); `npm run check`
# runs it alone. Types (swc strips them when tests run, so only tsc checks
# them), lint (eslint.config.mjs: type-aware rules, the import directions of
# the README, Temporal's rules for workflow code, one file-name style), format
# (Prettier; `npm run format` fixes), and docker-compose.yml through the
# Compose specification's own loader (stack/compose-check, built with Go).
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/node-setup.sh

step() { echo "[check] $1"; }

step "tsc --noEmit"
node_modules/.bin/tsc --noEmit -p .
step "tsc --noEmit (the TypeScript client, with its own settings)"
node_modules/.bin/tsc -p clients/typescript/tsconfig.json
step "tsc --noEmit (the dashboard's browser scripts: the DOM's types, none of Node's)"
node_modules/.bin/tsc -p api/dashboard/browser/tsconfig.json

step "eslint"
node_modules/.bin/eslint --max-warnings 0 .

step "prettier --check"
node_modules/.bin/prettier --check --log-level warn .

step "ruff check (the project's Python: recognizer, Python client, speech sets; ruff.toml)"
bash stack/test-tools-setup.sh
.tools/venv-test/bin/ruff check --quiet .

step "mypy --strict (the recognizer, against its own environment; mypy.ini)"
bash stack/recognizer-setup.sh  # a stamp compare once installed (stack/setup.sh installs it before the gate)
.tools/venv-test/bin/mypy --python-executable .tools/venv-recognizer/bin/python
step "recognizer/catalogue.py matches core/errors.ts"
node_modules/.bin/tsx stack/recognizer-catalogue.ts check
step "recognizer/job_spec.py matches JobSpecSchema"
node_modules/.bin/tsx stack/recognizer-models.ts check

step "docker-compose.yml (compose-go)"
CHECKER=.tools/bin/compose-check
if [ ! -x "$CHECKER" ] || [ -n "$(find stack/compose-check -newer "$CHECKER" -type f 2>/dev/null)" ]; then
  mkdir -p .tools/bin
  (cd stack/compose-check && GOFLAGS=-mod=mod go build -o "../../$CHECKER" .)
fi
"$CHECKER" docker-compose.yml

step "docs site (VitePress build, every link and anchor, every page in the navigation)"
node_modules/.bin/tsx stack/docs.ts
