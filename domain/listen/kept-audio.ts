import { pcmWavHeader } from '../../integrations/media/wav';
import { Readable } from 'node:stream';
import { ServiceError } from '../../core/errors';
import type { ObjectStore } from '../../integrations/storage/object-store';
import type { Db } from '../db';
import { LISTEN_SAMPLE_RATE, type ListenEncoding, type ListenSessionResource } from '../schemas/listen';
import { opusPacketMs } from './opus';
import { oggOpusPages } from './ogg';

// A stream's audio, kept when its client asked (`keep_audio=true`): written to the object store in chunks as it
// arrives, so nothing larger than a chunk waits in the API's memory and a stream whose instance dies keeps what was
// written; read back whole as one file, WAV for PCM and Ogg Opus for Opus packets; removed when deleted or expired.

/** About 33 s of PCM a chunk; Opus chunks hold about 5 minutes at 24 kbit/s. */
export const KEPT_AUDIO_CHUNK_BYTES = 1 << 20;

const keyOf = (workspaceId: string, sessionId: string, n: number) =>
  `listen-audio/${workspaceId}/${sessionId}/${String(n).padStart(6, '0')}`;

/**
 * Writes one stream's audio as it comes. PCM is stored as received; each Opus packet with a 4-byte length before
 * it, so the packets can be told apart when the file is made. Chunks are written one after another; `backlog` says
 * how many wait, so the caller can stop reading while the store is slow.
 */
export class KeptAudioWriter {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private next = 0;
  private writing: Promise<void> = Promise.resolve();
  private waiting = 0;
  failure: unknown = null;

  constructor(
    private readonly db: Db,
    private readonly store: ObjectStore,
    private readonly session: { id: string; workspaceId: string; encoding: ListenEncoding },
  ) {}

  get backlog(): number {
    return this.waiting;
  }

  append(message: Buffer): void {
    if (this.session.encoding === 'opus') {
      const head = Buffer.alloc(4);
      head.writeUInt32BE(message.length);
      this.buffered.push(head);
      this.bufferedBytes += 4;
    }
    this.buffered.push(message);
    this.bufferedBytes += message.length;
    if (this.bufferedBytes >= KEPT_AUDIO_CHUNK_BYTES) this.flush();
  }

  /** Settles when every chunk flushed so far is written (or failed: see `failure`). */
  settled(): Promise<void> {
    return this.writing;
  }

  /** Writes what is buffered and waits for every chunk; rejects with the first write that failed. */
  async finish(): Promise<void> {
    if (this.bufferedBytes > 0) this.flush();
    await this.writing;
    if (this.failure) throw this.failure;
  }

  private flush(): void {
    const chunk = Buffer.concat(this.buffered);
    const n = this.next++;
    this.buffered = [];
    this.bufferedBytes = 0;
    this.waiting++;
    this.writing = this.writing.then(async () => {
      try {
        if (this.failure) return;
        await this.store.put(keyOf(this.session.workspaceId, this.session.id, n), chunk, 'application/octet-stream');
        // Counted once written, in order: the count is what a reader (and the purge) trusts.
        await this.db.$executeRaw`
          UPDATE listen_sessions SET audio_chunks = ${n + 1}, audio_bytes = audio_bytes + ${chunk.length}
          WHERE id = ${this.session.id}::uuid AND audio_chunks = ${n}`;
      } catch (err) {
        this.failure ??= err;
      } finally {
        this.waiting--;
      }
    });
  }
}

interface KeptRow {
  id: string;
  workspace_id: string;
  active: boolean;
  language: string | null;
  encoding: ListenEncoding;
  keep_audio: boolean;
  audio_ms: number;
  credits_charged: number;
  started_at: Date;
  ended_at: Date | null;
  audio_chunks: number;
  audio_bytes: number;
  audio_expires_at: Date | null;
  audio_deleted_at: Date | null;
}

async function sessionRow(db: Db, workspaceId: string, sessionId: string): Promise<KeptRow> {
  const [row] = await db.$queryRaw<KeptRow[]>`
    SELECT id::text, workspace_id::text, active, language, encoding, keep_audio, audio_ms, credits_charged, started_at,
           ended_at, audio_chunks, audio_bytes, audio_expires_at, audio_deleted_at
    FROM listen_sessions WHERE id = ${sessionId}::uuid AND workspace_id = ${workspaceId}::uuid`;
  if (!row) throw new ServiceError('NOT_FOUND', 'id', { message: 'No such stream in this workspace.' });
  return row;
}

const audioAvailable = (row: KeptRow) =>
  row.keep_audio && row.audio_deleted_at === null && row.audio_expires_at !== null && row.audio_expires_at > new Date();

/** GET /v1/listen/sessions/{id}: the stream of this workspace, or NOT_FOUND naming `id`. */
export async function listenSessionView(db: Db, workspaceId: string, sessionId: string): Promise<ListenSessionResource> {
  const row = await sessionRow(db, workspaceId, sessionId);
  return {
    id: row.id,
    status: row.active ? 'active' : 'ended',
    language: row.language,
    encoding: row.encoding,
    audio_seconds: row.audio_ms / 1000,
    credits_charged: row.credits_charged,
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
    audio: audioAvailable(row)
      ? {
          content_type: row.encoding === 'opus' ? 'audio/ogg' : 'audio/wav',
          bytes: row.audio_bytes,
          url: `/v1/listen/sessions/${row.id}/audio`,
          expires_at: row.audio_expires_at!.toISOString(),
        }
      : null,
  };
}

/**
 * The kept audio of an ended stream as one file, streamed chunk by chunk: NOT_FOUND naming `audio` when it was not
 * kept (or was deleted, or expired), CONFLICT naming `status` while the stream runs.
 */
export async function keptAudioFile(
  db: Db,
  store: ObjectStore,
  workspaceId: string,
  sessionId: string,
): Promise<{ contentType: string; filename: string; body: Readable }> {
  const row = await sessionRow(db, workspaceId, sessionId);
  if (!audioAvailable(row)) throw new ServiceError('NOT_FOUND', 'audio', { message: 'This stream’s audio was not kept, or is gone.' });
  if (row.active)
    throw new ServiceError('CONFLICT', 'status', { message: 'The stream is still running: its audio is ready once it ends.' });
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let n = 0; n < row.audio_chunks; n++) yield await store.readRange(keyOf(workspaceId, sessionId, n), 0, KEPT_AUDIO_CHUNK_BYTES * 2);
  }
  if (row.encoding === 'opus')
    return {
      contentType: 'audio/ogg',
      filename: `stream-${sessionId.slice(0, 8)}.ogg`,
      body: Readable.from(oggOpusPages(packetsOf(chunks()))),
    };
  return {
    contentType: 'audio/wav',
    filename: `stream-${sessionId.slice(0, 8)}.wav`,
    body: Readable.from(withWavHeader(row.audio_bytes, chunks())),
  };
}

async function* packetsOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<{ packet: Buffer; ms: number }> {
  for await (const chunk of chunks) {
    for (let at = 0; at + 4 <= chunk.length;) {
      const size = chunk.readUInt32BE(at);
      const packet = chunk.subarray(at + 4, at + 4 + size);
      at += 4 + size;
      yield { packet, ms: opusPacketMs(packet) ?? 0 };
    }
  }
}

async function* withWavHeader(dataBytes: number, chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const header = pcmWavHeader(dataBytes, LISTEN_SAMPLE_RATE);
  yield header;
  yield* chunks;
}

/** DELETE /v1/listen/sessions/{id}/audio: hidden at once, the objects removed now (or by the next purge). */
export async function deleteKeptAudio(db: Db, store: ObjectStore, workspaceId: string, sessionId: string): Promise<void> {
  const row = await sessionRow(db, workspaceId, sessionId);
  if (!row.keep_audio) throw new ServiceError('NOT_FOUND', 'audio', { message: 'This stream’s audio was not kept.' });
  if (row.active) throw new ServiceError('CONFLICT', 'status', { message: 'The stream is still running: stop it first.' });
  await db.$executeRaw`UPDATE listen_sessions SET audio_deleted_at = COALESCE(audio_deleted_at, now()) WHERE id = ${sessionId}::uuid`;
  await removeObjects(db, store, { id: row.id, workspace_id: row.workspace_id, audio_chunks: row.audio_chunks });
}

/** The objects first, then the count: a removal cut short finds the row again (and the chunk being written at a crash). */
async function removeObjects(db: Db, store: ObjectStore, row: { id: string; workspace_id: string; audio_chunks: number }): Promise<void> {
  for (let n = 0; n <= row.audio_chunks; n++) await store.delete(keyOf(row.workspace_id, row.id, n));
  await db.$executeRaw`UPDATE listen_sessions SET audio_chunks = 0, audio_bytes = 0 WHERE id = ${row.id}::uuid`;
}

/** Removes the kept audio of ended streams that was deleted or is past its retention, in bounded batches. */
export async function purgeExpiredKeptAudio(db: Db, store: ObjectStore, batchSize = 100): Promise<number> {
  const due = await db.$queryRaw<Array<{ id: string; workspace_id: string; audio_chunks: number }>>`
    SELECT id::text, workspace_id::text, audio_chunks FROM listen_sessions
    WHERE keep_audio AND NOT active AND audio_chunks > 0 AND (audio_expires_at <= now() OR audio_deleted_at IS NOT NULL)
    LIMIT ${batchSize}`;
  for (const row of due) await removeObjects(db, store, row);
  return due.length;
}
