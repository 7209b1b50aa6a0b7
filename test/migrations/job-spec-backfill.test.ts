import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { JOB_SPEC_DEFAULTS } from '../../domain/schemas/jobs';
import { specOfJob } from '../../domain/jobs/spec';

// The migration to one job spec (20261129120000_job_spec) writes each existing job's options into `spec` from the
// columns it drops: on a database of its own, migrated to just before it, holding jobs written the old way.

const MIGRATIONS = path.resolve(__dirname, '../../prisma/migrations');
const SPEC_MIGRATION = '20261129120000_job_spec';

describe('the job spec migration', () => {
  const database = `spec_backfill_${randomUUID().replace(/-/g, '')}`;
  let admin: Client;
  let db: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    db = new Client({ connectionString: url.toString() });
    await db.connect();
    const before = fs
      .readdirSync(MIGRATIONS, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name < SPEC_MIGRATION)
      .map((d) => d.name)
      .sort();
    for (const name of before) await db.query(fs.readFileSync(path.join(MIGRATIONS, name, 'migration.sql'), 'utf8'));
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
  });

  it("writes every job's options into spec, as the API echoed them, and drops the columns", async () => {
    const workspace = randomUUID();
    await db.query(`INSERT INTO workspaces (id, name, retention_days) VALUES ($1, 'w', 30)`, [workspace]);
    const insert = (columns: Record<string, unknown>) => {
      const row = {
        id: randomUUID(),
        workspace_id: workspace,
        platform: 'videosite',
        media_id: 'abcdefghijk',
        reuse_key: randomUUID(),
        billing_kind: 'captions',
        workflow_id: `job-${randomUUID()}`,
        updated_at: new Date(),
        ...columns,
      };
      const names = Object.keys(row);
      return db
        .query(
          `INSERT INTO jobs (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
          Object.values(row),
        )
        .then((r) => r.rows[0].id as string);
    };
    const captions = await insert({
      mode: 'captions_only',
      caption_languages: ['de', 'en'],
      caption_preference: 'creator_only',
      word_timing: true,
    });
    const recognised = await insert({
      mode: 'transcribe',
      platform: 'upload',
      caption_languages: [],
      caption_preference: 'prefer_creator',
      language: 'pt',
      recognition_profile: 'fast',
      vocabulary: ['Quilter'],
      speaker_labels: true,
      speakers_expected: 2,
      align_text_chars: null,
      billing_kind: 'ai_transcription',
    });
    const aligned = await insert({
      mode: 'transcribe',
      caption_languages: null,
      caption_preference: 'prefer_creator',
      align_text_chars: 42,
    });

    await db.query(fs.readFileSync(path.join(MIGRATIONS, SPEC_MIGRATION, 'migration.sql'), 'utf8'));

    const { rows } = await db.query('SELECT id, spec FROM jobs');
    const spec = (id: string) => specOfJob(rows.find((r) => r.id === id)!);
    expect(spec(captions)).toEqual({
      ...JOB_SPEC_DEFAULTS,
      mode: 'captions_only',
      caption_languages: ['de', 'en'],
      caption_preference: 'creator_only',
      word_timing: true,
    });
    expect(spec(recognised)).toEqual({
      ...JOB_SPEC_DEFAULTS,
      mode: 'transcribe',
      language: 'pt',
      profile: 'fast',
      vocabulary: ['Quilter'],
      speaker_labels: true,
      speakers_expected: 2,
    });
    expect(spec(aligned)).toEqual({ ...JOB_SPEC_DEFAULTS, mode: 'transcribe', align_text_chars: 42 });
    const { rows: columns } = await db.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'jobs' AND column_name IN ('speaker_labels', 'vocabulary', 'language', 'caption_languages')`,
    );
    expect(columns).toEqual([]);
    await expect(db.query(`UPDATE jobs SET spec = '[]'::jsonb WHERE id = $1`, [captions])).rejects.toThrow(/jobs_spec_object/);
  });
});
