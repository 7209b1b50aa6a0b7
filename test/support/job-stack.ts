import { WorkflowNotFoundError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createActivities, type ActivityDeps } from '../../activities';
import { createChapterActivities } from '../../activities/chapters';
import { createSummaryActivities } from '../../activities/summaries';
import { createChatCompletions } from '../../integrations/llm/chat-completions';
import { llmSettings } from '../../domain/config';
import { createOutbound, type Outbound } from '../../integrations/outbound/http';
import { activityDepsFromConfig } from '../../worker/activity-deps';
import { bearer, startTestApi, testObjectStore, type TestApi } from './harness';
import { WhisperRecognizer } from '../../integrations/recognizers/whisper';
import { RECOGNITION_TASK_QUEUE, workflowIds } from '../../workflows/definitions';
import type { AssemblyAiRecognizer } from '../../integrations/recognizers/cloud';
import { startReplayOrigin, type ReplayOrigin, type ReplayRoute } from './replay-origin';
import { testTls } from './tls';
import { downloadAudio } from '../../integrations/media/download';
import { startTestWorker, type TestWorker } from './worker';
import { attachListen, isListenUpgrade } from '../../api/listen/relay';

// The whole job path on real components: API (in process) → Temporal dev
// server → a real worker → the platform clients → the outbound layer → a
// loopback origin replaying recorded platform responses.

/** The worker's dependencies in tests: real platform clients through `outbound`, webhooks allowed to loopback https. */
export function activityDepsFor(
  api: TestApi,
  outbound: Outbound,
  opts: {
    cloud?: AssemblyAiRecognizer | null;
    callbackUrl?: string;
    maxPieceMs?: number;
    originOverride?: string;
    recognitionTaskQueue?: string;
  } = {},
): ActivityDeps {
  // The production wiring (worker/activity-deps.ts) with the test stack's changes: one worker serves the
  // embedding workers' activities too (chapters), on the job's own queue.
  const deps = activityDepsFromConfig(
    api.deps.config,
    { db: api.deps.db, store: testObjectStore(), outbound },
    {
      transcription: {
        recognizer: new WhisperRecognizer(),
        // The recognition worker npm test starts (stack/test-env.ts), on the test stack's Temporal.
        recognitionTaskQueue: opts.recognitionTaskQueue ?? process.env.RECOGNITION_TASK_QUEUE ?? RECOGNITION_TASK_QUEUE,
        cloud: opts.cloud ?? null,
        callbackUrl: opts.callbackUrl ?? null,
        directLinkPolicy: { loopbackOnly: true, caForTests: testTls().cert },
        maxPieceMs: opts.maxPieceMs,
        downloadPlatformAudio: (url, platform, toDir) =>
          downloadAudio(url, platform, { toDir, outbound: { originOverride: opts.originOverride ?? null, loopbackOnly: true } }),
      },
      webhooks: { addressPolicy: { loopbackOnly: true }, caForTests: testTls().cert, timeoutMs: 3000 },
    },
  );
  return { ...deps, embeddingTaskQueue: undefined, summaryTaskQueue: undefined };
}

/**
 * The test stack's worker activities: the service's, the embedding workers' where the model is installed, and the
 * summary workers' where the stack's settings name a language model (LLM_BASE_URL).
 */
export function jobStackActivities(api: TestApi, deps: ActivityDeps) {
  const embedder = api.deps.embedder;
  const llm = llmSettings(api.deps.config);
  return {
    ...createActivities(deps),
    ...(embedder ? createChapterActivities({ db: deps.db, embedder, sources: deps.captions }) : {}),
    ...(llm ? createSummaryActivities({ db: deps.db, llm: createChatCompletions(llm) }) : {}),
  };
}

export interface JobStack {
  api: TestApi;
  worker: TestWorker;
  origin: ReplayOrigin;
  outbound: Outbound;
  close: () => Promise<void>;
}

export async function startJobStack(
  routes: ReplayRoute[] = [],
  opts: {
    maxPieceMs?: number;
    cloud?: AssemblyAiRecognizer | null;
    callbackUrl?: string;
    recognitionTaskQueue?: string;
    /** The API's public base URL, when a browser calls it (then the local store signs upload URLs for it too). */
    baseUrl?: string;
    /** Settings of the API and the worker (both read one config), e.g. a translation provider's. */
    env?: Record<string, string>;
  } = {},
): Promise<JobStack> {
  const origin = await startReplayOrigin(routes);
  const taskQueue = `jobs-${randomUUID()}`;
  const api = await startTestApi(
    { ...opts.env, TEMPORAL_TASK_QUEUE: taskQueue },
    opts.baseUrl ? { baseUrl: opts.baseUrl, objectStore: testObjectStore(opts.baseUrl) } : {},
  );
  const outbound = createOutbound({ originOverride: origin.url, timeoutMs: 2000 });
  const worker = await startTestWorker(
    jobStackActivities(
      api,
      activityDepsFor(api, outbound, {
        originOverride: origin.url,
        maxPieceMs: opts.maxPieceMs,
        cloud: opts.cloud,
        callbackUrl: opts.callbackUrl,
        recognitionTaskQueue: opts.recognitionTaskQueue,
      }),
    ),
    taskQueue,
  );
  const stack: JobStack = {
    api,
    worker,
    origin,
    outbound,
    // Stops the worker the stack holds now (a test may have replaced it).
    close: async () => {
      await stack.worker.stop();
      await outbound.close();
      await api.close();
      await origin.close();
    },
  };
  return stack;
}

/**
 * A job stack whose API listens on a loopback port, for callers that are not supertest (a browser, a
 * client library, a child process): the port is taken first, so the local store signs upload URLs and
 * media links for the origin they use.
 */
export async function startListeningJobStack(routes: ReplayRoute[] = []) {
  // Upgrades of GET /v1/listen are taken once the API exists (attachListen below).
  const server = http.createServer({ shouldUpgradeCallback: isListenUpgrade });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stack = await startJobStack(routes, { baseUrl: base });
  server.on('request', stack.api.app);
  attachListen(server, stack.api.deps);
  return {
    stack,
    base,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await stack.close();
    },
  };
}

let keyCounter = 0;
export const newKey = () => `test-key-${Date.now()}-${++keyCounter}-${randomUUID().slice(0, 8)}`;

export async function submit(api: TestApi, apiKey: string, body: object, key = newKey()) {
  return request(api.app).post('/v1/jobs').set(bearer(apiKey)).set('Idempotency-Key', key).send(body);
}

export async function waitFinal(api: TestApi, apiKey: string, jobId: string, seconds = 20) {
  const res = await request(api.app)
    .get(`/v1/jobs/${jobId}`)
    .query({ wait: Math.min(25, seconds) })
    .set(bearer(apiKey));
  return res;
}

/** The job once it is final, long-polling up to `rounds` times 25 s (AI transcription on a busy machine takes a while). */
export async function waitUntilFinal(api: TestApi, apiKey: string, jobId: string, rounds = 4) {
  let done = await waitFinal(api, apiKey, jobId, 25);
  for (let i = 1; i < rounds && !['succeeded', 'failed', 'cancelled'].includes(done.body.status); i++)
    done = await waitFinal(api, apiKey, jobId, 25);
  return done;
}

/**
 * Replay routes for a videosite video with captions: the ANDROID reel answer
 * (real recording, 13 tracks), the /player answer for the fallback clients and
 * a caption body.
 */
export function videositeCaptionRoutes(
  opts: { reel?: ReplayRoute; player?: string; captionBody?: string; captionFixture?: string; captionDelayMs?: number } = {},
): ReplayRoute[] {
  return [
    opts.reel ?? {
      method: 'POST',
      path: '/youtubei/v1/reel/reel_item_watch',
      fixture: 'videosite/player-captions/android-reel_item_watch-rCAS2eD-mcw-13tracks.body.json',
    },
    {
      method: 'POST',
      path: '/youtubei/v1/player',
      fixture: opts.player ?? 'videosite/player-captions/android-player-GJLlxj_dtq8-9tracks.innertube.json',
    },
    opts.captionBody !== undefined
      ? { path: '/api/timedtext', body: opts.captionBody, headers: { 'content-type': 'text/xml' }, delayMs: opts.captionDelayMs }
      : {
          path: '/api/timedtext',
          fixture: opts.captionFixture ?? 'videosite/caption-bodies/srv3/mesmerizer.srv3.xml',
          delayMs: opts.captionDelayMs,
        },
  ];
}

export const VIDEO_URL = 'https://www.youtube.com/watch?v=rCAS2eD-mcw';

/** A caption body in the platform's srv3 format: one cue per line, every 4 s, each 3.5 s long. */
export function srv3Captions(lines: readonly string[]): string {
  const cues = lines.map((text, i) => `<p t="${i * 4000}" d="3500">${text}</p>`).join('');
  return `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${cues}</body></timedtext>`;
}

/**
 * The handle of a job's workflow once it exists: POST /v1/jobs answers right
 * after its commit and starts the workflow just after (domain/workflow-starts.ts),
 * so a test that acts on the workflow itself waits for it first.
 */
export async function startedJobWorkflow(api: TestApi, jobId: string, withinMs = 10_000) {
  const handle = api.deps.temporal.workflow.getHandle(workflowIds.job(jobId));
  const until = Date.now() + withinMs;
  for (;;) {
    try {
      await handle.describe();
      return handle;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
