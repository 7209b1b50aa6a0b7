// First, so that every module after it is compiled once and reused at the next start.
import '../integrations/compile-cache';
import { config } from '../domain/config';
import { createApp } from './app';
import { createHttpServer } from './http/server';
import { createDrain } from './http/drain';
import { connectAppDeps } from './wiring';
import { applyMigrations } from '../prisma/migrate';
import { installTracing } from '../integrations/telemetry/tracing';

/** How long a stopping API process lets requests in flight finish: past the longest long poll (25 s), inside the usual 30 s a platform waits before SIGKILL. */
const SHUTDOWN_GRACE_MS = 28_000;

// The API process: stateless; any number can run behind a load balancer.
async function main() {
  const cfg = config();
  // Before any client is built: the Temporal client takes its interceptors at construction.
  const tracing = installTracing('transcript-api');
  await applyMigrations(cfg.DATABASE_URL);
  const drain = createDrain();
  const { deps, close } = await connectAppDeps(cfg, { overrides: { stopping: drain.signal } });
  const server = createHttpServer(createApp(deps, { drain }), deps).listen(cfg.PORT, () =>
    deps.logger.info({ port: cfg.PORT, base_url: deps.baseUrl }, 'api listening'),
  );
  // SIGTERM (a deploy, a scale-in): readiness false and new requests 503 with Retry-After at once, waits in
  // flight (long polls, upload verification) answer what they have (drain.signal), the requests in flight
  // finish within the bound, then the process exits.
  const shutdown = async (signal: string) => {
    if (drain.draining) return;
    drain.begin();
    deps.logger.info({ signal, in_flight: drain.inFlight }, 'api draining');
    const finished = await drain.settled(SHUTDOWN_GRACE_MS);
    server.close();
    server.closeAllConnections();
    await close();
    await tracing?.shutdown();
    deps.logger.info({ finished_in_flight: finished }, 'api stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
