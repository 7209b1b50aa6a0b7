"""Machine translation as the `translateTexts` activity runs it (translation.py): the two directions the model has,
text order kept, an empty text left empty, any other direction refused with the catalogue's code."""

import threading
import unittest

from recognizer.errors import ServiceError
from recognizer.translation import translate_texts


class TranslationTest(unittest.TestCase):
    def test_translates_each_text_in_order_both_ways(self):
        done: list[int] = []
        out = translate_texts("en-pt", ["Good night.", "", "The children are playing in the garden."], on_progress=done.append)
        self.assertEqual(len(out), 3)
        self.assertIn("noite", out[0].lower())
        self.assertEqual(out[1], "")
        self.assertIn("crianças", out[2].lower())
        self.assertEqual(done, [1, 2, 3])
        self.assertIn("night", translate_texts("pt-en", ["Boa noite."])[0].lower())

    def test_refuses_a_direction_without_a_model(self):
        with self.assertRaises(ServiceError) as refused:
            translate_texts("fr-pt", ["Bonsoir."])
        self.assertEqual(refused.exception.code, "TRANSLATION_UNAVAILABLE")
        self.assertFalse(refused.exception.retryable)

    def test_stops_when_asked(self):
        stop = threading.Event()
        stop.set()
        with self.assertRaises(ServiceError) as stopped:
            translate_texts("en-pt", ["One.", "Two."], stop)
        self.assertEqual(stopped.exception.code, "PROVIDER_UNAVAILABLE")


if __name__ == "__main__":
    unittest.main()
