import type { Silence } from '../../integrations/media/split';

export { FIRST_LIVE_CURSOR, type LiveCursor, type LiveEnd } from '../../core/live';

// Live jobs: an HLS playlist followed as it airs (workflows/live.ts). The rules here decide where the heard
// audio is cut into pieces for the recognizer and how long a stream is followed; the activities that fetch and
// recognise are in activities/live.ts.

/** max_duration_s: the default (what the default max_credits of 240 pays for at 2 credits a minute) and its bounds. */
export const DEFAULT_LIVE_DURATION_S = 7200;
export const MIN_LIVE_DURATION_S = 10;
export const MAX_LIVE_DURATION_S = 43_200;

/**
 * A piece is cut once this much audio waits: long enough for the recognizer to hear words in context, short
 * enough that a word is readable a few seconds after it airs (2 s media segments: one or two segments more).
 */
export const LIVE_MIN_PIECE_MS = 4000;
/** Without a pause, a piece is cut here regardless: speech that never pauses is still published this often. */
export const LIVE_MAX_PIECE_MS = 12_000;
/** A cut is made in a pause that ends at least this long before the audio heard so far ends (a pause still going on may be a word's gap). */
const LIVE_PAUSE_MARGIN_MS = 150;
/** The shortest piece a pause may close: shorter ones give the recognizer too little context. */
const LIVE_SHORTEST_PIECE_MS = 2000;

/**
 * Where the waiting audio (`pendingMs` long, its pauses in `silences`, both relative to its start) is cut into
 * a piece: in the middle of the longest pause past LIVE_SHORTEST_PIECE_MS once LIVE_MIN_PIECE_MS waits, at
 * LIVE_MAX_PIECE_MS when there is none, all of it when the stream ended (`final`); null to wait for more.
 */
export function liveCut(pendingMs: number, silences: readonly Silence[], final: boolean): number | null {
  if (pendingMs <= 0) return null;
  if (final) return pendingMs;
  if (pendingMs < LIVE_MIN_PIECE_MS) return null;
  const hi = Math.min(pendingMs - LIVE_PAUSE_MARGIN_MS, LIVE_MAX_PIECE_MS);
  let cut: number | null = null;
  let best = 0;
  for (const s of silences) {
    const a = Math.max(s.startMs, LIVE_SHORTEST_PIECE_MS);
    const b = Math.min(s.endMs, hi);
    if (b > a && b - a >= best) {
      best = b - a;
      cut = Math.round((a + b) / 2);
    }
  }
  if (cut !== null) return cut;
  return pendingMs >= LIVE_MAX_PIECE_MS ? LIVE_MAX_PIECE_MS : null;
}
