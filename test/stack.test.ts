/**
 * Smoke test of the stack that stack/test.sh starts: the fresh database is
 * migrated (tables, migration history, credit CHECK constraints) and the
 * Temporal dev server answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { Client } from 'pg';
import { builtGoToolVersion } from '../stack/go-tool';
import { createDatabase, dropDatabase } from '../stack/postgres';
import { pendingSchemaChanges } from '../prisma/migrate';
import { PLAN_IDS } from '../core/plans';
import { DISCOVERY_KINDS } from '../domain/schemas/discoveries';
import { PLATFORMS } from '../domain/schemas/jobs';
import { UPLOAD_STATUSES } from '../domain/uploads/uploads';
import { JOB_STAGES } from '../workflows/definitions';
import { ensureStripeMock, STRIPE_MOCK_VERSION } from '../stack/stripe-mock';
import { spawnSync } from 'node:child_process';
import { freePort, portOpen, ROOT } from '../stack/proc';

describe('test stack', () => {
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(() => db.end());

  it('runs every test against a fresh, migrated database', async () => {
    const { rows: tables } = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    const names = tables.map((t) => t.table_name);
    for (const t of [
      'workspaces',
      'users',
      'jobs',
      'transcripts',
      'credit_accounts',
      'credit_holds',
      'rate_limits',
      '_prisma_migrations',
    ]) {
      expect(names).toContain(t);
    }
    // Every folder in prisma/migrations is applied, in order, and finished.
    const folders = fs
      .readdirSync(path.join(__dirname, '../prisma/migrations'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const { rows: migrations } = await db.query('SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name');
    expect(migrations.map((m) => m.migration_name)).toEqual(folders);
    expect(folders[0]).toMatch(/^\d{14}_init$/);
    expect(migrations.every((m) => m.finished_at !== null)).toBe(true);
  });

  it('the migrations lead exactly to prisma/schema.prisma (no drift; hand-written migrations included)', async () => {
    expect(await pendingSchemaChanges(process.env.DATABASE_URL!)).toBeNull();
  }, 120_000);

  it('each enum type holds exactly the values the code validates with', async () => {
    // Each enum's labels are what the code writes (the TypeScript sets it validates with).
    const { rows } = await db.query<{ typname: string; labels: string[] }>(
      `SELECT t.typname, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname`,
    );
    const labels = Object.fromEntries(rows.map((r) => [r.typname, r.labels]));
    expect(labels.JobStage).toEqual([...JOB_STAGES]);
    expect(labels.Platform).toEqual([...PLATFORMS]);
    expect(labels.JobMode).toEqual(['captions_only', 'auto', 'transcribe']);
    expect(labels.VideoDiscoveryKind).toEqual([...DISCOVERY_KINDS]);
    expect(labels.UploadStatus).toEqual([...UPLOAD_STATUSES]);
    expect(labels.Plan).toEqual([...PLAN_IDS]);
  });

  it('the closed-sets migration keeps the rows it converts: every stored string becomes the same enum label', async () => {
    // A database at the migration before, with rows written as the code wrote them, then the migration itself.
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `${url.pathname}_closed_${process.pid}`;
    await createDatabase(url.toString());
    const c = new Client({ connectionString: url.toString() });
    await c.connect();
    try {
      const dir = path.join(__dirname, '../prisma/migrations');
      const folders = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort();
      const at = folders.indexOf('20261125160000_closed_sets');
      expect(at).toBeGreaterThan(0);
      for (const f of folders.slice(0, at)) await c.query(fs.readFileSync(path.join(dir, f, 'migration.sql'), 'utf8'));
      const ws = (
        await c.query<{ id: string }>("INSERT INTO workspaces (id, name, retention_days) VALUES (gen_random_uuid(), 'w', 30) RETURNING id")
      ).rows[0]!.id;
      await c.query(
        `INSERT INTO jobs (id, workspace_id, status, stage, mode, caption_preference, platform, media_id, reuse_key, billing_kind, workflow_id, updated_at)
         VALUES (gen_random_uuid(), $1, 'processing', 'acquire_audio', 'transcribe', 'creator_only', 'shortvideo', 'm', 'k', 'ai_transcription', 'job-x', now())`,
        [ws],
      );
      await c.query(
        `INSERT INTO video_discoveries (id, workspace_id, kind, request, cache_key, status, updated_at, expires_at)
         VALUES (gen_random_uuid(), $1, 'videosite_playlist_videos', '{}', 'c', 'processing', now(), now())`,
        [ws],
      );
      await c.query(fs.readFileSync(path.join(dir, folders[at]!, 'migration.sql'), 'utf8'));
      const job = (
        await c.query(
          'SELECT stage::text, mode::text, caption_preference::text, platform::text, billing_kind::text, pg_typeof(stage)::text AS type FROM jobs',
        )
      ).rows[0];
      expect(job).toEqual({
        stage: 'acquire_audio',
        mode: 'transcribe',
        caption_preference: 'creator_only',
        platform: 'shortvideo',
        billing_kind: 'ai_transcription',
        type: '"JobStage"',
      });
      const disc = (await c.query('SELECT kind::text, status::text FROM video_discoveries')).rows[0];
      expect(disc).toEqual({ kind: 'videosite_playlist_videos', status: 'processing' });
    } finally {
      await c.end();
      await dropDatabase(url.toString());
    }
  }, 60_000);

  it('rejects a credit account whose reservations exceed its balance', async () => {
    await db.query('BEGIN');
    try {
      const { rows } = await db.query<{ id: string }>(
        "INSERT INTO workspaces (id, name, retention_days) VALUES (gen_random_uuid(), 'check', 30) RETURNING id",
      );
      const insert = (period: number, prepaid: number, reserved: number) =>
        db.query(
          `INSERT INTO credit_accounts (workspace_id, period_credits, period_total, prepaid_credits, reserved, period_start, period_end, updated_at)
           VALUES ($1, $2, $2, $3, $4, now(), now() + interval '30 days', now())`,
          [rows[0].id, period, prepaid, reserved],
        );
      await db.query('SAVEPOINT s');
      await expect(insert(5, 5, 11)).rejects.toThrow(/credit_accounts_reserved_covered_check/);
      await db.query('ROLLBACK TO SAVEPOINT s');
      await expect(insert(-1, 5, 0)).rejects.toThrow(/credit_accounts_period_credits_check/);
      await db.query('ROLLBACK TO SAVEPOINT s');
      await expect(insert(5, 5, 10)).resolves.toBeDefined();
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it('reaches the Temporal server with its default namespace', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    try {
      const ns = await connection.workflowService.describeNamespace({ namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
      expect(ns.namespaceInfo?.name).toBe('default');
    } finally {
      await connection.close();
    }
  });
});

describe('a stack whose start fails part way (stack/throwaway-stack.ts)', () => {
  it('stops what it started: PostgreSQL, Temporal, stripe-mock and the recognizer, none left behind', async () => {
    const [pgPort, temporalPort] = [await freePort(), await freePort()];
    // Servers of its own: without these a stack uses the ones they name (this suite's).
    const env = { ...process.env };
    for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'STRIPE_API_BASE', 'TEMPORAL_SERVER']) delete env[k];
    const run = spawnSync(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      [path.join(ROOT, 'test/support/failing-stack.ts'), String(pgPort), String(temporalPort)],
      { env, encoding: 'utf8', timeout: 150_000 },
    );
    const outcome = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { error: string | null; left: string[]; files: string[] };
    // It failed where it should (the recognizer, the last step, after every server was up) and left nothing.
    expect(outcome.error).toMatch(/recognizer/);
    expect(outcome.left).toEqual([]);
    expect(outcome.files).toEqual([]);
    expect({ postgres: await portOpen(pgPort), temporal: await portOpen(temporalPort) }).toEqual({ postgres: false, temporal: false });
  }, 180_000);
});

describe('a stack with servers of its own (stack/throwaway-stack.ts, ownServers)', () => {
  it('starts its own PostgreSQL and Temporal server when the environment names another stack’s', async () => {
    const [pgPort, temporalPort] = [await freePort(), await freePort()];
    // This suite's DATABASE_URL and TEMPORAL_ADDRESS stay: the stack is to start servers of its own anyway.
    const env = { ...process.env };
    delete env.TEMPORAL_SERVER;
    const run = spawnSync(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      [path.join(ROOT, 'test/support/own-servers-stack.ts'), String(pgPort), String(temporalPort)],
      { env, encoding: 'utf8', timeout: 150_000 },
    );
    const outcome = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      dbUrl: string;
      temporalAddress: string;
      started: { postgres: boolean; temporal: boolean };
      children: { postgres: boolean; temporal: boolean };
    };
    expect(process.env.DATABASE_URL).toBeTruthy();
    expect(process.env.TEMPORAL_ADDRESS).toBeTruthy();
    expect(new URL(outcome.dbUrl).port).toBe(String(pgPort));
    expect(outcome.temporalAddress).toBe(`127.0.0.1:${temporalPort}`);
    expect(outcome.started).toEqual({ postgres: true, temporal: true });
    // The pids it reports are of the servers it runs (their CPU is what a bench reads).
    expect(outcome.children).toEqual({ postgres: true, temporal: true });
    expect({ postgres: await portOpen(pgPort), temporal: await portOpen(temporalPort) }).toEqual({ postgres: false, temporal: false });
  }, 180_000);
});

describe('the Go-built servers (stack/go-tool.ts)', () => {
  it('reads the pinned module version stamped into a binary, so a stale build is rebuilt', () => {
    // The test stack runs stripe-mock, so this finds it built (or builds it once).
    const bin = ensureStripeMock();
    expect(builtGoToolVersion({ bin, modulePath: 'github.com/stripe/stripe-mock' })).toBe(STRIPE_MOCK_VERSION);
    // The binary of another module, or none at all, names no version of this one.
    expect(builtGoToolVersion({ bin, modulePath: 'github.com/minio/minio' })).toBeUndefined();
    expect(
      builtGoToolVersion({ bin: path.join(path.dirname(bin), 'absent'), modulePath: 'github.com/stripe/stripe-mock' }),
    ).toBeUndefined();
  });
});
