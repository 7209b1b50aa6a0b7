import request from 'supertest';
import { embedPendingMoments } from '../domain/search/embeddings';
import { fuseByRank } from '../domain/search/query';
import { E5_MODEL, type TextEmbedder } from '../integrations/embeddings/e5';
import { bearer, createWorkspace, startTestApi, type TestApi, type TestWorkspace } from './support/harness';
import { publishedTranscript, type TestSegment } from './support/transcripts';

// Issue 52: search by meaning. The real model (multilingual-e5-small, stack/search-setup.sh) embeds the moments in
// the real PostgreSQL with pgvector; semantic search finds a moment said in another language and in other words,
// hybrid keeps the exact phrase first too, and the embedding follower writes the vectors whole, again after a
// change of model, never across workspaces.

let api: TestApi;
let ws: TestWorkspace;
let embedder: TextEmbedder;

beforeAll(async () => {
  api = await startTestApi();
  expect(api.deps.embedder).not.toBeNull();
  embedder = api.deps.embedder!;
  ws = await createWorkspace(api.deps, { plan: 'pro' });
}, 60_000);
afterAll(async () => api?.close());

const search = (w: TestWorkspace, query: Record<string, string | number>) =>
  request(api.app).get('/v1/search').query(query).set(bearer(w.apiKey));

/** Every moment of `w` embedded, as the follower embeds them (other files' moments are theirs to embed). */
async function embedAll(w: TestWorkspace, using: TextEmbedder = embedder): Promise<void> {
  for (let i = 0; i < 500; i++) if ((await embedPendingMoments(api.deps.db, using, { workspaceId: w.workspaceId })).embedded === 0) return;
  throw new Error('moments kept waiting');
}

/** Talks on unrelated subjects, one moment each (a segment of 12 s closes a window). */
const TALKS: Record<string, TestSegment[]> = {
  bread: [{ start: 0, end: 12, text: 'Let the dough rest overnight in the fridge, then bake the loaf in a very hot oven.' }],
  storm: [{ start: 0, end: 12, text: 'The hurricane made landfall at dawn and thousands of homes lost electricity.' }],
  chess: [{ start: 0, end: 12, text: 'White sacrificed the queen on move twenty and forced checkmate three moves later.' }],
  sleep: [{ start: 0, end: 12, text: 'Adults who sleep fewer than six hours a night are more likely to catch a cold.' }],
  taxes: [{ start: 0, end: 12, text: 'The new tax on imported steel will be paid by manufacturers starting in January.' }],
};

describe('search by meaning', () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    for (const [name, segments] of Object.entries(TALKS)) ids[name] = await publishedTranscript(api.deps.db, ws.workspaceId, segments);
    await embedAll(ws);
  }, 120_000);

  it('stores each vector with the model that made it', async () => {
    const rows = await api.deps.db.$queryRaw<{ model: string | null; dims: number | null }[]>`
      SELECT m.embedding_model AS model, vector_dims(e.embedding) AS dims
      FROM transcript_moments m LEFT JOIN moment_embeddings e USING (transcript_id, seq) WHERE m.workspace_id = ${ws.workspaceId}::uuid`;
    expect(rows).toHaveLength(5);
    for (const r of rows) expect(r).toEqual({ model: E5_MODEL, dims: 384 });
  });

  it('finds a moment asked about in another language and in other words (semantic)', async () => {
    const cases: [string, string][] = [
      ['¿Cuánto tiempo hay que dejar reposar la masa del pan?', 'bread'],
      ['Quel temps de sommeil faut-il pour ne pas tomber malade ?', 'sleep'],
      ['Wer bezahlt die Zölle auf Stahl?', 'taxes'],
      ['power outages after the storm', 'storm'],
      ['a brilliant sacrifice in a board game', 'chess'],
    ];
    for (const [q, talk] of cases) {
      const res = await search(ws, { q, mode: 'semantic' });
      expect(res.status).toBe(200);
      expect(res.body.mode).toBe('semantic');
      expect(res.body.moments[0].transcript_id).toBe(ids[talk]);
      // Every moment of the workspace is a neighbour of some rank, best first.
      const scores = res.body.moments.map((m: { score: number }) => m.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  it('keyword misses the paraphrase that semantic and hybrid find; hybrid keeps the exact words first too', async () => {
    const paraphrase = 'how long should bread dough rise';
    expect((await search(ws, { q: paraphrase, mode: 'keyword' })).body.moments).toHaveLength(0);
    const hybrid = await search(ws, { q: paraphrase });
    expect(hybrid.body.mode).toBe('hybrid');
    expect(hybrid.body.moments[0].transcript_id).toBe(ids.bread);
    const exact = await search(ws, { q: '"imported steel"' });
    expect(exact.body.moments[0].transcript_id).toBe(ids.taxes);
    expect(exact.body.moments[0].highlighted_text).toContain('<mark>imported</mark> <mark>steel</mark>');
  });

  it("never answers another workspace's moments, the same transcript included", async () => {
    const other = await createWorkspace(api.deps, { plan: 'pro' });
    const theirs = await publishedTranscript(api.deps.db, other.workspaceId, TALKS.chess!);
    await embedAll(other);
    for (const mode of ['semantic', 'hybrid']) {
      const mine = (await search(ws, { q: 'queen sacrifice', mode })).body.moments.map((m: { transcript_id: string }) => m.transcript_id);
      expect(mine).toContain(ids.chess);
      expect(mine).not.toContain(theirs);
      const them = (await search(other, { q: 'queen sacrifice', mode })).body.moments.map(
        (m: { transcript_id: string }) => m.transcript_id,
      );
      expect(them).toEqual([theirs]);
    }
  });

  it('never finds a deleted transcript by meaning', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    const gone = await publishedTranscript(api.deps.db, w.workspaceId, TALKS.storm!);
    await embedAll(w);
    expect((await search(w, { q: 'blackout after a hurricane', mode: 'semantic' })).body.moments).toHaveLength(1);
    expect((await request(api.app).delete(`/v1/transcripts/${gone}`).set(bearer(w.apiKey))).status).toBe(202);
    for (const mode of ['semantic', 'hybrid'])
      expect((await search(w, { q: 'blackout after a hurricane', mode })).body.moments).toHaveLength(0);
  });

  it('pages semantic results with a cursor of its own mode', async () => {
    const first = await search(ws, { q: 'news', mode: 'semantic', limit: 2 });
    expect(first.body.moments).toHaveLength(2);
    const second = await search(ws, { q: 'news', mode: 'semantic', limit: 2, cursor: first.body.next_cursor });
    expect(second.status).toBe(200);
    const seen = [...first.body.moments, ...second.body.moments].map((m: { transcript_id: string }) => m.transcript_id);
    expect(new Set(seen).size).toBe(4);
    // The cursor of one mode is not another's.
    const other = await search(ws, { q: 'news', mode: 'keyword', limit: 2, cursor: first.body.next_cursor });
    expect(other.status).toBe(422);
    expect(other.body.error.details.detail).toBe('cursor');
  });
});

describe('the embedding step', () => {
  it('writes a batch whole or not at all: an embedder that fails mid-batch leaves no vector and no lock', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    const id = await publishedTranscript(api.deps.db, w.workspaceId, [
      ...TALKS.bread!,
      { start: 12, end: 24, text: 'Shape it gently so the air stays in.' },
    ]);
    let calls = 0;
    const failing: TextEmbedder = {
      ...embedder,
      embedPassages: async (texts) => {
        calls++;
        await embedder.embedPassages(texts);
        throw new Error('worker killed');
      },
    };
    await expect(embedPendingMoments(api.deps.db, failing, { workspaceId: w.workspaceId })).rejects.toThrow('worker killed');
    expect(calls).toBe(1);
    const vectors = () =>
      api.deps.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM moment_embeddings WHERE transcript_id = ${id}::uuid`;
    expect((await vectors())[0]!.n).toBe(0);
    await embedAll(w);
    expect((await vectors())[0]!.n).toBe(2);
  });

  it('writes the vectors again after a change of model', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    const id = await publishedTranscript(api.deps.db, w.workspaceId, TALKS.sleep!);
    await embedAll(w);
    const model = async () =>
      (
        await api.deps.db.$queryRaw<
          { model: string }[]
        >`SELECT embedding_model AS model FROM transcript_moments WHERE transcript_id = ${id}::uuid`
      )[0]!.model;
    expect(await model()).toBe(E5_MODEL);
    const newer: TextEmbedder = { ...embedder, model: 'multilingual-e5-small-q4@test-next' };
    await embedAll(w, newer);
    expect(await model()).toBe(newer.model);
    // And back: every vector of another model is written again.
    await embedAll(w);
    expect(await model()).toBe(E5_MODEL);
  }, 120_000);
});

describe('reciprocal rank fusion', () => {
  it('puts first what both rankings hold high, and keeps what only one has', () => {
    const m = (id: string) => ({ transcript_id: id, seq: 0, score: 0 });
    const fused = fuseByRank([
      [m('a'), m('b'), m('c')],
      [m('b'), m('d'), m('a')],
    ]);
    expect(fused.map((p) => p.transcript_id)).toEqual(['b', 'a', 'd', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61);
  });
});
