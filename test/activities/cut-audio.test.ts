import { MockActivityEnvironment } from '@temporalio/testing';
import { createHash } from 'node:crypto';
import { DefaultLogger } from '@temporalio/worker';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Activities } from '../../activities';
import type { JobPlan } from '../../workflows/definitions';
import { createTranscriptionActivities } from '../../activities/transcription';
import type { Db } from '../../domain/db';
import { probeMedia } from '../../integrations/media/probe';
import type { Recognizer } from '../../integrations/recognizers/types';
import { LocalDiskObjectStore } from '../../integrations/storage';
import { ffmpeg } from '../support/speech';
import { JOB_SPEC_DEFAULTS } from '../../domain/schemas/jobs';

// The cutAudio activity on real audio (ffmpeg) and the real local object store:
// a retry after a lost worker resumes from the pieces the lost attempt stored,
// which it learns from that attempt's last heartbeat.

/** cutAudio touches neither the database nor a recognizer: any use of these fails the test. */
const unused = <T extends object>(what: string) =>
  new Proxy({} as T, {
    get: (_target, prop) => {
      throw new Error(`cutAudio used the ${what} (${String(prop)})`);
    },
  });

const DURATION_MS = 7_000;
let dir: string;
let store: LocalDiskObjectStore;
let plan: JobPlan;
let audioKey: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cut-audio-'));
  store = new LocalDiskObjectStore({ root: path.join(dir, 'objects'), baseUrl: 'http://127.0.0.1:1', signingSecret: Buffer.alloc(32, 7) });
  await store.ensureBucket();
  // 7 s of a 1.5 s tone every 2.5 s: pauses to cut at, several pieces of at most 2.5 s.
  const wav = path.join(dir, 'audio.wav');
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    `aevalsrc='if(lt(mod(t,2.5),1.5),0.5*sin(2*PI*440*t),0)':s=16000:d=${DURATION_MS / 1000}`,
    '-c:a',
    'pcm_s16le',
    wav,
  ]);
  plan = {
    jobId: 'job-cut-audio',
    workspaceId: 'ws-1',
    platform: 'upload',
    mediaId: 'upload-1',
    sourceUrl: null,
    canonicalUrl: null,
    recognizer: 'local',
    spec: { ...JOB_SPEC_DEFAULTS, mode: 'transcribe' },
    holdId: null,
    status: 'processing',
    stage: 'acquire_audio',
  };
  audioKey = `work/${plan.jobId}/audio.wav`;
  await store.put(audioKey, wav, 'audio/wav');
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

function activities() {
  return createTranscriptionActivities({
    db: unused<Db>('database'),
    store,
    recognizer: unused<Recognizer>('recognizer'),
    personalData: null,
    directLinkPolicy: { loopbackOnly: true },
    maxPieceMs: 2_500,
  });
}

/** One attempt of cutAudio with the heartbeats it sends (its failure, the point of the retry test, is not logged). */
function attempt(info: ConstructorParameters<typeof MockActivityEnvironment>[0] = {}) {
  const env = new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  const cut = (job: JobPlan) => env.run(activities().cutAudio, job, audioKey, DURATION_MS) as ReturnType<Activities['cutAudio']>;
  return { cut, beats };
}

/**
 * The progress the heartbeats saved, in order: a heartbeat after each piece. The periodic heartbeat (every few
 * seconds while the activity runs) repeats the last progress, or none yet, on a slow or busy machine: repeats are
 * not progress, so they are left out, and the test does not depend on the machine's speed.
 */
function progressOf(beats: unknown[]): unknown[] {
  return beats.filter((b, i) => b !== undefined && JSON.stringify(b) !== JSON.stringify(beats[i - 1]));
}

describe('cutAudio', () => {
  it('cuts at pauses and stores every piece, saving its progress after each', async () => {
    const put = jest.spyOn(store, 'put');
    try {
      const { cut, beats } = attempt();
      const { pieces, keys, firstPieceSha256 } = await cut(plan);
      expect(pieces.length).toBeGreaterThanOrEqual(3);
      expect(pieces[0]!.startMs).toBe(0);
      expect(pieces.at(-1)!.endMs).toBe(DURATION_MS);
      pieces.slice(1).forEach((p, i) => expect(p.startMs).toBe(pieces[i]!.endMs));
      expect(keys).toEqual(pieces.map((_, i) => `work/${plan.jobId}/piece-${i}.wav`));
      expect(put.mock.calls.map(([key]) => key)).toEqual(keys);
      expect(progressOf(beats)).toEqual(keys.map((_, i) => ({ piecesStored: i + 1, firstPieceSha256 })));
      // Each stored piece is the audio of its span; the hash answered is piece 0's bytes (what the leading piece is checked by).
      for (const [i, key] of keys.entries()) {
        const file = path.join(dir, `check-${i}.wav`);
        await store.download(key, file);
        expect((await probeMedia(file)).durationMs).toBeCloseTo(pieces[i]!.endMs - pieces[i]!.startMs, -2);
        if (i === 0)
          expect(firstPieceSha256).toBe(
            createHash('sha256')
              .update(await fs.readFile(file))
              .digest('hex'),
          );
      }
    } finally {
      put.mockRestore();
    }
  });

  it('a retry after a lost attempt cuts only the pieces that attempt did not store', async () => {
    const job = { ...plan, jobId: 'job-cut-audio-retry' };
    const realPut = store.put.bind(store);
    // The first attempt stores two pieces, then its worker is "lost" (the third store never happens).
    const lost = jest.spyOn(store, 'put').mockImplementation(async (key, body, type) => {
      if (lost.mock.calls.length === 3) throw new Error('worker lost');
      return realPut(key, body, type);
    });
    const first = attempt();
    try {
      await expect(first.cut(job)).rejects.toThrow('worker lost');
    } finally {
      lost.mockRestore();
    }
    expect(first.beats.at(-1)).toEqual({ piecesStored: 2, firstPieceSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

    // Temporal hands the last heartbeat's details to the next attempt.
    const put = jest.spyOn(store, 'put');
    try {
      const retry = attempt({ attempt: 2, heartbeatDetails: first.beats.at(-1) });
      const { keys, firstPieceSha256 } = await retry.cut(job);
      expect(put.mock.calls.map(([key]) => key)).toEqual(keys.slice(2));
      // Piece 0 was stored by the lost attempt: its hash comes from that attempt's progress.
      expect(firstPieceSha256).toBe((first.beats.at(-1) as { firstPieceSha256: string }).firstPieceSha256);
      expect(progressOf(retry.beats)).toEqual(keys.slice(2).map((_, i) => ({ piecesStored: i + 3, firstPieceSha256 })));
      for (const key of keys) expect(await store.stat(key)).not.toBeNull();
    } finally {
      put.mockRestore();
    }
  });
});
