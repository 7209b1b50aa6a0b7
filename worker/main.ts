// First, so that every module after it is compiled once and reused at the next start.
import '../integrations/compile-cache';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pino from 'pino';
import { createActivities } from '../activities';
import { createOutbound } from '../integrations/outbound/http';
import { activityDepsFromConfig } from './activity-deps';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../integrations/temporal-connection';
import { ensureSchedules, ensureSearchBackfill, ensureSearchEmbeddings } from './schedules';
import { createEmbeddingActivities } from '../activities/search';
import { createChapterActivities } from '../activities/chapters';
import { e5Embedder } from '../integrations/embeddings/e5';
import { createSummaryActivities } from '../activities/summaries';
import { createChatCompletions } from '../integrations/llm/chat-completions';
import { runWorkflowStarter } from './workflow-starter';
import { workflowCodeOptions } from './workflow-bundle';
import { missingSearchAttributes } from '../domain/workflow-starts';
import { config, llmSettings, objectStoreSettings, outboundSettings } from '../domain/config';
import { createDb } from '../domain/db';
import { createObjectStore } from '../integrations/storage';
import { applyMigrations } from '../prisma/migrate';
import { clearIdleScratch } from '../integrations/scratch';
import { installTracing, logTraceFields, temporalClientInterceptors, temporalWorkerOptions } from '../integrations/telemetry/tracing';

// The worker process: runs workflows and activities from the task queue. Scale
// out by starting more of them; Temporal spreads the work.
/** How long a stopping worker lets its running activities finish (inside the usual 30 s before SIGKILL). */
const WORKER_SHUTDOWN_GRACE = '20 seconds';

async function main() {
  const cfg = config();
  const tracing = installTracing('transcript-worker');
  const logger = pino({ level: cfg.LOG_LEVEL, base: { service: 'worker' }, mixin: logTraceFields });
  const metricsPort = cfg.WORKER_METRICS_PORT;
  // Temporal's own Prometheus metrics (workflow/activity counts and latencies).
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `0.0.0.0:${metricsPort}` } } } });
  await applyMigrations(cfg.DATABASE_URL);
  // What killed workers left on this host's disk (integrations/scratch.ts), before this one takes any work.
  const sweptScratch = await clearIdleScratch();
  const { prisma, close: closeDb } = createDb(cfg.DATABASE_URL, undefined, (err) =>
    logger.warn({ err: err.message }, 'database connection lost'),
  );
  const outbound = createOutbound(outboundSettings(cfg));
  const store = createObjectStore(objectStoreSettings(cfg));
  await store.ensureBucket();
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const taskQueue = cfg.TEMPORAL_TASK_QUEUE;
  const clientConnection = await connectTemporal(cfg.TEMPORAL_ADDRESS);
  const client = new Client({
    connection: clientConnection.connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    interceptors: temporalClientInterceptors(),
  });
  // Without the search attributes Temporal refuses the workflows' starts and upserts (README, the Temporal UI runbook).
  const missing = await missingSearchAttributes(client, cfg.TEMPORAL_NAMESPACE);
  if (missing === null) logger.warn('could not list the namespace search attributes; assuming they are registered');
  else if (missing.length > 0) {
    throw new Error(
      `Temporal namespace ${cfg.TEMPORAL_NAMESPACE} lacks the search attributes ${missing.join(', ')}: register them first ` +
        '(README, "Operating it: the Temporal UI runbook": temporal operator search-attribute create ...)',
    );
  }
  await ensureSchedules(client, taskQueue);
  await ensureSearchBackfill(client, taskQueue);
  const activityDeps = activityDepsFromConfig(cfg, { db: prisma, store, outbound });
  const { interceptors, sinks } = temporalWorkerOptions();
  const { prebuilt, ...workflowCode } = workflowCodeOptions(cfg.WORKFLOW_BUNDLE_DIR, interceptors?.workflowModules ?? [], logger);
  const worker = await Worker.create({
    connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    taskQueue,
    ...workflowCode,
    activities: createActivities(activityDeps),
    // SIGTERM: the worker stops polling at once, lets running activities finish for this long, then cancels
    // them (heartbeating ones see the cancellation; Temporal retries them on another worker) and exits.
    shutdownGraceTime: WORKER_SHUTDOWN_GRACE,
    // A prebuilt bundle has the workflow interceptors in it already.
    ...(interceptors ? { interceptors: prebuilt ? { ...interceptors, workflowModules: [] } : interceptors } : {}),
    ...(sinks ? { sinks } : {}),
  });
  // Search by meaning: where the model is, this process also serves the embedding queue, one batch at a time (the
  // engine uses every core for a batch), and makes sure the follower that feeds it runs.
  const embedder = e5Embedder(cfg.EMBEDDING_MODEL_DIR);
  const embeddingWorker = embedder
    ? await Worker.create({
        connection,
        namespace: cfg.TEMPORAL_NAMESPACE,
        taskQueue: cfg.EMBEDDING_TASK_QUEUE,
        activities: {
          ...createEmbeddingActivities(prisma, embedder),
          ...createChapterActivities({ db: prisma, embedder, sources: activityDeps.captions }),
        },
        maxConcurrentActivityTaskExecutions: 1,
        shutdownGraceTime: WORKER_SHUTDOWN_GRACE,
      })
    : null;
  if (embedder) await ensureSearchEmbeddings(client, taskQueue, cfg.EMBEDDING_TASK_QUEUE);
  // Summaries: where a language model is configured, this process also serves the summary queue. One at a time:
  // the embedded model answers one request at once, and an operator's endpoint scales by more such workers.
  const llm = llmSettings(cfg);
  const summaryWorker = llm
    ? await Worker.create({
        connection,
        namespace: cfg.TEMPORAL_NAMESPACE,
        taskQueue: cfg.SUMMARY_TASK_QUEUE,
        activities: createSummaryActivities({ db: prisma, llm: createChatCompletions(llm) }),
        maxConcurrentActivityTaskExecutions: 1,
        shutdownGraceTime: WORKER_SHUTDOWN_GRACE,
      })
    : null;
  // Starts the workflows of committed work whose start after the commit was lost (domain/workflow-starts.ts).
  const stopStarter = runWorkflowStarter(prisma, { temporal: client, taskQueue }, logger);
  logger.info(
    {
      task_queue: taskQueue,
      workflow_bundle: prebuilt ? workflowCode.workflowBundle : 'bundled at start',
      metrics_port: metricsPort,
      recognizer: cfg.RECOGNIZER,
      recognition_task_queue: activityDeps.transcription.cloud ? null : cfg.RECOGNITION_TASK_QUEUE,
      scratch_swept: sweptScratch,
      embedding: embedder ? { model: embedder.model, task_queue: cfg.EMBEDDING_TASK_QUEUE } : null,
      summaries: llm ? { model: llm.model, task_queue: cfg.SUMMARY_TASK_QUEUE } : null,
    },
    'worker running',
  );
  await Promise.all([worker.run(), embeddingWorker?.run(), summaryWorker?.run()]);
  // No activity runs any more: this process's own scratch folder goes too.
  await clearIdleScratch();
  await stopStarter();
  await clientConnection.close();
  await outbound.close();
  await closeDb();
  await connection.close();
  await tracing?.shutdown();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
