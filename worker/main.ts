import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pino from 'pino';
import { createActivities } from '../activities';
import { config } from '../domain/config';
import { createDb } from '../domain/db';
import { applyMigrations } from '../stack/migrations';
import { TASK_QUEUE } from '../workflows/definitions';

// The worker process: runs workflows and activities from the task queue. Scale
// out by starting more of them; Temporal spreads the work.
async function main() {
  const cfg = config();
  const logger = pino({ level: cfg.LOG_LEVEL, base: { service: 'worker' } });
  const metricsPort = Number(process.env.WORKER_METRICS_PORT ?? 9464);
  // Temporal's own Prometheus metrics (workflow/activity counts and latencies).
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `0.0.0.0:${metricsPort}` } } } });
  await applyMigrations(cfg.DATABASE_URL);
  const { prisma } = createDb(cfg.DATABASE_URL);
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    taskQueue: process.env.TEMPORAL_TASK_QUEUE ?? TASK_QUEUE,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ db: prisma }),
  });
  logger.info({ task_queue: TASK_QUEUE, metrics_port: metricsPort }, 'worker running');
  await worker.run();
  await prisma.$disconnect();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
