#!/usr/bin/env bash
# Media tools for the worker and the speech tests, on a fresh Debian/Ubuntu
# machine. Run from anywhere (`bash stack/speech-setup.sh`) or from
# stack/setup.sh. Idempotent: every step checks first, so a second run costs a
# few milliseconds and installs nothing.
#
#  - ffmpeg/ffprobe: probing, decoding, cutting pieces (integrations/media);
#  - flite, sox: English test speech with a known text (test/support/speech.ts).
#
# The speech recognizer itself (faster-whisper with Whisper base) is a Python
# environment of its own: stack/recognizer-setup.sh.

speech_setup() {
  local pkgs=()
  command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || pkgs+=(ffmpeg)
  command -v flite >/dev/null 2>&1 || pkgs+=(flite)
  command -v sox >/dev/null 2>&1 || pkgs+=(sox)

  if [ ${#pkgs[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "[speech-setup] missing ${pkgs[*]} and apt-get is unavailable: install them yourself; media jobs and tests fail until then." >&2
    elif [ "$(id -u)" -eq 0 ]; then
      echo "[speech-setup] installing ${pkgs[*]} with apt-get"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" \
        || echo "[speech-setup] apt-get install failed (see above); media jobs and tests fail until ${pkgs[*]} are installed." >&2
    else
      echo "[speech-setup] missing ${pkgs[*]}: run 'sudo apt-get install -y ${pkgs[*]}'." >&2
    fi
  fi
}

speech_setup
