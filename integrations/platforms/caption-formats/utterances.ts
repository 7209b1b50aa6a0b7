import { ServiceError } from '../../../core/errors';
import { cueText } from './text';
import type { RawCue } from './tidy';

// The shortvideo platform's JSON captions (`Format: creator_caption`; the app's
// automatic captions use the same `utterances[]{start_time, end_time, text}` in
// milliseconds, per the protocol notes). No recording exists: see
// test/fixtures-handmade/shortvideo/README.md.

interface Utterance {
  start_time?: unknown;
  end_time?: unknown;
  text?: unknown;
}

export function isUtterances(value: unknown): value is { utterances: Utterance[] } | Utterance[] {
  if (Array.isArray(value)) return value.every((u) => typeof u === 'object' && u !== null && 'start_time' in u);
  return typeof value === 'object' && value !== null && Array.isArray((value as { utterances?: unknown }).utterances);
}

export function parseUtterances(doc: { utterances: Utterance[] } | Utterance[]): RawCue[] {
  const list = Array.isArray(doc) ? doc : doc.utterances;
  return list.map((u) => {
    if (typeof u?.start_time !== 'number' || typeof u.text !== 'string')
      throw new ServiceError('SOURCE_CHANGED', 'captions: utterance without start_time or text');
    return { start: u.start_time / 1000, end: typeof u.end_time === 'number' ? u.end_time / 1000 : NaN, text: cueText(u.text, false) };
  });
}
