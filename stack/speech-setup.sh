#!/usr/bin/env bash
# Speech and media tools for the worker and the speech tests, on a fresh
# Debian/Ubuntu machine. Run from anywhere (`bash stack/speech-setup.sh`) or
# source it from stack/setup.sh. Idempotent: every step checks first, so a
# second run costs a few milliseconds and installs nothing.
#
#  - ffmpeg/ffprobe: probing, decoding, cutting pieces (integrations/media);
#  - pocketsphinx + pocketsphinx-en-us: the embedded English recognizer;
#  - flite, festival + festvox-us-slt-hts, sox: English test speech
#    (test/support/speech.ts; not espeak-ng, which pocketsphinx cannot follow);
#  - smart-whisper (optional npm dependency, whisper.cpp compiled at install)
#    rebuilt with AVX2/FMA when the CPU has them: npm's default build has no
#    AVX and is several times slower.

speech_setup() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

  local pkgs=()
  command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || pkgs+=(ffmpeg)
  command -v pocketsphinx_continuous >/dev/null 2>&1 || pkgs+=(pocketsphinx)
  [ -f /usr/share/pocketsphinx/model/en-us/en-us.lm.bin ] || pkgs+=(pocketsphinx-en-us)
  command -v flite >/dev/null 2>&1 || pkgs+=(flite)
  command -v text2wave >/dev/null 2>&1 || pkgs+=(festival)
  [ -d /usr/share/festival/voices/us/cmu_us_slt_arctic_hts ] || pkgs+=(festvox-us-slt-hts)
  command -v sox >/dev/null 2>&1 || pkgs+=(sox)

  if [ ${#pkgs[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "[speech-setup] missing ${pkgs[*]} and apt-get is unavailable: install them yourself; speech jobs and tests fail until then." >&2
    elif [ "$(id -u)" -eq 0 ]; then
      echo "[speech-setup] installing ${pkgs[*]} with apt-get"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" \
        || echo "[speech-setup] apt-get install failed (see above); speech jobs and tests fail until ${pkgs[*]} are installed." >&2
    else
      echo "[speech-setup] missing ${pkgs[*]}: run 'sudo apt-get install -y ${pkgs[*]}'." >&2
    fi
  fi

  # whisper.cpp inside smart-whisper (an optional dependency: a failed build
  # does not stop `npm ci`). Built here with the x86-64-v3 level (AVX2, FMA,
  # F16C) when this CPU has it, else with the defaults when npm's own build is
  # missing. The marker lives in the build folder, so a fresh `npm ci` (new
  # build) triggers this again.
  local sw="$root/node_modules/smart-whisper"
  if [ -d "$sw" ]; then
    local flags="" level="default"
    if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
      flags="-O3 -march=x86-64-v3"
      level="x86-64-v3"
    fi
    local marker="$sw/build/Release/.built-$level"
    if [ "$level" = default ] && [ -f "$sw/build/Release/smart-whisper.node" ]; then
      : # npm's own build is the default build
    elif [ ! -f "$marker" ]; then
      echo "[speech-setup] building smart-whisper (whisper.cpp, $level): about 2 minutes"
      # npm_config_nodedir: the Node headers that came with node itself, so node-gyp downloads nothing.
      local nodedir log="${TMPDIR:-/tmp}/smart-whisper-build.log"
      nodedir="$(node -p 'require("path").resolve(process.execPath, "../..")')"
      [ -f "$nodedir/include/node/node.h" ] || nodedir=""
      if (cd "$root" && { [ -z "$flags" ] || export CFLAGS="$flags" CXXFLAGS="$flags"; } \
          && { [ -z "$nodedir" ] || [ -n "${npm_config_nodedir:-}" ] || export npm_config_nodedir="$nodedir"; } \
          && npm rebuild smart-whisper --foreground-scripts >"$log" 2>&1); then
        touch "$marker"
      else
        tail -n 30 "$log" >&2
        echo "[speech-setup] smart-whisper build failed (log: $log); the whisper recognizer answers PROVIDER_UNAVAILABLE until it builds." >&2
      fi
    fi
  fi
}

speech_setup
