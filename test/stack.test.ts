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
import { ensureStripeMock, STRIPE_MOCK_VERSION } from '../stack/stripe-mock';

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
