import { PII_PLACEHOLDERS } from './redaction';

// `redacted_audio` (issue 53, item 3): for uploads and direct links, a copy of the audio with a tone over every
// redacted word, found by the word times the transcript keeps for its placeholders (a redacted run of words is one
// word "[PHONE]" from the run's first start to its last end). The copy is 16 kHz mono, as the recognizer heard it,
// and encoded as Ogg Opus.

/** A 1 kHz tone, the broadcast "bleep", at a level well under full scale (−14 dBFS). */
export const TONE_HZ = 1000;
const TONE_AMPLITUDE = 0.2 * 32767;
/** The tone starts a little before the word and ends a little after it: word times are the recognizer's estimate. */
export const TONE_PADDING_SECONDS = 0.08;
/** Fades in and out over this long, so the edges do not click. */
const FADE_SECONDS = 0.005;

export const REDACTED_AUDIO_CONTENT_TYPE = 'audio/ogg';
export const redactedAudioKey = (transcriptId: string) => `redacted-audio/${transcriptId}.ogg`;

/** What the transcript row keeps of its redacted copy (transcripts.redacted_audio). */
export interface StoredRedactedAudio {
  key: string;
  bytes: number;
  content_type: string;
  /** How many stretches of audio the tone covers. */
  tone_spans: number;
}

const PLACEHOLDERS = new Set<string>(Object.values(PII_PLACEHOLDERS));

/**
 * The stretches the tone covers: every word that is a placeholder (its punctuation around it aside), padded, and
 * merged where they touch. Seconds, in order, clipped to [0, duration].
 */
export function toneSpans(words: Array<{ start: number; end: number; text: string }>, durationSeconds: number): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const w of words) {
    const core = /\[[A-Z]+\]/.exec(w.text)?.[0];
    if (!core || !PLACEHOLDERS.has(core)) continue;
    const start = Math.max(0, w.start - TONE_PADDING_SECONDS);
    const end = Math.min(durationSeconds, w.end + TONE_PADDING_SECONDS);
    if (end <= start) continue;
    const last = spans.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else spans.push([start, end]);
  }
  return spans;
}

/** Replaces the samples of each span by the tone (16-bit mono PCM, in place). */
export function overlayTone(samples: Int16Array, sampleRate: number, spans: Array<[number, number]>): void {
  const fade = Math.max(1, Math.round(FADE_SECONDS * sampleRate));
  for (const [start, end] of spans) {
    const from = Math.max(0, Math.floor(start * sampleRate));
    const to = Math.min(samples.length, Math.ceil(end * sampleRate));
    const n = to - from;
    for (let i = 0; i < n; i++) {
      const edge = Math.min(1, i / fade, (n - 1 - i) / fade);
      samples[from + i] = Math.round(TONE_AMPLITUDE * edge * Math.sin((2 * Math.PI * TONE_HZ * i) / sampleRate));
    }
  }
}
