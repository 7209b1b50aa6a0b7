import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { jsonColumn } from '../../domain/db';
import { renderTranscriptBody } from '../../domain/transcripts/view';
import { longTranscript } from '../../test/unit/exports/fixtures';
import { type BenchContext, type BenchSection, ms, pct, timed } from '../harness';

export const exportsSection: BenchSection = {
  name: 'exports',
  async run(ctx: BenchContext) {
    const { out } = ctx;
    // --- exports (their own script, one process per transcript kind, same run)
    for (const fixture of ['captions', 'asr']) {
      try {
        const exportOut = execFileSync(
          process.execPath,
          [require.resolve('tsx/cli'), path.join(__dirname, '..', 'export.bench.ts'), '--fixture', fixture],
          { encoding: 'utf8' },
        );
        out(exportOut.trim());
        out();
      } catch (e) {
        out(`(export benchmark ${fixture} failed: ${(e as Error).message})`);
      }
    }
    await exportThroughApi(ctx);
  },
};

/**
 * The word-timed json export through the API, read from PostgreSQL and sent: a transcript with its stored
 * rendering, and the same transcript without one (as written before renderings: serialised on the read),
 * beside an authenticated GET and the raw read of the rendering's row.
 */
async function exportThroughApi(ctx: BenchContext): Promise<void> {
  const { api, base, bearer, out } = ctx;
  // Fresh workspaces, taken in turn, each with its pair of transcripts: 135 reads stay inside the read limits.
  const owners = await ctx.makeWorkspaces(4);
  const db = api.deps.db;
  const t = longTranscript({ words: true });
  const write = async (ws: (typeof owners)[number], rendered: boolean) => {
    const id = randomUUID();
    const row = await db.transcript.create({
      data: {
        id,
        workspaceId: ws.workspaceId,
        jobId: randomUUID(),
        reuseKey: `bench-${id}`,
        platform: 'upload',
        mediaId: id,
        title: t.source.title,
        sourceOrigin: 'speech_recognition',
        language: 'en',
        text: t.text,
        segments: jsonColumn(t.segments),
        words: jsonColumn(t.words!),
        timingGranularity: 'word',
        durationSeconds: t.duration_seconds,
        extractionVersion: 'bench',
        publishedAt: new Date(),
        expiresAt: new Date(Date.now() + 86400_000),
      },
    });
    if (rendered) await db.transcriptRendering.create({ data: { transcriptId: id, body: renderTranscriptBody(row) } });
    return id;
  };
  const pairs: { ws: (typeof owners)[number]; rendered: string; unrendered: string }[] = [];
  for (const ws of owners) pairs.push({ ws, rendered: await write(ws, true), unrendered: await write(ws, false) });
  let pair = pairs[0]!;
  const get = (url: string) =>
    timed(() =>
      fetch(url, { headers: bearer(pair.ws.apiKey) }).then(async (r) => {
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
      }),
    ).then(([ms]) => ms);
  const rows: { name: string; times: number[]; run: () => Promise<number> }[] = [
    { name: 'GET /v1/usage (authenticated GET, baseline)', times: [], run: () => get(`${base}/v1/usage`) },
    {
      name: 'SELECT body FROM transcript_renderings (the raw read of the 1.8 MB row, baseline)',
      times: [],
      run: () =>
        timed(() => api.deps.pool.query('SELECT body FROM transcript_renderings WHERE transcript_id = $1', [pair.rendered])).then(
          ([ms]) => ms,
        ),
    },
    {
      name: 'GET …/export?format=json, from its stored rendering',
      times: [],
      run: () => get(`${base}/v1/transcripts/${pair.rendered}/export?format=json`),
    },
    {
      name: 'GET …/export?format=json, serialised on the read (a transcript written before renderings)',
      times: [],
      run: () => get(`${base}/v1/transcripts/${pair.unrendered}/export?format=json`),
    },
  ];
  for (let round = 0; round < 45; round++) {
    pair = pairs[round % pairs.length]!;
    for (const row of rows) {
      const took = await row.run();
      if (round >= 5) row.times.push(took);
    }
  }
  out(`## The word-timed json export through the API (two hours, 23,525 words, 1.8 MB; 40 rounds after 5 warm-up, interleaved)`);
  out();
  out(`| | p50 | p99 |`);
  out(`|---|---|---|`);
  for (const row of rows) out(`| ${row.name} | ${ms(pct(row.times, 50))} | ${ms(pct(row.times, 99))} |`);
  out();
  await db.transcript.deleteMany({ where: { id: { in: pairs.flatMap((p) => [p.rendered, p.unrendered]) } } });
}
