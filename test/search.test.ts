import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { indexTranscript } from '../domain/search/index';
import { momentsOf, searchConfigOf } from '../domain/search/moments';
import { parseSearchQuery, searchMoments } from '../domain/search/query';
import { searchContext } from '../api/wiring';
import { bearer, createWorkspace, startTestApi, type TestApi, type TestWorkspace } from './support/harness';
import { publishedTranscript, type TestSegment } from './support/transcripts';

// Issue 52, first part: keyword search across a workspace's transcripts (GET /v1/search). Transcripts are
// written here as a job writes them and indexed by the step the job workflow runs (indexTranscript);
// test/search-jobs.test.ts follows a real job from submit to a hit.

let api: TestApi;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  api = await startTestApi();
  ws = await createWorkspace(api.deps, { plan: 'pro' });
  other = await createWorkspace(api.deps, { plan: 'pro' });
}, 60_000);
afterAll(async () => api?.close());

type Seg = TestSegment;

/** A published transcript of `w`, indexed as its job's workflow indexes it. */
const transcript = (w: TestWorkspace, segments: Seg[], opts: Parameters<typeof publishedTranscript>[3] = {}) =>
  publishedTranscript(api.deps.db, w.workspaceId, segments, opts);

/** A keyword search (this file's subject; test/search-meaning.test.ts has the others): unless the query says otherwise. */
const search = (w: TestWorkspace, query: Record<string, string | number>) =>
  request(api.app)
    .get('/v1/search')
    .query({ mode: 'keyword', ...query })
    .set(bearer(w.apiKey));

describe('moments', () => {
  it('are windows of consecutive segments of one speaker and language, closed once they hold 10 s, never past 30 s', () => {
    const segs: Seg[] = [
      { start: 0, end: 4, text: 'one' },
      { start: 4, end: 8, text: 'two' },
      { start: 8, end: 12, text: 'three' },
      { start: 12, end: 14, text: 'four' },
      { start: 14, end: 15, text: 'five', speaker: 'B' },
      { start: 15, end: 50, text: 'six', speaker: 'B' },
      { start: 50, end: 51, text: ' ' },
      { start: 51, end: 52, text: 'sete', language: 'pt' },
    ];
    const moments = momentsOf(segs, 'en');
    expect(moments.map((m) => [m.text, m.start, m.end, m.speaker, m.language])).toEqual([
      ['one two three', 0, 12, null, 'en'],
      ['four', 12, 14, null, 'en'],
      ['five', 14, 15, 'B', 'en'],
      ['six', 15, 50, 'B', 'en'],
      ['sete', 51, 52, null, 'pt'],
    ]);
    expect(moments.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(moments[4]!.searchConfig).toBe('search_pt');
  });

  it('are read by their language: stemmed for six languages, characters for those written without spaces', () => {
    expect(['en', 'es-MX', 'FR', 'de', 'pt-BR', 'it'].map(searchConfigOf)).toEqual([
      'search_en',
      'search_es',
      'search_fr',
      'search_de',
      'search_pt',
      'search_it',
    ]);
    expect(['ja', 'ko', 'zh-Hans'].map(searchConfigOf)).toEqual(['search_trigram', 'search_trigram', 'search_trigram']);
    expect([null, 'nl', 'pl'].map(searchConfigOf)).toEqual(['search_simple', 'search_simple', 'search_simple']);
  });

  it('take prefixes apart from the words websearch reads', () => {
    expect(parseSearchQuery('"moon landing" rock* -apollo')).toEqual({
      websearch: '"moon landing"  -apollo',
      prefixes: ['rock'],
      plain: ['moon', 'landing', 'rock'],
    });
  });
});

describe('GET /v1/search', () => {
  let english: string;
  let french: string;
  let japanese: string;

  beforeAll(async () => {
    english = await transcript(ws, [
      { start: 0, end: 6, text: 'We choose to go to the moon in this decade.' },
      { start: 6, end: 12, text: 'Not because it is easy, but because it is hard.' },
      { start: 12, end: 20, text: 'The rockets were talking to the ground stations all night.', speaker: 'B' },
    ]);
    french = await transcript(ws, [{ start: 3, end: 9, text: 'Le café de la gare était fermé à midi.' }], {
      language: 'fr',
      platform: 'upload',
    });
    japanese = await transcript(ws, [{ start: 1, end: 5, text: '今日は東京で会議があります。' }], {
      language: 'ja',
      mediaId: 'jaVideo0001',
    });
  });

  it('finds the moment by a word in another form, marks it, and links to the second it starts at', async () => {
    const res = await search(ws, { q: 'choosing' });
    expect(res.status).toBe(200);
    expect(res.body.moments).toHaveLength(1);
    const m = res.body.moments[0];
    expect(m).toMatchObject({
      transcript_id: english,
      source: { platform: 'videosite', media_id: 'rCAS2eD-mcw', title: 'A talk' },
      start: 0,
      end: 12,
      speaker: null,
      language: 'en',
      link: 'https://www.youtube.com/watch?v=rCAS2eD-mcw&t=0',
    });
    expect(m.text).toBe('We choose to go to the moon in this decade. Not because it is easy, but because it is hard.');
    expect(m.highlighted_text).toContain('<mark>choose</mark>');
    expect(m.score).toBeGreaterThan(0);
    expect(res.body.next_cursor).toBeNull();
  });

  it('matches a phrase in order only, a prefix, and leaves out excluded words', async () => {
    expect((await search(ws, { q: '"go to the moon"' })).body.moments).toHaveLength(1);
    expect((await search(ws, { q: '"moon the to go"' })).body.moments).toHaveLength(0);
    const prefix = await search(ws, { q: 'rock*' });
    expect(prefix.body.moments.map((m: { start: number; speaker: string }) => [m.start, m.speaker])).toEqual([[12, 'B']]);
    expect(prefix.body.moments[0].highlighted_text).toContain('<mark>rockets</mark>');
    expect((await search(ws, { q: 'rockets -ground' })).body.moments).toHaveLength(0);
  });

  it('folds accents both ways and stems in the moment’s own language', async () => {
    const found: Record<string, string[]> = {};
    // 'fermée' matches 'fermé' through the stems read with accents (folded first, 'fermee' has another stem).
    for (const q of ['cafe', 'café', 'fermée', 'GARE', 'gares']) {
      found[q] = (await search(ws, { q })).body.moments.map((m: { transcript_id: string }) => m.transcript_id);
    }
    expect(found).toEqual({ cafe: [french], café: [french], fermée: [french], GARE: [french], gares: [french] });
    const m = (await search(ws, { q: 'cafe' })).body.moments[0];
    expect(m.highlighted_text).toContain('<mark>café</mark>');
    // An upload plays from the service's own signed link, at the moment's second.
    expect(m.link).toMatch(new RegExp(`/media/transcripts/${french}\\?expires=\\d+&signature=[0-9a-f]{64}#t=3$`));
  });

  it('matches Japanese by its characters', async () => {
    const res = await search(ws, { q: '東京' });
    expect(res.body.moments.map((m: { transcript_id: string }) => m.transcript_id)).toEqual([japanese]);
    expect(res.body.moments[0].highlighted_text).toContain('<mark>東京</mark>');
  });

  it('filters by language, platform, source, speaker and creation time', async () => {
    const ids = async (query: Record<string, string>) =>
      (await search(ws, query)).body.moments.map((m: { transcript_id: string }) => m.transcript_id);
    expect(await ids({ q: 'because OR cafe', language: 'fr' })).toEqual([french]);
    expect(await ids({ q: 'because OR cafe', platform: 'upload' })).toEqual([french]);
    expect(await ids({ q: 'rockets', source_id: 'rCAS2eD-mcw', speaker: 'B' })).toEqual([english]);
    expect(await ids({ q: 'rockets', speaker: 'A' })).toEqual([]);
    expect(await ids({ q: 'rockets', created_before: '2000-01-01' })).toEqual([]);
    expect(await ids({ q: 'rockets', created_after: '2000-01-01T00:00:00Z' })).toEqual([english]);
  });

  it("never answers another workspace's moments, the same video included", async () => {
    const theirs = await transcript(other, [{ start: 0, end: 5, text: 'We choose to go to the moon, said the other workspace.' }]);
    const mine = (await search(ws, { q: 'moon' })).body.moments.map((m: { transcript_id: string }) => m.transcript_id);
    expect(mine).toEqual([english]);
    const their = (await search(other, { q: 'moon' })).body.moments.map((m: { transcript_id: string }) => m.transcript_id);
    expect(their).toEqual([theirs]);
  });

  it('pages with a cursor that holds to its query', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    for (let i = 0; i < 5; i++) await transcript(w, [{ start: i, end: i + 1, text: `Signal number ${i} came through.` }]);
    const first = await search(w, { q: 'signal', limit: 2 });
    expect(first.body.moments).toHaveLength(2);
    const second = await search(w, { q: 'signal', limit: 2, cursor: first.body.next_cursor });
    const third = await search(w, { q: 'signal', limit: 2, cursor: second.body.next_cursor });
    expect(third.body.moments).toHaveLength(1);
    expect(third.body.next_cursor).toBeNull();
    const seen = [...first.body.moments, ...second.body.moments, ...third.body.moments].map(
      (m: { transcript_id: string }) => m.transcript_id,
    );
    expect(new Set(seen).size).toBe(5);
    const moved = await search(w, { q: 'number', limit: 2, cursor: first.body.next_cursor });
    expect(moved.status).toBe(422);
    expect(moved.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'cursor' } });
  });

  it('does not find a deleted transcript, or one still being written', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    const gone = await transcript(w, [{ start: 0, end: 4, text: 'A sentence about zeppelins.' }]);
    expect((await search(w, { q: 'zeppelin' })).body.moments).toHaveLength(1);
    const del = await request(api.app).delete(`/v1/transcripts/${gone}`).set(bearer(w.apiKey));
    expect(del.status).toBe(202);
    expect((await search(w, { q: 'zeppelin' })).body.moments).toHaveLength(0);
    expect(await api.deps.db.transcriptMoment.count({ where: { transcriptId: gone } })).toBe(0);
    // Indexed but not published (its job has not finished): not a hit.
    const draft = await transcript(w, [{ start: 0, end: 4, text: 'Zeppelins again.' }]);
    await api.deps.db.transcript.update({ where: { id: draft }, data: { publishedAt: null } });
    expect((await search(w, { q: 'zeppelin' })).body.moments).toHaveLength(0);
  });

  it('finds the visible moment below many better-ranked hidden ones (more than the candidates ranked first)', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    // 80 transcripts still being written, each saying the word three times (ranked above the one visible moment).
    for (let i = 0; i < 80; i++) {
      const draft = await transcript(w, [{ start: 0, end: 5, text: `Quasar, quasar, quasar number ${i}.` }]);
      await api.deps.db.transcript.update({ where: { id: draft }, data: { publishedAt: null } });
    }
    const visible = await transcript(w, [{ start: 0, end: 5, text: 'A quasar is far away, said the astronomer at length.' }]);
    const res = await search(w, { q: 'quasar', limit: 10 });
    expect(res.body.moments.map((m: { transcript_id: string }) => m.transcript_id)).toEqual([visible]);
    expect(res.body.next_cursor).toBeNull();
  });

  it('ranks a bounded number of a common query’s matches, and pages through that same set', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    for (let i = 0; i < 8; i++) await transcript(w, [{ start: i, end: i + 1, text: `Pulsar number ${i} was timed.` }]);
    for (let i = 0; i < 3; i++) await transcript(w, [{ start: i, end: i + 1, text: `今日はパルサー${i}を観測した。` }], { language: 'ja' });
    const ctx = { ...searchContext(api.deps), embedder: null };
    const pageThrough = async (q: string, rankedMatches?: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await searchMoments(api.deps.db, { ...ctx, rankedMatches }, w.workspaceId, { q, mode: 'keyword', limit: 2, cursor });
        seen.push(...page.moments.map((m) => m.transcript_id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return seen;
    };
    expect(await pageThrough('pulsar')).toHaveLength(8);
    // Five ranked of eight matches: the pages hold those five, each once, and end there.
    const bounded = await pageThrough('pulsar', 5);
    expect(bounded).toHaveLength(5);
    expect(new Set(bounded).size).toBe(5);
    // The first page, cut from the candidates, is the start of the same ranking.
    const first = await searchMoments(api.deps.db, { ...ctx, rankedMatches: 5 }, w.workspaceId, { q: 'pulsar', mode: 'keyword', limit: 5 });
    expect(first.moments.map((m) => m.transcript_id)).toEqual(bounded);
    // The languages matched by characters are bounded alike.
    expect(await pageThrough('パルサー')).toHaveLength(3);
    expect(await pageThrough('パルサー', 2)).toHaveLength(2);
  });

  it('ranks and reads a keyword page in one statement, and in a second only when hidden moments leave the first short', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    for (let i = 0; i < 3; i++) await transcript(w, [{ start: i, end: i + 1, text: `Magnetar number ${i} flared.` }]);
    const ctx = { ...searchContext(api.deps), embedder: null };
    const statements = jest.spyOn(api.deps.db, '$queryRaw');
    try {
      const page = await searchMoments(api.deps.db, ctx, w.workspaceId, { q: 'magnetar', mode: 'keyword', limit: 2 });
      expect(page.moments).toHaveLength(2);
      expect(page.moments[0]!.highlighted_text).toContain('<mark>Magnetar</mark>');
      expect(page.next_cursor).not.toBeNull();
      expect(statements).toHaveBeenCalledTimes(1);
      // Every match hidden but one: the candidates come up short, and the full ranking is the second statement.
      const hidden = await api.deps.db.transcript.findMany({ where: { workspaceId: w.workspaceId }, select: { id: true }, take: 2 });
      await api.deps.db.transcript.updateMany({ where: { id: { in: hidden.map((h) => h.id) } }, data: { publishedAt: null } });
      statements.mockClear();
      const last = await searchMoments(api.deps.db, ctx, w.workspaceId, { q: 'magnetar', mode: 'keyword', limit: 2 });
      expect(last.moments).toHaveLength(1);
      expect(last.next_cursor).toBeNull();
      expect(statements).toHaveBeenCalledTimes(2);
    } finally {
      statements.mockRestore();
    }
  });

  it('writes the index whole or not at all, and the same rows when run again', async () => {
    const w = await createWorkspace(api.deps, { plan: 'pro' });
    const id = await transcript(w, [
      { start: 0, end: 12, text: 'First window of words.' },
      { start: 12, end: 24, text: 'Second window of words.' },
    ]);
    const rows = () => api.deps.db.transcriptMoment.findMany({ where: { transcriptId: id }, orderBy: { seq: 'asc' } });
    const before = await rows();
    expect(before).toHaveLength(2);
    expect(await indexTranscript(api.deps.db, id)).toBe(2);
    expect(await rows()).toEqual(before);
    // A write that fails part-way (a trigger refuses the second window, as a killed connection would end it)
    // leaves the moments as they were.
    await api.deps.db.transcript.update({
      where: { id },
      data: {
        segments: [
          { start: 0, end: 12, text: 'Changed first window.', speaker: null, language: null, match: null },
          { start: 12, end: 24, text: 'Refused second window.', speaker: null, language: null, match: null },
        ],
      },
    });
    const fn = `refuse_moment_${randomUUID().replace(/-/g, '')}`;
    await api.deps.db.$executeRawUnsafe(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.text LIKE 'Refused%' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`,
    );
    await api.deps.db.$executeRawUnsafe(`CREATE TRIGGER ${fn} BEFORE INSERT ON transcript_moments FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    try {
      await expect(indexTranscript(api.deps.db, id)).rejects.toThrow(/refused/);
    } finally {
      await api.deps.db.$executeRawUnsafe(`DROP TRIGGER ${fn} ON transcript_moments`);
      await api.deps.db.$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
    }
    expect(await rows()).toEqual(before);
    expect(await indexTranscript(api.deps.db, id)).toBe(2);
    expect((await rows()).map((r) => r.text)).toEqual(['Changed first window.', 'Refused second window.']);
  });

  it('answers an empty workspace with an empty page', async () => {
    const w = await createWorkspace(api.deps, { plan: 'trial' });
    const res = await search(w, { q: 'anything' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mode: 'keyword', moments: [], next_cursor: null });
  });

  it.each([
    [{}, 'q'],
    [{ q: '   ' }, 'q'],
    [{ q: 'x'.repeat(501) }, 'q'],
    [{ q: 'moon', limit: 51 }, 'limit'],
    [{ q: 'moon', limit: 0 }, 'limit'],
    [{ q: 'moon', mode: 'fuzzy' }, 'mode'],
    [{ q: 'moon', platform: 'vimeo' }, 'platform'],
    [{ q: 'moon', language: 'english!' }, 'language'],
    [{ q: 'moon', created_after: 'yesterday' }, 'created_after'],
    [{ q: 'moon', created_after: '2026-02-01', created_before: '2026-01-01' }, 'created_after'],
    [{ q: 'moon', speaker: 'speaker 1' }, 'speaker'],
    [{ q: 'moon', cursor: 'not-a-cursor' }, 'cursor'],
    [{ q: 'moon', sort: 'date' }, 'sort'],
  ])('refuses %j naming %s', async (query, field) => {
    const res = await search(ws, query as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details.detail).toContain(field);
    expect(res.body.error.request_id ?? res.body.request_id).toBeTruthy();
  });

  it('without the embedding model: keyword by default, and search by meaning refused naming mode', async () => {
    const plain = await startTestApi({ EMBEDDING_MODEL_DIR: '/nonexistent/e5' });
    try {
      expect(plain.deps.embedder).toBeNull();
      const res = await request(plain.app).get('/v1/search').query({ q: 'choosing' }).set(bearer(ws.apiKey));
      expect(res.body).toMatchObject({ mode: 'keyword', moments: [{ transcript_id: english }] });
      for (const mode of ['semantic', 'hybrid']) {
        const refused = await request(plain.app).get('/v1/search').query({ q: 'moon', mode }).set(bearer(ws.apiKey));
        expect(refused.status).toBe(422);
        expect(refused.body.error).toMatchObject({ code: 'CAPABILITY_UNAVAILABLE', details: { detail: 'mode' } });
      }
    } finally {
      await plain.close();
    }
  });

  it('needs transcripts:read', async () => {
    expect((await request(api.app).get('/v1/search').query({ q: 'moon' })).status).toBe(401);
  });
});
