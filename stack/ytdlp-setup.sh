#!/usr/bin/env bash
# yt-dlp for integrations/media/download.ts, pinned, from PyPI into .tools/venv.
# Not Debian's package: its 2023 release cannot read today's platforms, and
# platforms change often enough that the version must be one we chose and tested.
# Besides yt-dlp: yt-dlp-ejs, YouTube's JS challenge solver (else fetched from
# GitHub at run time), and a Deno binary from PyPI to run it (pinned with
# yt-dlp, so the challenge runtime does not depend on the Node.js the rest of
# the project runs on). Pinned one by one, not as yt-dlp[default,pin]: that extra
# (and curl-cffi 0.17, which TikTok's browser impersonation would use) wants
# certifi>=2026.10.19, which the PyPI reachable here does not have yet.
# Run from the repo root (stack/setup.sh calls it); a second run only reads the
# installed version (~0.3 s). Bump the pin after rerunning test/media/download.test.ts.
YTDLP_VERSION=2026.10.26
PACKAGES=("yt-dlp==$YTDLP_VERSION" yt-dlp-ejs==0.8.0 deno==2.9.8)  # the versions yt-dlp $YTDLP_VERSION asks for
VENV=.tools/venv

installed=$("$VENV/bin/python" -c 'from yt_dlp.version import __version__; print(__version__)' 2>/dev/null || true)
if [ "$installed" != "$YTDLP_VERSION" ] || [ ! -x "$VENV/bin/deno" ]; then
  echo "[setup] installing yt-dlp $YTDLP_VERSION (with Deno) from PyPI into $VENV${installed:+ (replacing $installed)}"
  { [ -x "$VENV/bin/pip" ] || python3 -m venv "$VENV"; } \
    && "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PACKAGES[@]}" \
    || echo "[setup] yt-dlp install failed (see above); video downloads fall back to yt-dlp on PATH, if any." >&2
fi
# yt-dlp remuxes some audio formats with ffmpeg (installed by setup.sh's apt step).
command -v ffmpeg >/dev/null 2>&1 || echo "[setup] ffmpeg not found: yt-dlp downloads that need remuxing will fail." >&2
exit 0
