import { ApplicationFailure } from '@temporalio/common';
import type { LiveCapture } from '../../activities/live';
import { FIRST_LIVE_CURSOR, type LiveCursor } from '../../core/live';
import { cancelUpdate, stopLiveSignal, type JobPlan, type LiveStreamOutcome } from '../../workflows/definitions';
import { liveStreamWorkflow } from '../../workflows/live';
import { jobActivities, planFor, steerJob, type JobMocks } from '../support/job-workflow';
import { useTimeSkipping } from '../support/time-skipping';

// The live stream follower on the time-skipping server, its activities mocked (the real ones, on a real HLS stream,
// a real recognizer and a killed worker, are in test/live-jobs.test.ts and test/reliability/live-kill.test.ts):
// pieces recognised and published once each, in order, across runs continued as new; a stop, the budget and a
// stream that goes away each end it with what was heard.

const ts = useTimeSkipping();
const PIECE_MS = 5000;

function plan(jobId: string): JobPlan {
  return {
    jobId,
    workspaceId: '00000000-0000-0000-0000-0000000000aa',
    platform: 'hls',
    mediaId: 'm',
    sourceUrl: 'https://cdn.example.com/live.m3u8',
    canonicalUrl: null,
    recognizer: 'local',
    holdId: null,
    status: 'processing',
    stage: 'wait_asr',
    spec: {} as JobPlan['spec'],
  };
}

/** A stream of `pieces` pieces of 5 s (one a capture, after two empty reads each), then the playlist's end. */
function mockStream(pieces: number, opts: { failAt?: number; overBudgetAt?: number; slowFirstPiece?: boolean } = {}) {
  const published: number[] = [];
  let capturedDuringFirst = -1;
  const captures: Array<{ piece: number; stop: boolean }> = [];
  const discarded: string[] = [];
  let reads = 0;
  const activities = {
    async captureLiveAudio(_plan: JobPlan, cursor: LiveCursor, o: { stop: boolean }): Promise<LiveCapture> {
      captures.push({ piece: cursor.nextPiece, stop: o.stop });
      if (!o.stop && opts.failAt === cursor.nextPiece) throw ApplicationFailure.create({ type: 'SOURCE_NOT_FOUND', nonRetryable: true });
      const last = o.stop || cursor.nextPiece === pieces - 1;
      // Every third read cuts a piece; the others find nothing new (then the follower waits pollMs).
      if (!o.stop && ++reads % 3 !== 0 && !last)
        return { cursor, piece: null, ended: null, fetched: 0, edgeMs: cursor.pendingStartMs, pollMs: 1000 };
      const index = cursor.nextPiece;
      const next: LiveCursor = { ...cursor, nextPiece: index + 1, pendingStartMs: (index + 1) * PIECE_MS, nextSeq: (index + 1) * 3 };
      const piece = { index, key: `piece-${index}`, startMs: index * PIECE_MS, endMs: (index + 1) * PIECE_MS };
      return {
        cursor: next,
        piece,
        ended: last ? (o.stop ? 'stopped' : 'ended') : null,
        fetched: 3,
        edgeMs: piece.endMs + 2000,
        pollMs: 1000,
      };
    },
    async reserveTranscriptionCredits(_plan: JobPlan, durationMs: number) {
      if (opts.overBudgetAt !== undefined && durationMs > opts.overBudgetAt * PIECE_MS)
        throw ApplicationFailure.create({ type: 'BUDGET_EXCEEDED', nonRetryable: true });
      return { cost: 2 * Math.ceil(durationMs / 60_000) };
    },
    async recognizePiece(_plan: JobPlan, key: string, index: number) {
      expect(key).toBe(`piece-${index}`);
      if (opts.slowFirstPiece && index === 0) {
        // A recognizer behind the air: the first piece takes until the stream has moved three pieces on (or 20 s).
        const until = Date.now() + 20_000;
        while (Date.now() < until && !captures.some((c) => c.piece >= 3)) await new Promise((r) => setTimeout(r, 50));
        capturedDuringFirst = Math.max(...captures.map((c) => c.piece));
      }
      return `result-${index}`;
    },
    async publishPieceSegments(_plan: JobPlan, index: number, resultKey: string) {
      expect(resultKey).toBe(`result-${index}`);
      published.push(index);
      return { published: 1 };
    },
    async recordLiveStarted() {
      return null;
    },
    async discardLiveAudio(cursor: LiveCursor) {
      if (cursor.pendingKey) discarded.push(cursor.pendingKey);
    },
  };
  return { activities, published, captures, discarded, capturedDuringFirst: () => capturedDuringFirst };
}

async function runs(workflowId: string): Promise<number> {
  let count = 1;
  let history = await ts.env.client.workflow.getHandle(workflowId).fetchHistory();
  while (history.events![0]!.workflowExecutionStartedEventAttributes!.continuedExecutionRunId) {
    const previous = history.events![0]!.workflowExecutionStartedEventAttributes!.continuedExecutionRunId!;
    history = await ts.env.client.workflow.getHandle(workflowId, previous).fetchHistory();
    count++;
  }
  return count;
}

const expectTiled = (outcome: LiveStreamOutcome, count: number) => {
  expect(outcome.pieces).toEqual(
    Array.from({ length: count }, (_, i) => ({ startMs: i * PIECE_MS, endMs: (i + 1) * PIECE_MS, resultKey: `result-${i}` })),
  );
};

it('pieces recognised and published once each, in order, across runs continued as new, until the playlist ends', async () => {
  const stream = mockStream(8);
  const { taskQueue, workflowId } = ts.ids();
  await ts.withWorker(taskQueue, stream.activities, async () => {
    const outcome = await ts.env.client.workflow.execute(liveStreamWorkflow, {
      taskQueue,
      workflowId,
      args: [{ plan: plan(workflowId), cursor: FIRST_LIVE_CURSOR, pieces: [], stop: false, piecesPerRun: 3 }],
    });
    expect(outcome.ended).toBe('ended');
    expectTiled(outcome, 8);
    expect(stream.published).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // 8 pieces at 3 a run: the state went through two hand-overs.
    expect(await runs(workflowId)).toBe(3);
    // Queried while a worker runs (a closed workflow's query replays it on one).
    const metadata = await ts.env.client.workflow.getHandle(workflowId).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toMatch(
      /8 piece\(s\) transcribed, the first 40\.0 s; the air is at 42\.0 s, 2\.0 s behind it\. Ended \(ended\)\./,
    );
  });
}, 120_000);

it('the playlist is read at the pace of the air while recognition runs behind it; pieces still publish in order', async () => {
  // Waiting for a piece's recognition before the next capture would let a sliding playlist slide past segments.
  const stream = mockStream(6, { slowFirstPiece: true });
  const { taskQueue, workflowId } = ts.ids();
  const outcome = await ts.withWorker(taskQueue, stream.activities, () =>
    ts.env.client.workflow.execute(liveStreamWorkflow, {
      taskQueue,
      workflowId,
      args: [{ plan: plan(workflowId), cursor: FIRST_LIVE_CURSOR, pieces: [], stop: false }],
    }),
  );
  expect(stream.capturedDuringFirst()).toBeGreaterThanOrEqual(3);
  expect(outcome.ended).toBe('ended');
  expectTiled(outcome, 6);
  expect(stream.published).toEqual([0, 1, 2, 3, 4, 5]);
}, 120_000);

it('a stop (across a hand-over) makes what waits the last piece; the budget and a stream gone end it with what was heard', async () => {
  // Stopped: the signal arrives while the follower waits for new segments.
  const stopped = mockStream(1000);
  const a = ts.ids();
  const outcome = await ts.withWorker(a.taskQueue, stopped.activities, async () => {
    const handle = await ts.env.client.workflow.start(liveStreamWorkflow, {
      taskQueue: a.taskQueue,
      workflowId: a.workflowId,
      args: [{ plan: plan(a.workflowId), cursor: FIRST_LIVE_CURSOR, pieces: [], stop: false, piecesPerRun: 2 }],
    });
    // Three pieces take about 10 s of the server's time. Bounded, and a run that closed is reported, so a follower
    // that stalls or fails makes this test fail with its state instead of outliving jest's timeout.
    for (let waited = 0; stopped.published.length < 3; waited++) {
      const { status } = await handle.describe();
      if (waited >= 120 || status.name !== 'RUNNING')
        throw new Error(`after ${waited} s the follower is ${status.name} with ${stopped.published.length} piece(s) published`);
      await ts.env.sleep('1 second');
    }
    await handle.signal(stopLiveSignal);
    return handle.result();
  });
  expect(outcome.ended).toBe('stopped');
  expect(stopped.captures.at(-1)).toMatchObject({ stop: true });
  expectTiled(outcome, outcome.pieces.length);
  expect(stopped.published).toEqual(outcome.pieces.map((_, i) => i));

  // Over budget at the fourth piece: three recognised, the fourth's audio discarded.
  const budget = mockStream(10, { overBudgetAt: 3 });
  const b = ts.ids();
  const ended = await ts.withWorker(b.taskQueue, budget.activities, () =>
    ts.env.client.workflow.execute(liveStreamWorkflow, {
      taskQueue: b.taskQueue,
      workflowId: b.workflowId,
      args: [{ plan: plan(b.workflowId), cursor: FIRST_LIVE_CURSOR, pieces: [], stop: false }],
    }),
  );
  expect(ended.ended).toBe('budget');
  expectTiled(ended, 3);
  expect(budget.discarded).toContain('piece-3');

  // The playlist gone after two pieces: a last capture with stop, and the pieces so far. Gone before any: the failure.
  const lost = mockStream(10, { failAt: 2 });
  const c = ts.ids();
  const gone = await ts.withWorker(c.taskQueue, lost.activities, () =>
    ts.env.client.workflow.execute(liveStreamWorkflow, {
      taskQueue: c.taskQueue,
      workflowId: c.workflowId,
      args: [{ plan: plan(c.workflowId), cursor: FIRST_LIVE_CURSOR, pieces: [], stop: false }],
    }),
  );
  expect(gone.ended).toBe('source_lost');
  expect(lost.captures.at(-1)).toMatchObject({ piece: 2, stop: true });
  const never = mockStream(10, { failAt: 0 });
  const d = ts.ids();
  await expect(
    ts.withWorker(d.taskQueue, never.activities, () =>
      ts.env.client.workflow.execute(liveStreamWorkflow, {
        taskQueue: d.taskQueue,
        workflowId: d.workflowId,
        args: [{ plan: plan(d.workflowId), cursor: FIRST_LIVE_CURSOR, pieces: [], stop: false }],
      }),
    ),
  ).rejects.toThrow();
}, 180_000);

describe("a live job's own workflow", () => {
  const livePlan = () => planFor({ mode: 'transcribe', platform: 'hls', sourceUrl: 'https://cdn.example.com/live.m3u8' });

  it('a cancel stops the stream: the transcript is written from the pieces heard, and the job succeeds with their charge', async () => {
    const p = livePlan();
    const stream = mockStream(1000);
    const acts = { ...jobActivities(p), ...stream.activities } as unknown as JobMocks;
    const result = await steerJob(ts, p, acts, async (handle) => {
      while (stream.published.length < 2) await ts.env.sleep('1 second');
      expect(await handle.executeUpdate(cancelUpdate)).toEqual({ cancelled: true });
    });
    expect(result).toMatchObject({ status: 'succeeded' });
    const heard = stream.captures.filter((c) => c.stop).length;
    expect(heard).toBe(1);
    const [, resultKeys, spans, durationMs] = acts.storeRecognition.mock.calls[0]!;
    expect(resultKeys).toEqual(spans.map((_, i) => `result-${i}`));
    expect(spans.length).toBeGreaterThanOrEqual(2);
    expect(durationMs).toBe(spans.length * PIECE_MS);
    expect(acts.completeJob).toHaveBeenCalledWith(p.jobId, { transcriptId: 'tr-asr', charge: 2, billingKind: 'ai_transcription' });
    expect(acts.cancelJob).not.toHaveBeenCalled();
  });

  it('a cancel before anything was heard cancels the job: nothing stored, nothing charged', async () => {
    const p = livePlan();
    const stream = mockStream(1000);
    const silent = {
      ...stream.activities,
      // Nothing is ever cut: the stream has not said enough yet.
      captureLiveAudio: async (_plan: JobPlan, cursor: LiveCursor, o: { stop: boolean }): Promise<LiveCapture> => ({
        cursor,
        piece: null,
        ended: o.stop ? 'stopped' : null,
        fetched: 0,
        edgeMs: 0,
        pollMs: 1000,
      }),
    };
    const acts = { ...jobActivities(p), ...silent } as unknown as JobMocks;
    const result = await steerJob(ts, p, acts, async (handle) => {
      await ts.env.sleep('5 seconds');
      expect(await handle.executeUpdate(cancelUpdate)).toEqual({ cancelled: true });
    });
    expect(result).toMatchObject({ status: 'cancelled' });
    expect(acts.cancelJob).toHaveBeenCalledWith(p.jobId);
    expect(acts.storeRecognition).not.toHaveBeenCalled();
    expect(acts.completeJob).not.toHaveBeenCalled();
  });
});
