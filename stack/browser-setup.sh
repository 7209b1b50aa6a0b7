#!/usr/bin/env bash
# Debian's Chromium for the dashboard's browser tests (test/dashboard*.test.ts drive it
# with playwright-core; Playwright's own browser download cannot work offline or on
# these machines). Idempotent: a second run only checks that the binary is there.
browser_setup() {
  if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "[setup] chromium is missing and apt-get is unavailable: install Chromium and set CHROMIUM_PATH; the dashboard tests fail until then." >&2
  elif [ "$(id -u)" -eq 0 ]; then
    echo "[setup] installing chromium with apt-get (dashboard browser tests)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
      || echo "[setup] apt-get install chromium failed (see above); the dashboard tests fail until it is installed." >&2
  else
    echo "[setup] chromium is missing: run 'sudo apt-get install -y chromium'." >&2
  fi
}
browser_setup
