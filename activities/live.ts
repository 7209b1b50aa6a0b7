import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../domain/db';
import { ServiceError } from '../core/errors';
import { DEFAULT_LIVE_DURATION_S, LIVE_MIN_PIECE_MS, liveCut, type LiveCursor, type LiveEnd } from '../domain/jobs/live';
import { recordMediaMeasured } from '../domain/jobs/state';
import { recordLiveStartedEvent } from '../domain/webhooks/events';
import type { AddressPolicy } from '../integrations/fetch';
import { toRecognizerWav } from '../integrations/media/convert';
import { directHlsFetcher, fetchSegment, firstSegmentToFollow, platformHlsFetcher, readMediaPlaylist } from '../integrations/media/hls';
import type { Outbound } from '../integrations/outbound/http';
import type { CaptionSources } from '../integrations/platforms/types';
import { findSilences } from '../integrations/media/split';
import { pcmWavHeader } from '../integrations/media/wav';
import { withScratchDir } from '../integrations/scratch';
import type { ObjectStore } from '../integrations/storage';
import type { JobPlan } from '../workflows/definitions';
import { asActivity } from './failures';
import { workKey } from './transcription';

// Live jobs (workflows/live.ts): each capture reads the playlist once, fetches the segments after the cursor
// through the outbound rules, decodes them to the recognizer's 16 kHz mono and adds them to the audio that waits;
// when enough waits, a piece is cut at a pause and stored for recognizePiece. A capture's input (the cursor and
// the waiting audio it names) is never changed by it, so a retried capture does the same work again and stores
// the same objects: nothing is heard twice or lost however often a worker dies.

/** At most this many segments a capture: one that fell behind catches up over a few captures, each short. */
const MAX_SEGMENTS_PER_CAPTURE = 8;
const SAMPLE_RATE = 16_000;
const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;

export interface LivePiece {
  index: number;
  key: string;
  startMs: number;
  endMs: number;
}

export interface LiveCapture {
  cursor: LiveCursor;
  /** The piece cut by this capture, stored for the recognizer; null when the audio waits for more. */
  piece: LivePiece | null;
  /** Why the job stops following, once everything heard is in pieces; null while it follows. */
  ended: LiveEnd | null;
  /** Segments fetched by this capture (0: the playlist had nothing new). */
  fetched: number;
  /** Where the air is, in the job's media time: the end of the newest segment the playlist lists. */
  edgeMs: number;
  /** How long to wait before reading the playlist again when it had nothing new: half its target duration (RFC 8216 §6.3.4). */
  pollMs: number;
}

export interface LiveDeps {
  db: Db;
  store: ObjectStore;
  /** A customer's playlist link and its segments are fetched by the direct-link rules. */
  directLinkPolicy: AddressPolicy & { caForTests?: string };
  /** A platform's live stream (its manifest and segments) goes through the platform's outbound layer. */
  outbound: Outbound;
  /** Where a platform says a video is on air, and its manifest. */
  sources: Pick<CaptionSources, 'findLiveManifest'>;
}

export function createLiveActivities(deps: LiveDeps) {
  const { db, store } = deps;
  return {
    /**
     * One step of a live job: the playlist read, the new segments fetched and heard, and a piece cut when enough
     * audio waits (see the file's comment). With `stop` (a cancel, or the budget), nothing more is fetched and
     * what waits becomes the last piece.
     */
    async captureLiveAudio(plan: JobPlan, cursor: LiveCursor, opts: { stop: boolean }): Promise<LiveCapture> {
      return asActivity(() =>
        withScratchDir('live-', async (dir) => {
          // The capture before the last one is recorded in the workflow's history: its input is no longer needed.
          if (cursor.stalePendingKey) await store.delete(cursor.stalePendingKey).catch(() => undefined);
          // A videosite video found on air has no max_duration_s unless it was asked: the live default applies.
          const maxMs = (plan.spec.max_duration_s ?? DEFAULT_LIVE_DURATION_S) * 1000;
          const fetcher =
            plan.platform === 'hls' ? directHlsFetcher(dir, deps.directLinkPolicy) : platformHlsFetcher(deps.outbound, 'videosite');
          let pcm = cursor.pendingKey ? await readPcm(store, cursor.pendingKey, path.join(dir, 'pending.wav')) : Buffer.alloc(0);
          const next: LiveCursor = { ...cursor, stalePendingKey: null };
          let fetched = 0;
          let final: LiveEnd | null = opts.stop ? 'stopped' : null;
          let edgeMs = cursor.pendingStartMs + pcm.length / BYTES_PER_MS;
          let pollMs = 1000;
          if (!opts.stop) {
            const playlist = await readMediaPlaylist(cursor.playlistUrl ?? plan.sourceUrl!, fetcher);
            next.playlistUrl = playlist.url;
            pollMs = Math.max(500, Math.round(playlist.targetDurationMs / 2));
            next.nextSeq ??= firstSegmentToFollow(playlist);
            const first = playlist.segments[0];
            if (first && next.nextSeq !== null && first.seq > next.nextSeq) {
              // The playlist slid past segments before they were fetched: their time passes in silence, so every
              // later word keeps its place on the air's clock.
              const missed = (first.seq - next.nextSeq) * playlist.targetDurationMs;
              pcm = Buffer.concat([pcm, Buffer.alloc(Math.round(missed * BYTES_PER_MS) & ~1)]);
              next.missedMs += missed;
              next.nextSeq = first.seq;
            }
            const fresh = next.nextSeq === null ? [] : playlist.segments.filter((s) => s.seq >= next.nextSeq!);
            const taken = fresh.slice(0, MAX_SEGMENTS_PER_CAPTURE);
            for (const segment of taken) {
              if (cursor.pendingStartMs + pcm.length / BYTES_PER_MS >= maxMs) break;
              const media = path.join(dir, `segment-${segment.seq}`);
              await fetchSegment(segment, media, fetcher);
              pcm = Buffer.concat([pcm, await heardSegment(media, path.join(dir, `segment-${segment.seq}.wav`), segment.durationMs)]);
              next.nextSeq = segment.seq + 1;
              fetched++;
            }
            const heardMs = cursor.pendingStartMs + pcm.length / BYTES_PER_MS;
            edgeMs = heardMs + fresh.slice(fetched).reduce((ms, s) => ms + s.durationMs, 0);
            if (heardMs >= maxMs) {
              pcm = pcm.subarray(0, Math.max(0, Math.round((maxMs - cursor.pendingStartMs) * BYTES_PER_MS) & ~1));
              final = 'max_duration';
            } else if (playlist.ended && fetched === fresh.length) {
              final = 'ended';
            }
          }
          const pendingMs = pcm.length / BYTES_PER_MS;
          const pendingEndMs = cursor.pendingStartMs + pendingMs;
          if (fetched > 0) await recordMediaMeasured(db, plan.jobId, { durationMs: Math.round(pendingEndMs) });
          // Pauses are looked for only where a cut may be made before the stream's end.
          let silences: Awaited<ReturnType<typeof findSilences>> = [];
          if (!final && pendingMs >= LIVE_MIN_PIECE_MS) {
            const wav = path.join(dir, 'waiting.wav');
            await fs.writeFile(wav, Buffer.concat([pcmWavHeader(pcm.length), pcm]));
            silences = await findSilences(wav, { durationMs: pendingMs });
          }
          const cutMs = liveCut(pendingMs, silences, final !== null);
          let piece: LivePiece | null = null;
          let rest = pcm;
          if (cutMs !== null) {
            const cutBytes = Math.min(pcm.length, Math.round(cutMs * BYTES_PER_MS) & ~1);
            const startMs = Math.round(cursor.pendingStartMs);
            const endMs = Math.round(cursor.pendingStartMs + cutBytes / BYTES_PER_MS);
            const key = workKey(plan.jobId, `piece-${cursor.nextPiece}.wav`);
            await store.put(key, Buffer.concat([pcmWavHeader(cutBytes), pcm.subarray(0, cutBytes)]), 'audio/wav');
            piece = { index: cursor.nextPiece, key, startMs, endMs };
            rest = pcm.subarray(cutBytes);
            next.nextPiece = cursor.nextPiece + 1;
            next.pendingStartMs = cursor.pendingStartMs + cutBytes / BYTES_PER_MS;
          }
          if (rest.length === 0) {
            next.pendingKey = null;
          } else if (piece !== null || fetched > 0) {
            // Named by where it ends in the stream and which piece comes next: one name, one content.
            next.pendingKey = workKey(plan.jobId, `live-waiting-${next.nextPiece}-${next.nextSeq}.wav`);
            await store.put(next.pendingKey, Buffer.concat([pcmWavHeader(rest.length), rest]), 'audio/wav');
          }
          if (cursor.pendingKey && cursor.pendingKey !== next.pendingKey) next.stalePendingKey = cursor.pendingKey;
          const ended = final !== null && next.pendingKey === null ? final : null;
          return { cursor: next, piece, ended, fetched, edgeMs: Math.round(edgeMs), pollMs };
        }),
      );
    },

    /** A videosite video on air now: the HLS manifest its live job follows; null for any other video. */
    async findLiveStream(plan: JobPlan): Promise<{ manifestUrl: string } | null> {
      return asActivity(async () => {
        const manifestUrl = await deps.sources.findLiveManifest(plan.platform, plan.mediaId);
        return manifestUrl ? { manifestUrl } : null;
      });
    },

    /** `job.live_started` for the job's webhook endpoint, once: its event id, or null when the job names no endpoint. */
    async recordLiveStarted(jobId: string): Promise<string | null> {
      return asActivity(() => recordLiveStartedEvent(db, jobId));
    },

    /** The waiting audio a live job left when it ended (a capture that cut everything leaves none; a failure may). */
    async discardLiveAudio(cursor: LiveCursor): Promise<void> {
      for (const key of [cursor.pendingKey, cursor.stalePendingKey]) if (key) await store.delete(key).catch(() => undefined);
    },
  };
}

/**
 * A segment's audio as 16 kHz mono samples. One that cannot be decoded (an encoder's last segment may hold too
 * little to read) is heard as silence of its listed length: the stream goes on, and later words keep their time.
 */
async function heardSegment(media: string, wav: string, durationMs: number): Promise<Buffer> {
  try {
    return (await fs.readFile(await toRecognizerWav(media, wav))).subarray(44);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'INVALID_MEDIA') throw err;
    return Buffer.alloc(Math.round(durationMs * BYTES_PER_MS) & ~1);
  }
}

/** The samples of a 16 kHz mono wav in the store (toRecognizerWav's or pcmWavHeader's: a plain 44-byte header). */
async function readPcm(store: ObjectStore, key: string, file: string): Promise<Buffer> {
  await store.download(key, file);
  const bytes = await fs.readFile(file);
  if (bytes.length < 44) throw new ServiceError('INTERNAL_ERROR', `the waiting audio ${key} is cut short`);
  return bytes.subarray(44);
}
