"""The service's object store, read and written the way the TypeScript side does.

Same settings as the API and worker (domain/config.ts): S3 (MinIO) when
S3_ENDPOINT is set, with S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET and
S3_REGION; otherwise files under DATA_DIR/objects, in the layout of
integrations/storage/local-disk-object-store.ts:

    <root>/<key>              the object
    <root>/.meta/<key>.json   {"contentType": ...}
    <root>/.tmp/<uuid>        writes in progress, renamed into place

The local store only works when this worker shares the disk with the others
(one machine, or one mounted volume); recognition workers on other machines
need S3. Activities pass object keys, never audio.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .errors import ServiceError

T = TypeVar("T")

_SEGMENT = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")


def assert_valid_key(key: str) -> None:
    """The key rule of integrations/storage/object-store.ts: `a/b/c` of [A-Za-z0-9._-] segments, none starting with a dot."""
    ok = isinstance(key, str) and 0 < len(key) <= 512 and all(_SEGMENT.match(s) for s in key.split("/"))
    if not ok:
        raise ServiceError("INVALID_REQUEST", f"invalid object key: {json.dumps(key)[:80]}")


class LocalStore:
    kind = "local"

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()

    def describe(self) -> str:
        return f"local folder {self.root}"

    def download(self, key: str, to_file: str) -> None:
        assert_valid_key(key)
        try:
            shutil.copyfile(self.root / key, to_file)
        except FileNotFoundError as err:
            raise ServiceError("NOT_FOUND", f"no object {key}") from err
        except OSError as err:
            raise ServiceError("STORAGE_UNAVAILABLE", f"local storage could not download: {err.strerror or err}") from err

    def exists(self, key: str) -> bool:
        assert_valid_key(key)
        return (self.root / key).is_file()

    def read(self, key: str) -> bytes:
        assert_valid_key(key)
        try:
            return (self.root / key).read_bytes()
        except FileNotFoundError as err:
            raise ServiceError("NOT_FOUND", f"no object {key}") from err
        except OSError as err:
            raise ServiceError("STORAGE_UNAVAILABLE", f"local storage could not read: {err.strerror or err}") from err

    def put_bytes(self, key: str, data: bytes, content_type: str) -> None:
        """Metadata first, then the object, each renamed into place: a reader never sees half an object."""
        assert_valid_key(key)
        tmp_dir = self.root / ".tmp"
        try:
            tmp_dir.mkdir(parents=True, exist_ok=True)
            meta = self.root / ".meta" / f"{key}.json"
            meta_tmp = tmp_dir / str(uuid.uuid4())
            meta_tmp.write_text(json.dumps({"contentType": content_type}))
            meta.parent.mkdir(parents=True, exist_ok=True)
            os.replace(meta_tmp, meta)
            obj_tmp = tmp_dir / str(uuid.uuid4())
            obj_tmp.write_bytes(data)
            target = self.root / key
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(obj_tmp, target)
        except OSError as err:
            raise ServiceError("STORAGE_UNAVAILABLE", f"local storage could not write: {err.strerror or err}") from err


class S3Store:
    kind = "s3"

    def __init__(self, endpoint: str, access_key: str, secret_key: str, bucket: str, region: str | None = None):
        from urllib.parse import urlparse

        from minio import Minio

        url = urlparse(endpoint)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise ValueError(f"S3_ENDPOINT must be an http(s) URL, not {endpoint}")
        self.bucket = bucket
        self.endpoint = endpoint
        self.client = Minio(
            url.netloc,
            access_key=access_key,
            secret_key=secret_key,
            secure=url.scheme == "https",
            region=region or "us-east-1",
        )

    def describe(self) -> str:
        return f"S3 bucket {self.bucket} at {self.endpoint}"

    def _call(self, op: str, key: str, fn: Callable[[], T]) -> T:
        from minio.error import S3Error

        assert_valid_key(key)
        try:
            return fn()
        except S3Error as err:
            if err.code in ("NoSuchKey", "NoSuchObject"):
                raise ServiceError("NOT_FOUND", f"no object {key}") from err
            raise ServiceError("STORAGE_UNAVAILABLE", f"S3 could not {op}: {err.code}") from err
        except ServiceError:
            raise
        except Exception as err:  # connection refused, timeouts (urllib3)
            raise ServiceError("STORAGE_UNAVAILABLE", f"S3 could not {op}: {type(err).__name__}") from err

    def download(self, key: str, to_file: str) -> None:
        self._call("download", key, lambda: self.client.fget_object(self.bucket, key, to_file))

    def exists(self, key: str) -> bool:
        try:
            self._call("stat", key, lambda: self.client.stat_object(self.bucket, key))
            return True
        except ServiceError as err:
            if err.code == "NOT_FOUND":
                return False
            raise

    def read(self, key: str) -> bytes:
        def get() -> bytes:
            resp = self.client.get_object(self.bucket, key)
            try:
                return resp.read()
            finally:
                resp.close()
                resp.release_conn()

        return self._call("read", key, get)

    def put_bytes(self, key: str, data: bytes, content_type: str) -> None:
        import io

        self._call(
            "write", key, lambda: self.client.put_object(self.bucket, key, io.BytesIO(data), len(data), content_type=content_type)
        )


def store_from_env(env: dict[str, str] | None = None) -> LocalStore | S3Store:
    env = dict(os.environ) if env is None else env
    endpoint = env.get("S3_ENDPOINT", "").strip()
    if endpoint:
        return S3Store(
            endpoint,
            env.get("S3_ACCESS_KEY", ""),
            env.get("S3_SECRET_KEY", ""),
            env.get("S3_BUCKET", "").strip() or "transcripts",
            env.get("S3_REGION", "").strip() or None,
        )
    return LocalStore(Path(env.get("DATA_DIR", "").strip() or ".data") / "objects")
