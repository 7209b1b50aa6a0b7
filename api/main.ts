import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { addressPolicy, config, objectStoreSettings, recognizerSettings } from '../domain/config';
import { createDb } from '../domain/db';
import { JobWakeups } from '../domain/jobs/wakeups';
import { resolveSecretsKey } from '../domain/secrets-key';
import { createApp } from './app';
import { createHttpServer } from './http/server';
import { selectRecognizers } from '../integrations/recognizers/select';
import { createObjectStore } from '../integrations/storage';
import { RateLimits } from './http/rate-limit';
import { applyMigrations } from '../prisma/migrate';

// The API process: stateless; any number can run behind a load balancer.
async function main() {
  const cfg = config();
  const logger = pino({
    level: cfg.LOG_LEVEL,
    base: { service: 'api' },
    redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret'],
  });
  await applyMigrations(cfg.DATABASE_URL);
  const { prisma, pool } = createDb(cfg.DATABASE_URL);
  const connection = await Connection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE });
  const wakeups = new JobWakeups(pool);
  await wakeups.start();
  const baseUrl = cfg.PUBLIC_BASE_URL ?? `http://127.0.0.1:${cfg.PORT}`;
  const objectStore = createObjectStore(objectStoreSettings(cfg));
  await objectStore.ensureBucket();
  const recognizers = selectRecognizers(recognizerSettings(cfg));
  const app = createApp({
    config: cfg,
    db: prisma,
    pool,
    temporal,
    logger,
    rateLimits: new RateLimits(pool),
    wakeups,
    secretsKey: resolveSecretsKey(cfg),
    baseUrl,
    addressPolicy: addressPolicy(cfg),
    objectStore,
    recognizer: recognizers.active,
    cloudRecognizer: recognizers.cloud,
  });
  const server = createHttpServer(app).listen(cfg.PORT, () => logger.info({ port: cfg.PORT, base_url: baseUrl }, 'api listening'));
  const shutdown = async () => {
    server.close();
    await wakeups.close();
    await connection.close();
    await prisma.$disconnect();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
