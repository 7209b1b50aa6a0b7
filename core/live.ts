// A live job's place in its stream (domain/jobs/live.ts, workflows/live.ts): here in the kernel because the
// follower workflow carries it from run to run and the capture activity moves it.

/**
 * Where a live job is in the playlist and in its audio, carried from one capture to the next (and across the
 * workflow's continue-as-new). Everything heard but not yet cut into a piece waits in the store at `pendingKey`.
 */
export interface LiveCursor {
  /** The media playlist followed (a multivariant playlist's choice); null until first read. */
  playlistUrl: string | null;
  /** The next media sequence number to fetch; null until the first playlist read chose where to start. */
  nextSeq: number | null;
  /** The next piece's index (pieces are numbered 0, 1, … over the whole job). */
  nextPiece: number;
  /** Where the waiting audio starts in the job's media time. */
  pendingStartMs: number;
  /** The waiting audio (16 kHz mono wav), or null when none waits. */
  pendingKey: string | null;
  /** The waiting audio a capture before the last one wrote: removed by the next capture (the last one's input may be retried). */
  stalePendingKey: string | null;
  /** Media the playlist slid past before it was fetched (heard as silence of its length). */
  missedMs: number;
}

export const FIRST_LIVE_CURSOR: LiveCursor = {
  playlistUrl: null,
  nextSeq: null,
  nextPiece: 0,
  pendingStartMs: 0,
  pendingKey: null,
  stalePendingKey: null,
  missedMs: 0,
};

/** Why a live job stopped following its stream. */
export type LiveEnd =
  /** The playlist ended (EXT-X-ENDLIST) and all of it was heard. */
  | 'ended'
  /** Cancelled: what was heard up to then is the transcript. */
  | 'stopped'
  /** max_duration_s of media was heard. */
  | 'max_duration'
  /** The next minute would pass max_credits or the balance. */
  | 'budget'
  /** The playlist could no longer be read (gone, or refused) after something was transcribed. */
  | 'source_lost';
