import { ServiceError } from '../../../core/errors';
import { cueText } from './text';
import type { RawCue } from './tidy';

// The videosite's json3 format (`fmt=json3`):
// {"wireMagic":"pb3","events":[{"tStartMs","dDurationMs","segs":[{"utf8"}]}]}.
// Events without segs only define windows and styles. Automatic tracks add
// per-word offsets (segs[].tOffsetMs) and "\n" events marked aAppend.

interface Json3Event {
  tStartMs?: unknown;
  dDurationMs?: unknown;
  aAppend?: unknown;
  segs?: Array<{ utf8?: unknown; tOffsetMs?: unknown }>;
}

export function isJson3(value: unknown): value is { events: Json3Event[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { events?: unknown }).events);
}

export function parseJson3(doc: { events: Json3Event[] }): { cues: RawCue[]; rolling: boolean } {
  const cues: RawCue[] = [];
  let rolling = false;
  for (const event of doc.events) {
    if (typeof event !== 'object' || event === null || !Array.isArray(event.segs)) continue;
    if (typeof event.tStartMs !== 'number') throw new ServiceError('SOURCE_CHANGED', 'captions: json3 event without tStartMs');
    if (event.aAppend !== undefined || event.segs.some((s) => s?.tOffsetMs !== undefined)) rolling = true;
    const text = event.segs.map((s) => (typeof s?.utf8 === 'string' ? s.utf8 : '')).join('');
    const start = event.tStartMs / 1000;
    const end = typeof event.dDurationMs === 'number' ? start + event.dDurationMs / 1000 : NaN;
    cues.push({ start, end, text: cueText(text, false) });
  }
  return { cues, rolling };
}
