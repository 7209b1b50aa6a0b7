"""What crosses between the TypeScript activities and this worker: plans, words, segments, results.

Their shapes are the TypeScript side's (workflows/, activities/). A plan's `spec`, the job's options, is read into
the model generated from its schema (job_spec.py); the words, regions, aligned cues and segments this worker
writes are typed here (TypedDicts: they are written as the JSON the activities read, field for field).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypedDict

from .errors import ServiceError
from .job_spec import JobSpec

Json = dict[str, Any]


class RecognizedWord(TypedDict):
    """A word the recognizer heard, in seconds of its piece (activities/transcription.ts reads it)."""

    start: float
    end: float
    text: str
    confidence: float
    language: str | None


class TimedWord(TypedDict):
    """A word of a given text or caption, timed by forced alignment."""

    start: float
    end: float
    text: str
    confidence: float


class SpeechRegion(TypedDict):
    start: float
    end: float
    language: str


class LanguageSeconds(TypedDict):
    language: str
    seconds: float


class AlignedCue(TypedDict):
    """A cue's (or a sentence's) words with times, and the share of its words the recognizer heard (None: no text)."""

    words: list[TimedWord]
    match: float | None


class AlignedSegment(TypedDict):
    """A sentence of an aligned text: its times, its text as given, its words and match."""

    start: float
    end: float
    text: str
    words: list[TimedWord]
    match: float | None

_SPEC_FIELDS = frozenset(f.name for f in fields(JobSpec))


def spec_of_plan(plan: Json) -> JobSpec:
    """The job's spec from its plan (workflows/definitions.ts JobPlan.spec). A field this worker does not know yet
    (a newer service's option) is left out; one the plan lacks (an older service's plan) takes its default."""
    spec = plan.get("spec")
    if spec is None:
        spec = _spec_before(plan)
    if not isinstance(spec, dict) or "mode" not in spec:
        raise ServiceError("INVALID_REQUEST", "the plan's spec is not an object with a mode")
    return JobSpec(**{k: v for k, v in spec.items() if k in _SPEC_FIELDS})


def _spec_before(plan: Json) -> Json:
    """A plan written before the spec (an activity scheduled by a workflow of before, still in the queue): its
    options were fields of their own (workflows/definitions.ts PlanBeforeSpec)."""
    return {
        "mode": plan.get("mode", "transcribe"),
        "language": plan.get("language"),
        "caption_preference": plan.get("captionPreference", "prefer_creator"),
        "caption_languages": plan.get("captionLanguages", []),
        "profile": plan.get("profile") or "standard",
        "vocabulary": plan.get("vocabulary") or [],
        "speaker_labels": bool(plan.get("speakerLabels")),
        "speakers_expected": plan.get("speakersExpected"),
        "word_timing": bool(plan.get("wordTiming")),
        "align_text_chars": 0 if plan.get("alignText") else None,
    }
