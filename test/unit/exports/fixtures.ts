// Transcript fixtures for the export tests and bench/export.bench.ts.

import type { ExportableTranscript, TranscriptSegment, TranscriptWord } from '../../../domain/transcripts/export';
import { seededRandom } from '../../support/seeded-random';

export function baseTranscript(overrides: Partial<ExportableTranscript> = {}): ExportableTranscript {
  return {
    id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    source: {
      platform: 'videosite',
      media_id: 'abc123',
      canonical_url: 'https://videosite.example/watch?v=abc123',
      title: 'A Talk About Things',
    },
    source_origin: 'creator_captions',
    language: 'en',
    text: '',
    segments: [],
    words: null,
    timing_granularity: 'segment',
    duration_seconds: 600,
    recognition: null,
    extraction_version: '2024.1',
    created_at: '2024-05-01T12:00:00.000Z',
    ...overrides,
  };
}

/** Segments plus matching text field. */
export function withSegments(segments: TranscriptSegment[], overrides: Partial<ExportableTranscript> = {}): ExportableTranscript {
  return baseTranscript({ segments, text: segments.map((s) => s.text).join(' '), ...overrides });
}

// Deterministic draws so fixtures and bench runs are reproducible.
export const rng = seededRandom;

const VOCAB = (
  'the of and to in is that it was for on are as with his they at be this from have or by one had not but what all were ' +
  'when we there can an your which their said if do will each about how up out them then she many some so these would ' +
  'other into has more her two like him see time could no make than first been its who now people my made over did down ' +
  'only way find use may water long little very after words called just where most know get through back much before go ' +
  'good new write our used me man too any day same right look think also around another came come work three word must ' +
  'because does part even place well such here take why things help put years different away again off went old number ' +
  'café naïve résumé München Zürich São-Paulo Ελλάδα Москва'
).split(' ');

/**
 * A long transcript like a two-hour video: `count` segments over `durationSeconds`,
 * 8-30 words each (some long enough to need splitting), and word timings when asked.
 * With overlap, a fifth of the segments run into the next one, as caption tracks do.
 */
export function longTranscript(
  opts: { count?: number; durationSeconds?: number; words?: boolean; overlap?: boolean; seed?: number } = {},
): ExportableTranscript {
  const count = opts.count ?? 1500;
  const duration = opts.durationSeconds ?? 7200;
  const next = rng(opts.seed ?? 42);
  const slot = duration / count;
  const segments: TranscriptSegment[] = [];
  const words: TranscriptWord[] = [];
  for (let i = 0; i < count; i++) {
    const start = +(i * slot + next() * 0.2).toFixed(3);
    let end = +((i + 1) * slot - next() * 0.3).toFixed(3);
    if (opts.overlap && i % 5 === 2) end = +(end + 1.5).toFixed(3);
    const n = 8 + Math.floor(next() * (i % 7 === 0 ? 30 : 14));
    const tokens: string[] = [];
    for (let w = 0; w < n; w++) {
      let tok = VOCAB[Math.floor(next() * VOCAB.length)];
      if (w === 0) tok = tok[0].toUpperCase() + tok.slice(1);
      if (w === n - 1) tok += next() < 0.2 ? '?' : '.';
      else if (next() < 0.08) tok += ',';
      tokens.push(tok);
    }
    segments.push({ start, end, text: tokens.join(' ') });
    if (opts.words) {
      const step = (Math.min(end, (i + 1) * slot) - start) / n;
      for (let w = 0; w < n; w++) {
        const ws = +(start + w * step).toFixed(3);
        const we = +(start + (w + 0.9) * step).toFixed(3);
        words.push({ start: ws, end: we, text: tokens[w], confidence: +(0.8 + next() * 0.2).toFixed(3) });
      }
    }
  }
  return baseTranscript({
    segments,
    text: segments.map((s) => s.text).join(' '),
    words: opts.words ? words : null,
    timing_granularity: opts.words ? 'word' : 'segment',
    source_origin: opts.words ? 'speech_recognition' : 'creator_captions',
    recognition: opts.words ? { model: 'asr-1', profile: 'standard', quality_status: 'validated_language' } : null,
    duration_seconds: duration,
  });
}
