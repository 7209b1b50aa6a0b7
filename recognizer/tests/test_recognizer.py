"""Unit tests of the recognizer package, stdlib unittest only (no pytest in the pinned environment).

Run: .tools/venv-recognizer/bin/python -m unittest discover -s recognizer/tests -t .
(test/recognizers/recognizer-worker.test.ts runs them under npm test).
"""

import json
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

from temporalio.exceptions import ApplicationError

from recognizer.decoding import PROFILES
from recognizer.engine import EngineSettings, configured_profile
from recognizer.errors import ServiceError
from recognizer.languages import SUPPORTED, choose_detected, primary_language
from recognizer.model import BUNDLED_NAME, BUNDLED_SHA256, ModelError, ModelSpec, model_spec, verify_model
from recognizer.storage import LocalStore, assert_valid_key, store_from_env
from recognizer.worker import result_key, to_application_error


class Languages(unittest.TestCase):
    def test_primary_language(self):
        self.assertEqual(primary_language("en-US"), "en")
        self.assertEqual(primary_language("PT_br"), "pt")
        self.assertEqual(primary_language("deu"), "de")
        self.assertIsNone(primary_language(None))
        self.assertIsNone(primary_language("  "))

    def test_supported_set_is_the_eight_and_hindi(self):
        self.assertEqual(SUPPORTED, {"en", "es", "fr", "de", "pt", "it", "ja", "ko", "hi"})

    def test_detection_takes_a_supported_top_language(self):
        self.assertEqual(choose_detected([("de", 0.93), ("nl", 0.05)]), ("de", 0.93, "de", 0.93))

    def test_a_confident_unsupported_language_is_refused(self):
        chosen, _, top, p = choose_detected([("nl", 0.81), ("de", 0.15)])
        self.assertIsNone(chosen)
        self.assertEqual((top, p), ("nl", 0.81))

    def test_a_shaky_unsupported_guess_falls_back_to_the_best_supported_language(self):
        self.assertEqual(choose_detected([("cy", 0.31), ("en", 0.29), ("de", 0.1)]), ("en", 0.29, "cy", 0.31))


class Profiles(unittest.TestCase):
    def test_an_operators_beam_changes_the_standard_profiles_beam_and_nothing_else(self):
        # Built by hand before, a standard profile with another beam fell back to timestamp tokens: a different
        # decoding than the one measured, from setting only the beam.
        standard = PROFILES["standard"]
        configured = configured_profile("standard", EngineSettings(beam_size=3))
        self.assertEqual(configured.beam_size, 3)
        self.assertEqual(configured.timestamp_tokens, standard.timestamp_tokens)
        self.assertEqual(configured.temperatures, standard.temperatures)
        self.assertEqual((configured.batch, configured.patience, configured.name), (standard.batch, standard.patience, "standard"))

    def test_the_fast_profile_keeps_its_own_beam(self):
        self.assertEqual(configured_profile("fast", EngineSettings(beam_size=7)), PROFILES["fast"])


class Errors(unittest.TestCase):
    def test_catalogue_codes_become_application_errors_with_retryability(self):
        err = to_application_error(ServiceError("LANGUAGE_UNSUPPORTED", "language=nl"))
        self.assertIsInstance(err, ApplicationError)
        self.assertEqual(err.type, "LANGUAGE_UNSUPPORTED")
        self.assertTrue(err.non_retryable)
        self.assertEqual(err.details, ("language=nl",))
        self.assertEqual(err.message, "AI transcription does not support the requested language.")
        self.assertFalse(to_application_error(ServiceError("STORAGE_UNAVAILABLE", "x")).non_retryable)

    def test_unknown_codes_are_a_programming_error(self):
        with self.assertRaises(ValueError):
            ServiceError("NOT_A_CODE", "x")


class Storage(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="store-"))
        self.store = LocalStore(self.root)

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def test_the_layout_of_the_typescript_local_store(self):
        self.store.put_bytes("work/job-1/result-0.json", b'{"a":1}', "application/json")
        self.assertEqual((self.root / "work/job-1/result-0.json").read_bytes(), b'{"a":1}')
        meta = json.loads((self.root / ".meta/work/job-1/result-0.json.json").read_text())
        self.assertEqual(meta, {"contentType": "application/json"})
        self.assertEqual(list((self.root / ".tmp").iterdir()), [])
        self.assertTrue(self.store.exists("work/job-1/result-0.json"))

    def test_missing_object_is_not_found(self):
        with self.assertRaises(ServiceError) as caught:
            self.store.download("work/nothing.wav", str(self.root / "x"))
        self.assertEqual(caught.exception.code, "NOT_FOUND")

    def test_keys_cannot_leave_the_folder(self):
        for bad in ("../etc/passwd", "/abs", "a/../b", ".hidden/x", "", "a//b"):
            with self.assertRaises(ServiceError, msg=bad):
                assert_valid_key(bad)

    def test_the_store_follows_the_service_settings(self):
        self.assertEqual(store_from_env({"DATA_DIR": str(self.root)}).root, (self.root / "objects").resolve())
        s3 = store_from_env({"S3_ENDPOINT": "http://127.0.0.1:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "b"})
        self.assertEqual((s3.kind, s3.bucket), ("s3", "transcripts"))

    def test_result_keys_are_those_the_typescript_side_reads(self):
        self.assertEqual(result_key("0b1c", 3), "work/0b1c/result-3.json")


class Model(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="model-"))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_model_file_whose_checksum_differs_is_refused_with_what_to_do(self):
        (self.dir / "config.json").write_text("{}")
        (self.dir / "model.bin").write_bytes(b"not the pinned model")
        with self.assertRaises(ModelError) as caught:
            verify_model(ModelSpec("own-model", self.dir, BUNDLED_SHA256))
        message = str(caught.exception)
        self.assertIn(f"expected {BUNDLED_SHA256}", message)
        self.assertIn("refuses to start", message)
        self.assertIn("WHISPER_MODEL_SHA256", message)

    def test_the_bundled_model_names_the_set_up_that_joins_it(self):
        with self.assertRaises(ModelError) as caught:
            verify_model(ModelSpec(BUNDLED_NAME, self.dir / "absent", BUNDLED_SHA256))
        self.assertIn("no model file", str(caught.exception))
        self.assertIn("WHISPER_MODEL_DIR", str(caught.exception))
        bundled = model_spec({})
        self.assertEqual(bundled.path, Path(sys.prefix) / "models" / "whisper-base")

    def test_an_operators_model_folder_names_the_model(self):
        spec = model_spec({"WHISPER_MODEL_DIR": str(self.dir / "faster-whisper-large-v3"), "WHISPER_MODEL_SHA256": "AB"})
        self.assertEqual((spec.name, spec.sha256), ("faster-whisper-large-v3", "ab"))
        self.assertEqual(model_spec({}).name, "whisper-base")
        self.assertEqual(model_spec({}).sha256, BUNDLED_SHA256)


if __name__ == "__main__":
    unittest.main()
