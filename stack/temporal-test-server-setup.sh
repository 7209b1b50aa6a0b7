#!/usr/bin/env bash
# Temporal's time-skipping test server for the workflow tests (test/workflows/,
# test/support/time-skipping.ts): the Java SDK's io.temporal:temporal-test-server,
# pinned in stack/temporal-test-server/pom.xml and resolved from Maven Central
# (the SDK's own download of it comes from a server this machine cannot reach).
# Installs its jars into .tools/temporal-test-server/lib and a launcher,
# .tools/bin/temporal-test-server <port>, which the test SDK starts as an
# 'existing-path' executable. Tests only: `npm run dev` does not need it.
# Run from the repo root (stack/test.sh calls it); a second run only compares a stamp.
set -euo pipefail
POM=stack/temporal-test-server/pom.xml
DIR=.tools/temporal-test-server
BIN=.tools/bin/temporal-test-server
missing=()
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing ${missing[*]} with apt-get (for the Temporal test server)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "[setup] the Temporal test server needs Java 17+ and Maven: install ${missing[*]}" >&2
    exit 1
  fi
fi

# The Java version is part of the stamp: the class-data archive below only serves the JVM that wrote it.
STAMP="$DIR/.installed-$({ cat "$POM" "${BASH_SOURCE[0]}"; java -version 2>&1; } | sha256sum | cut -c1-16)"
[ -f "$STAMP" ] && [ -x "$BIN" ] && exit 0

echo "[setup] resolving the Temporal test server ($POM) from Maven Central into $DIR"
rm -rf "$DIR" && mkdir -p "$DIR" .tools/bin
LOG="$DIR/setup.log"
# Maven's output goes to a log (Debian's Maven prints colour codes even in batch mode); shown on failure.
mvn -B -f "$POM" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$PWD/$DIR/lib.partial" >"$LOG" 2>&1 \
  || { tail -n 40 "$LOG" >&2; echo "[setup] resolving the Temporal test server failed (log: $LOG)" >&2; exit 1; }
mv "$DIR/lib.partial" "$DIR/lib"

# A server lives for one test file, and the test SDK gives it 5 s to listen
# (two start at once under jest's two workers, next to workflow bundling): the
# quick-starting JIT tier, the serial collector and a class-data sharing archive
# of the classes a start loads (written below) bring that from about 3 s to 0.5 s.
JVM_OPTS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC'
cat >"$BIN" <<LAUNCHER
#!/usr/bin/env bash
# Written by stack/temporal-test-server-setup.sh. Usage: temporal-test-server <port>
DIR="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/../temporal-test-server" && pwd)"
CDS=()
[ -f "\$DIR/classes.jsa" ] && CDS=(-XX:SharedArchiveFile="\$DIR/classes.jsa" -Xlog:cds=off)
exec java $JVM_OPTS "\${CDS[@]}" -cp "\$DIR/lib/*" io.temporal.testserver.TestServer "\$@"
LAUNCHER
chmod +x "$BIN"

# The archive: start the server once with the class path and options of the launcher, and stop it once it listens.
port=$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
# shellcheck disable=SC2086
java $JVM_OPTS -XX:ArchiveClassesAtExit="$PWD/$DIR/classes.jsa" -cp "$PWD/$DIR/lib/*" io.temporal.testserver.TestServer "$port" >>"$LOG" 2>&1 &
server=$!
for _ in $(seq 600); do
  kill -0 "$server" 2>/dev/null || break # a JVM that cannot write the archive exits at once
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
kill -TERM "$server" && wait "$server" || true
[ -f "$DIR/classes.jsa" ] || echo "[setup] no class-data archive for the Temporal test server: it starts, only slower" >&2
touch "$STAMP"
