import { config } from '../domain/config';
import { createApp } from './app';
import { createHttpServer } from './http/server';
import { connectAppDeps } from './wiring';
import { applyMigrations } from '../prisma/migrate';

// The API process: stateless; any number can run behind a load balancer.
async function main() {
  const cfg = config();
  await applyMigrations(cfg.DATABASE_URL);
  const { deps, close } = await connectAppDeps(cfg);
  const server = createHttpServer(createApp(deps)).listen(cfg.PORT, () =>
    deps.logger.info({ port: cfg.PORT, base_url: deps.baseUrl }, 'api listening'),
  );
  const shutdown = async () => {
    server.close();
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
