import { ApplicationFailure } from '@temporalio/common';
import { DEFAULT_PROVIDER_POLL_MS, DEFAULT_PROVIDER_TIMEOUT_MS, JOB_NOT_COMMITTED } from '../../workflows/definitions';
import { providerCallbackSignal } from '../../workflows/definitions';
import { failure, jobActivities, planFor, runJob, steerJob, type JobMocks } from '../support/job-workflow';
import { gate, useTimeSkipping } from '../support/time-skipping';

// jobWorkflow on the time-skipping server, every activity a mock: the order of
// the steps, the fallbacks, the provider wait and the automatic retries, with
// the production timings (the cancel window: job-cancel.test.ts).

const ts = useTimeSkipping();

const stages = (acts: JobMocks) => acts.setStage.mock.calls.map((c) => c[1]);

describe('captions', () => {
  it('fetches captions, commits the result at 1 credit and delivers the event', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, { completeJob: async () => ({ status: 'succeeded', eventId: 'ev-1' }) });
    expect(await runJob(ts, plan, acts)).toEqual({ status: 'succeeded', eventId: 'ev-1' });
    expect(acts.startJob).toHaveBeenCalledWith(plan.jobId);
    expect(acts.resolveSource).not.toHaveBeenCalled(); // only share links are resolved
    expect(acts.fetchCaptions).toHaveBeenCalledWith(plan, plan.mediaId);
    expect(stages(acts)).toEqual([]); // startJob wrote captions; storing the draft writes finalize
    expect(acts.completeJob).toHaveBeenCalledWith(plan.jobId, { transcriptId: 'tr-captions', charge: 1, billingKind: 'captions' });
    expect(acts.acquireAudio).not.toHaveBeenCalled();
    expect(acts.failJob).not.toHaveBeenCalled();
    expect(acts.deliverWebhookAttempt.mock.calls).toEqual([['ev-1', 1, false]]);
  });

  it('resolves a share link first and fetches the captions of the media it names', async () => {
    const plan = planFor({ mediaId: 'share:abc', platform: 'shortvideo' });
    const acts = jobActivities(plan, { resolveSource: async () => ({ mediaId: '7234567890123456789' }) });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(acts.fetchCaptions).toHaveBeenCalledWith(plan, '7234567890123456789');
  });
});

describe('auto mode', () => {
  it.each(['NO_CAPTIONS', 'LANGUAGE_UNAVAILABLE'] as const)('falls back to AI transcription on %s', async (code) => {
    const plan = planFor({ mode: 'auto' });
    const acts = jobActivities(plan, {
      fetchCaptions: async () => {
        throw failure(code);
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(acts.fetchCaptions).toHaveBeenCalledTimes(1); // non-retryable: no automatic retry
    expect(acts.acquireAudio).toHaveBeenCalledWith(plan);
    expect(acts.reserveTranscriptionCredits).toHaveBeenCalledWith(plan, 42_000);
    expect(acts.markAsrStarted).toHaveBeenCalledWith(plan.jobId);
    expect(acts.recognizePiece).toHaveBeenCalledWith(plan, 'piece-0', 0);
    expect(stages(acts)).toEqual(['acquire_audio', 'wait_asr']);
    expect(acts.completeJob).toHaveBeenCalledWith(plan.jobId, { transcriptId: 'tr-asr', charge: 2, billingKind: 'ai_transcription' });
    expect(acts.failJob).not.toHaveBeenCalled();
  });

  it.each(['SOURCE_PRIVATE', 'SOURCE_AUTH_REQUIRED', 'SOURCE_REGION_RESTRICTED', 'SOURCE_NOT_FOUND'] as const)(
    'does not fall back on %s: the job fails with it',
    async (code) => {
      const plan = planFor({ mode: 'auto' });
      const acts = jobActivities(plan, {
        fetchCaptions: async () => {
          throw failure(code, 'why');
        },
      });
      expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'failed' });
      expect(acts.acquireAudio).not.toHaveBeenCalled();
      expect(acts.failJob).toHaveBeenCalledWith(
        plan.jobId,
        expect.objectContaining({ code, retryable: false, details: { detail: 'why' } }),
      );
    },
  );

  it('captions_only never falls back: NO_CAPTIONS fails the job', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, {
      fetchCaptions: async () => {
        throw failure('NO_CAPTIONS');
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'failed' });
    expect(acts.acquireAudio).not.toHaveBeenCalled();
    expect(acts.failJob).toHaveBeenCalledWith(plan.jobId, expect.objectContaining({ code: 'NO_CAPTIONS' }));
  });
});

describe('the cloud recognition provider', () => {
  const cloudPlan = () => planFor({ mode: 'transcribe', recognizer: 'cloud' });

  it("wakes on the provider's callback signal without waiting for a poll", async () => {
    const plan = cloudPlan();
    let submitted!: () => void;
    const wasSubmitted = new Promise<void>((resolve) => (submitted = resolve));
    const times: Record<string, number> = {};
    const acts = jobActivities(plan, {
      submitToProvider: async () => {
        times.submit = await ts.now();
        submitted();
        return 'provider-job-1';
      },
      fetchProviderResult: async () => {
        times.fetch = await ts.now();
        return { transcriptId: 'tr-cloud' };
      },
    });
    const result = await steerJob(ts, plan, acts, async (handle) => {
      await wasSubmitted;
      await handle.signal(providerCallbackSignal, { status: 'completed' });
    });
    expect(result).toMatchObject({ status: 'succeeded' });
    expect(acts.fetchProviderResult.mock.calls).toEqual([[plan, 'provider-job-1', 42_000]]);
    expect(times.fetch! - times.submit!).toBeLessThan(DEFAULT_PROVIDER_POLL_MS);
    expect(acts.cutAudio).not.toHaveBeenCalled();
    expect(acts.completeJob).toHaveBeenCalledWith(plan.jobId, { transcriptId: 'tr-cloud', charge: 2, billingKind: 'ai_transcription' });
  });

  it('without a callback polls every DEFAULT_PROVIDER_POLL_MS and a late result still completes', async () => {
    const plan = cloudPlan();
    const polls: number[] = [];
    const acts = jobActivities(plan, {
      fetchProviderResult: async () => {
        polls.push(await ts.now());
        return polls.length < 4 ? 'pending' : { transcriptId: 'tr-cloud' };
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(polls).toHaveLength(4);
    for (const gap of gaps(polls)) expectAbout(gap, DEFAULT_PROVIDER_POLL_MS);
  });

  it('gives up with PROVIDER_UNAVAILABLE after DEFAULT_PROVIDER_TIMEOUT_MS without a result', async () => {
    const plan = cloudPlan();
    let submittedAt = 0;
    const polls: number[] = [];
    const acts = jobActivities(plan, {
      submitToProvider: async () => {
        submittedAt = await ts.now();
        return 'provider-job-1';
      },
      fetchProviderResult: async () => {
        polls.push(await ts.now());
        return 'pending';
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'failed' });
    expect(acts.failJob).toHaveBeenCalledWith(
      plan.jobId,
      expect.objectContaining({ code: 'PROVIDER_UNAVAILABLE', retryable: true, details: { detail: 'provider_timeout' } }),
    );
    // One poll a minute for three hours, then the first poll past the deadline gives up.
    const expectedPolls = DEFAULT_PROVIDER_TIMEOUT_MS / DEFAULT_PROVIDER_POLL_MS;
    expect(polls.length).toBeGreaterThanOrEqual(expectedPolls);
    expect(polls.length).toBeLessThanOrEqual(expectedPolls + 1);
    for (const gap of gaps(polls)) expectAbout(gap, DEFAULT_PROVIDER_POLL_MS);
    expect(polls.at(-1)! - submittedAt).toBeGreaterThan(DEFAULT_PROVIDER_TIMEOUT_MS);
    expect(acts.cancelJob).not.toHaveBeenCalled();
  });
});

describe('a growing transcript', () => {
  const threePieces = {
    cutAudio: async () => ({
      pieces: [
        { startMs: 0, endMs: 20_000 },
        { startMs: 20_000, endMs: 40_000 },
        { startMs: 40_000, endMs: 42_000 },
      ],
      keys: ['piece-0', 'piece-1', 'piece-2'],
      firstPieceSha256: '',
    }),
  };
  // The recognizers answer last piece first: piece 0 is the slowest.
  const outOfOrder = async (_plan: unknown, key: string) => {
    const i = Number(key.slice('piece-'.length));
    await new Promise((r) => setTimeout(r, [600, 300, 0][i]));
    return `result-${i}`;
  };

  it('publishes each piece once, in time order, only after every earlier piece, however the recognizers answer', async () => {
    const plan = planFor({ mode: 'transcribe' });
    const recognized: number[] = [];
    const acts = jobActivities(plan, {
      ...threePieces,
      recognizePiece: async (p, key, i) => {
        const r = await outOfOrder(p, key);
        recognized.push(i);
        return r;
      },
      publishPieceSegments: async (_p, i) => {
        // Every piece up to this one is recognised before it is published.
        expect(recognized).toEqual(expect.arrayContaining([...Array(i + 1).keys()]));
        return { published: 2 };
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(recognized).toEqual([2, 1, 0]);
    expect(acts.publishPieceSegments.mock.calls.map((c) => [c[1], c[2], c[3]])).toEqual([
      [0, 'result-0', { startMs: 0, endMs: 20_000 }],
      [1, 'result-1', { startMs: 20_000, endMs: 40_000 }],
      [2, 'result-2', { startMs: 40_000, endMs: 42_000 }],
    ]);
    // Published before the transcript is written, which takes the results in piece order.
    expect(acts.publishPieceSegments.mock.invocationCallOrder[2]).toBeLessThan(acts.storeRecognition.mock.invocationCallOrder[0]!);
    expect(acts.storeRecognition.mock.calls[0]![1]).toEqual(['result-0', 'result-1', 'result-2']);
  });

  it('a publish that fails stops the growing view, never the job: the transcript is written from the same results', async () => {
    const plan = planFor({ mode: 'transcribe' });
    const acts = jobActivities(plan, {
      ...threePieces,
      recognizePiece: outOfOrder,
      publishPieceSegments: async () => {
        throw failure('INVALID_REQUEST', 'a bug in the view');
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(acts.publishPieceSegments).toHaveBeenCalledTimes(1); // non-retryable, and nothing after it
    expect(acts.storeRecognition.mock.calls[0]!.slice(1, 4)).toEqual([
      ['result-0', 'result-1', 'result-2'],
      [
        { startMs: 0, endMs: 20_000 },
        { startMs: 20_000, endMs: 40_000 },
        { startMs: 40_000, endMs: 42_000 },
      ],
      42_000,
    ]);
    expect(acts.completeJob).toHaveBeenCalledWith(plan.jobId, { transcriptId: 'tr-asr', charge: 2, billingKind: 'ai_transcription' });
  });
});

describe('the leading piece of a long upload', () => {
  const pieces = [
    { startMs: 0, endMs: 20_000 },
    { startMs: 20_000, endMs: 40_000 },
    { startMs: 40_000, endMs: 42_000 },
  ];
  const lead = { piece: pieces[0]!, key: 'lead-piece', sha256: 'aa' };
  /** acquireAudio held until the test lets it go; the rest as in a three-piece upload. */
  function uploadActs(plan: ReturnType<typeof planFor>, over: Parameters<typeof jobActivities>[1] = {}) {
    const converting = gate();
    const recognizedBeforeConverted: string[] = [];
    let converted = false;
    const acts = jobActivities(plan, {
      acquireAudio: async () => {
        await converting.pass();
        converted = true;
        return { audioKey: 'audio', durationMs: 42_000 };
      },
      cutLeadingPiece: async () => ({ durationMs: 42_000, lead }),
      cutAudio: async () => ({ pieces, keys: ['piece-0', 'piece-1', 'piece-2'], firstPieceSha256: 'aa' }),
      recognizePiece: async (_p, key, i) => {
        if (!converted) recognizedBeforeConverted.push(key);
        if (key === 'lead-piece') converting.open();
        return `result-${i}`;
      },
      ...over,
    });
    return { acts, recognizedBeforeConverted };
  }

  it('is priced, closes the cancel window and goes to a recognizer before the whole upload is converted; its result stands for piece 0', async () => {
    const plan = planFor({ mode: 'transcribe', platform: 'upload', mediaId: 'upload-1' });
    const { acts, recognizedBeforeConverted } = uploadActs(plan);
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(recognizedBeforeConverted).toEqual(['lead-piece']);
    expect(acts.reserveTranscriptionCredits.mock.invocationCallOrder[0]).toBeLessThan(acts.recognizePiece.mock.invocationCallOrder[0]!);
    expect(acts.markAsrStarted.mock.invocationCallOrder[0]).toBeLessThan(acts.recognizePiece.mock.invocationCallOrder[0]!);
    // Piece 0 is not recognised twice; the transcript takes the pieces' results in order.
    expect(acts.recognizePiece.mock.calls.map((c) => c[1]).sort()).toEqual(['lead-piece', 'piece-1', 'piece-2']);
    expect(acts.storeRecognition.mock.calls[0]![1]).toEqual(['result-0', 'result-1', 'result-2']);
    expect(acts.publishPieceSegments.mock.calls.map((c) => c[1])).toEqual([0, 1, 2]);
    expect(acts.completeJob).toHaveBeenCalledWith(plan.jobId, { transcriptId: 'tr-asr', charge: 2, billingKind: 'ai_transcription' });
  });

  it("is not used when cutAudio's piece 0 has other samples: piece 0 is recognised again, after it", async () => {
    const plan = planFor({ mode: 'transcribe', platform: 'upload', mediaId: 'upload-1' });
    const { acts } = uploadActs(plan, {
      cutAudio: async () => ({ pieces, keys: ['piece-0', 'piece-1', 'piece-2'], firstPieceSha256: 'bb' }),
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    const keys = acts.recognizePiece.mock.calls.map((c) => c[1]);
    expect(keys).toEqual(expect.arrayContaining(['lead-piece', 'piece-0', 'piece-1', 'piece-2']));
    expect(keys.indexOf('piece-0')).toBeGreaterThan(keys.indexOf('lead-piece'));
    expect(acts.storeRecognition.mock.calls[0]![1]).toEqual(['result-0', 'result-1', 'result-2']);
  });

  it('a leading cut that fails changes nothing: the job goes on as without it', async () => {
    const plan = planFor({ mode: 'transcribe', platform: 'upload', mediaId: 'upload-1' });
    const { acts } = uploadActs(plan, {
      cutLeadingPiece: async () => {
        throw failure('INVALID_MEDIA', 'truncated');
      },
      acquireAudio: async () => ({ audioKey: 'audio', durationMs: 42_000 }),
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(acts.recognizePiece.mock.calls.map((c) => c[1]).sort()).toEqual(['piece-0', 'piece-1', 'piece-2']);
    expect(acts.reserveTranscriptionCredits).toHaveBeenCalledWith(plan, 42_000);
  });

  it('over max_credits: the job fails BUDGET_EXCEEDED before anything goes to a recognizer, as without it', async () => {
    const plan = planFor({ mode: 'transcribe', platform: 'upload', mediaId: 'upload-1' });
    const { acts } = uploadActs(plan, {
      acquireAudio: async () => ({ audioKey: 'audio', durationMs: 42_000 }),
      reserveTranscriptionCredits: async () => {
        throw failure('BUDGET_EXCEEDED', 'cost=2 > max_credits=1');
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'failed' });
    expect(acts.failJob).toHaveBeenCalledWith(plan.jobId, expect.objectContaining({ code: 'BUDGET_EXCEEDED' }));
    expect(acts.markAsrStarted).not.toHaveBeenCalled();
    expect(acts.recognizePiece).not.toHaveBeenCalled();
  });

  it('is cut only for uploads', async () => {
    const plan = planFor({ mode: 'transcribe', platform: 'direct', mediaId: 'https://example.com/a.mp3' });
    const acts = jobActivities(plan);
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(acts.cutLeadingPiece).not.toHaveBeenCalled();
  });
});

describe('automatic retries', () => {
  it('retries a retryable error after 5 s, 10 s, 20 s, 40 s, 80 s and 160 s, then fails the job with it', async () => {
    const plan = planFor();
    const attempts: number[] = [];
    const acts = jobActivities(plan, {
      fetchCaptions: async () => {
        attempts.push(await ts.now());
        throw failure('SOURCE_RATE_LIMITED', 'HTTP 429');
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'failed' });
    expect(attempts).toHaveLength(7);
    const delays = gaps(attempts);
    [5_000, 10_000, 20_000, 40_000, 80_000, 160_000].forEach((expected, i) => expectAbout(delays[i]!, expected));
    expect(acts.failJob).toHaveBeenCalledTimes(1);
    expect(acts.failJob).toHaveBeenCalledWith(
      plan.jobId,
      expect.objectContaining({ code: 'SOURCE_RATE_LIMITED', retryable: true, details: { detail: 'HTTP 429' } }),
    );
    expect(acts.failJob.mock.invocationCallOrder[0]).toBeGreaterThan(acts.fetchCaptions.mock.invocationCallOrder[6]!);
  });

  it('retries a lost attempt (an error outside the catalogue: a dead worker, a dropped connection) after 1 s, 2 s, 4 s', async () => {
    const plan = planFor({ mode: 'transcribe' });
    const attempts: number[] = [];
    const acts = jobActivities(plan, {
      acquireAudio: async () => {
        attempts.push(await ts.now());
        if (attempts.length < 4) throw new Error('socket hang up');
        return { audioKey: `work/${plan.jobId}/audio.wav`, durationMs: 42_000 };
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(attempts).toHaveLength(4);
    const delays = gaps(attempts);
    [1_000, 2_000, 4_000].forEach((expected, i) => expectAbout(delays[i]!, expected));
  });

  it('stops retrying at the first success', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, {
      fetchCaptions: async () => {
        if (acts.fetchCaptions.mock.calls.length < 3) throw failure('SOURCE_TIMEOUT');
        return { transcriptId: 'tr-third', charge: 1 };
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(acts.fetchCaptions).toHaveBeenCalledTimes(3);
    expect(acts.completeJob).toHaveBeenCalledWith(plan.jobId, expect.objectContaining({ transcriptId: 'tr-third' }));
    expect(acts.failJob).not.toHaveBeenCalled();
  });

  it('a non-retryable error is not retried', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, {
      fetchCaptions: async () => {
        throw failure('SOURCE_PRIVATE');
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'failed' });
    expect(acts.fetchCaptions).toHaveBeenCalledTimes(1);
  });
});

describe('the start step', () => {
  it('ends quietly on JOB_NOT_COMMITTED: nothing failed, settled or delivered', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, {
      startJob: async () => {
        throw ApplicationFailure.create({ type: JOB_NOT_COMMITTED, nonRetryable: true, message: 'never committed' });
      },
    });
    expect(await runJob(ts, plan, acts)).toEqual({ status: 'failed' });
    expect(acts.startJob).toHaveBeenCalledTimes(1);
    for (const step of [acts.setStage, acts.fetchCaptions, acts.completeJob, acts.failJob, acts.cancelJob, acts.deliverWebhookAttempt]) {
      expect(step).not.toHaveBeenCalled();
    }
  });

  it('retries every other error (a database outage) until the job starts', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, {
      startJob: async () => {
        const n = acts.startJob.mock.calls.length;
        if (n === 1) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        if (n === 2) throw failure('STORAGE_UNAVAILABLE', 'job_not_visible_yet');
        if (n === 3) throw ApplicationFailure.create({ type: 'SOMETHING_ELSE', nonRetryable: false, message: 'odd' });
        return plan;
      },
    });
    expect(await runJob(ts, plan, acts)).toMatchObject({ status: 'succeeded' });
    expect(acts.startJob).toHaveBeenCalledTimes(4);
    expect(acts.failJob).not.toHaveBeenCalled();
  });

  it('a job already final (a replayed start) runs no step', async () => {
    const plan = planFor({ status: 'succeeded' });
    const acts = jobActivities(plan);
    expect(await runJob(ts, plan, acts)).toEqual({ status: 'succeeded' });
    expect(acts.setStage).not.toHaveBeenCalled();
    expect(acts.completeJob).not.toHaveBeenCalled();
  });
});

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]!);
}

/** A delay in workflow time: never shorter than asked, and longer only by the steps' own (real) run time. */
function expectAbout(actual: number, expected: number) {
  expect(actual).toBeGreaterThanOrEqual(expected);
  expect(actual).toBeLessThan(expected + 1_000);
}
