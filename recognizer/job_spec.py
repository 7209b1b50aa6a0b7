"""A job's spec as the recognizer reads it: generated from domain/schemas/jobs.ts JobSpecSchema.

Written by `tsx stack/recognizer-models.ts generate` (datamodel-code-generator, from the schema's JSON Schema);
stack/check.sh and test/unit/recognizer-models.test.ts fail when it differs. Do not edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass
class JobSpec:
    mode: Literal["captions_only", "auto", "transcribe"]
    language: str | None = None
    caption_preference: Literal["prefer_creator", "creator_only", "automatic_only"] = (
        "prefer_creator"
    )
    caption_languages: list[str] = field(default_factory=list)
    profile: Literal["standard", "fast"] = "standard"
    vocabulary: list[str] = field(default_factory=list)
    speaker_labels: bool = False
    speakers_expected: int | None = None
    word_timing: bool = False
    align_text_chars: int | None = None
    chapters: bool = False
    filter_profanity: bool = False
    disfluencies: bool = True
    redact_pii: bool = False
    redacted_audio: bool = False
    redact_pii_types: list[Literal["person", "email", "phone", "card", "iban", "address", "id"]] = field(
        default_factory=list
    )
    translate_to: str | None = None
    summarize: bool = False
    max_duration_s: int | None = None
