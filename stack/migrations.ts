/**
 * The migrations command line (the library is prisma/migrate.ts):
 *
 *   tsx stack/migrations.ts create <name> [--empty]   new migration from schema.prisma changes
 *                                                     (--empty: blank one for hand-written SQL)
 *   tsx stack/migrations.ts apply                     apply pending migrations to DATABASE_URL
 *   tsx stack/migrations.ts status                    compare the folder with the database
 *
 * Without DATABASE_URL these use the dev PostgreSQL (.data/dev-postgres),
 * starting it if needed. `create` needs a server too: the engine replays the
 * existing migrations into a temporary "shadow" database to know where they
 * lead, then diffs that against schema.prisma.
 */
import { applyMigrations, createMigration, migrationStatus } from '../prisma/migrate';

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const usage = 'usage: tsx stack/migrations.ts create <name> [--empty] | apply | status';
  if (!['create', 'apply', 'status'].includes(command)) throw new Error(usage);

  // Imported here so that importing applyMigrations() stays light.
  const { startPostgres } = await import('./postgres');
  const pg = await startPostgres({ dataDir: '.data/dev-postgres', port: 54329 });
  const stopAndExit = (code: number) => pg.stop().finally(() => process.exit(code));
  process.on('SIGINT', () => void stopAndExit(130));
  process.on('SIGTERM', () => void stopAndExit(143));
  try {
    if (command === 'create') {
      const name = rest.find((a) => !a.startsWith('--'));
      if (!name) throw new Error(usage);
      // Prisma's CLI turns the name into a snake_case slug the same way.
      const slug = name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '');
      const created = await createMigration(pg.url, slug, rest.includes('--empty'));
      console.log(created ? `created prisma/migrations/${created}/migration.sql` : 'schema.prisma has no changes: no migration created');
    } else if (command === 'apply') {
      const applied = await applyMigrations(pg.url);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
    } else {
      console.log(JSON.stringify(await migrationStatus(pg.url), null, 2));
    }
  } finally {
    await pg.stop();
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
