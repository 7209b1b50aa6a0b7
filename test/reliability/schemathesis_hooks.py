"""Schemathesis hooks of the schema fuzzing (test/reliability/schema-fuzz.test.ts loads them by SCHEMATHESIS_HOOKS).

The local store's signed upload PUT takes the file itself, documented as `audio/*` and `video/*` (the type declared
when the upload was reserved). Schemathesis has no serializer for those ranges; a concrete type of each family sent
as raw bytes, as `application/octet-stream` is, lets the fuzzer reach the route.
"""

import schemathesis

schemathesis.serializer.alias(["audio/mpeg", "video/mp4"], "application/octet-stream")
