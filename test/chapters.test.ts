import request from 'supertest';
import { WebVTTParser } from 'webvtt-parser';
import { bearer, createWorkspace, startTestApi, type TestWorkspace } from './support/harness';
import { startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitUntilFinal, type JobStack } from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';

// Issue 53, item 1: `chapters: true` through the whole job: the platform's own chapters where the video has them
// (the recorded `next` answer of rCAS2eD-mcw), computed ones from what is said otherwise (the real e5 model), the
// chapters export, and the refusals.

const NEXT_WITH_CHAPTERS: ReplayRoute = {
  method: 'POST',
  path: '/youtubei/v1/next',
  host: 'www.youtube.com',
  recording: 'videosite/next-transcript-panel/web-next-rCAS2eD-mcw.newpipe-mock.json',
};
const NEXT_WITHOUT_CHAPTERS: ReplayRoute = { method: 'POST', path: '/youtubei/v1/next', host: 'www.youtube.com', json: {} };

/** A caption track (srv3) of two talks on unrelated topics, 20 sentences of 5 s each. */
function twoTalksSrv3(): string {
  const cooking = [
    'Start by heating the olive oil in a heavy pan over a medium flame.',
    'Chop the onions finely and let them soften until they turn golden.',
    'Add two cloves of garlic, but never let the garlic burn in the pan.',
    'Now the tomatoes go in, crushed by hand, with a good pinch of salt.',
    'Let the sauce simmer gently for twenty minutes and stir it now and then.',
    'Meanwhile bring a large pot of salted water to a rolling boil for the pasta.',
    'Fresh basil leaves are torn, not cut, and added at the very end.',
    'Taste the sauce and season it with pepper and a little more salt.',
    'Drain the pasta while it is still firm to the bite and keep a cup of its water.',
    'Toss the pasta in the pan with the sauce so every piece is coated.',
    'A splash of the starchy cooking water makes the sauce cling and shine.',
    'Grate some parmesan cheese over each plate just before serving.',
    'For a richer dish you can stir a spoon of butter into the tomato sauce.',
    'Leftover sauce keeps in the fridge for three days in a closed jar.',
    'Some cooks add a pinch of sugar to balance tomatoes that are too sour.',
    'Chili flakes fried in the oil at the start give the dish a gentle heat.',
    'Serve the pasta hot, in warmed bowls, with bread to wipe up the sauce.',
    'A simple green salad with lemon dressing goes well beside this meal.',
    'The whole recipe takes about forty minutes from chopping to the table.',
    'That is how my grandmother made her tomato sauce every Sunday for dinner.',
  ];
  const astronomy = [
    'Tonight we turn our telescopes to the planets of the outer solar system.',
    'Jupiter is the largest planet, a giant made mostly of hydrogen and helium.',
    'Its great red spot is a storm larger than the whole Earth that has raged for centuries.',
    'Four large moons circle Jupiter, first seen by Galileo in sixteen ten.',
    'Saturn is famous for its rings of ice and rock that shine in sunlight.',
    'The rings are wide but remarkably thin, often less than a kilometre deep.',
    'Uranus spins on its side, probably knocked over by an ancient collision.',
    'Neptune has the fastest winds measured anywhere among the planets.',
    'Light from the Sun takes more than four hours to reach distant Neptune.',
    'Beyond Neptune lies the Kuiper belt, a ring of icy bodies and dwarf planets.',
    'Pluto was reclassified as a dwarf planet by astronomers in two thousand six.',
    'Comets with long tails come from the even more distant Oort cloud.',
    'Space probes such as Voyager have flown past all four giant planets.',
    'Voyager one has now left the heliosphere and entered interstellar space.',
    'Astronomers also find planets orbiting other stars in our galaxy.',
    'Thousands of these exoplanets have been detected by their dimming starlight.',
    'Some of them orbit in the habitable zone where liquid water could exist.',
    'Telescopes in orbit observe infrared light that our atmosphere blocks.',
    'On a clear dark night you can see the Milky Way stretch across the sky.',
    'Next week we will look at how stars are born inside clouds of gas and dust.',
  ];
  const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const ps = [...cooking, ...astronomy].map((text, i) => `<p t="${i * 5000}" d="4800">${escape(text)}</p>`).join('');
  return `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${ps}</body></timedtext>`;
}

let stack: JobStack;
beforeAll(async () => {
  stack = await startJobStack([...videositeCaptionRoutes(), NEXT_WITH_CHAPTERS]);
}, 60_000);
afterAll(async () => stack?.close());

async function finishedTranscript(w: TestWorkspace, body: object) {
  const res = await submit(stack.api, w.apiKey, body);
  expect(res.status).toBe(202);
  const done = await waitUntilFinal(stack.api, w.apiKey, res.body.id, 5);
  expect(done.body).toMatchObject({ status: 'succeeded' });
  const t = await request(stack.api.app).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(w.apiKey));
  expect(t.status).toBe(200);
  return { job: done.body, transcript: t.body };
}

const exportChapters = (w: TestWorkspace, id: string) =>
  request(stack.api.app).get(`/v1/transcripts/${id}/export`).query({ format: 'chapters' }).set(bearer(w.apiKey));

it("keeps a video's own chapters, marked platform, in the transcript and its chapters export", async () => {
  stack.origin.setRoutes([...videositeCaptionRoutes(), NEXT_WITH_CHAPTERS]);
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const { job, transcript } = await finishedTranscript(w, { source: { url: VIDEO_URL }, mode: 'captions_only', chapters: true });
  expect(job.options.chapters).toBe(true);
  expect(job.billing.credits_charged).toBe(1);
  const end = transcript.duration_seconds;
  expect(transcript.chapters).toEqual([
    { start: 39, end: 115, title: 'Method of Oxygenation', origin: 'platform' },
    { start: 115, end: 242, title: 'LMA Insertion', origin: 'platform' },
    { start: 242, end: 268, title: 'Assessment of Ventilation', origin: 'platform' },
    { start: 268, end, title: 'Troubleshooting', origin: 'platform' },
  ]);
  const file = await exportChapters(w, transcript.id);
  expect(file.status).toBe(200);
  expect(file.headers['content-type']).toBe('text/vtt; charset=utf-8');
  expect(file.headers['content-disposition']).toMatch(/\.chapters\.vtt"/);
  const cues = new WebVTTParser().parse(file.text, 'chapters');
  expect(cues.errors).toEqual([]);
  expect(cues.cues.map((c) => [c.startTime, c.text])).toEqual([
    [39, 'Method of Oxygenation'],
    [115, 'LMA Insertion'],
    [242, 'Assessment of Ventilation'],
    [268, 'Troubleshooting'],
  ]);
  // The json export is the transcript object, chapters and all.
  const json = await request(stack.api.app).get(`/v1/transcripts/${transcript.id}/export`).query({ format: 'json' }).set(bearer(w.apiKey));
  expect(JSON.parse(json.text).chapters).toEqual(transcript.chapters);
}, 120_000);

it('computes chapters from what is said when the video has none: a boundary where the talk changes topic', async () => {
  stack.origin.setRoutes([...videositeCaptionRoutes({ captionBody: twoTalksSrv3() }), NEXT_WITHOUT_CHAPTERS]);
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const { transcript } = await finishedTranscript(w, { source: { url: VIDEO_URL }, mode: 'captions_only', chapters: true });
  const chapters: Array<{ start: number; end: number; title: string; origin: string }> = transcript.chapters;
  // One boundary where the cooking talk ends (100 s), none inside it; the astronomy talk may have parts of its own.
  const boundaries = chapters.slice(1).map((c) => c.start);
  expect(boundaries.filter((b) => Math.abs(b - 100) <= 15)).toHaveLength(1);
  expect(boundaries.filter((b) => b < 85)).toEqual([]);
  expect(chapters[0]).toMatchObject({ start: 0 });
  expect(chapters.at(-1)!.end).toBe(transcript.duration_seconds);
  for (const [i, c] of chapters.entries()) {
    expect(c.origin).toBe('computed');
    expect(c.end - c.start).toBeGreaterThanOrEqual(60);
    if (i > 0) expect(c.start).toBe(chapters[i - 1]!.end);
    // Each title is words said in its own chapter.
    const said = transcript.segments
      .filter((s: { start: number }) => s.start >= c.start && s.start < c.end)
      .map((s: { text: string }) => s.text)
      .join(' ');
    expect(said).toContain(c.title.replace(/…$/, ''));
  }
}, 120_000);

it('leaves chapters null when not asked, refuses their export, and does not reuse a transcript without chapters for a request with them', async () => {
  stack.origin.setRoutes([...videositeCaptionRoutes(), NEXT_WITH_CHAPTERS]);
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const plain = await finishedTranscript(w, { source: { url: VIDEO_URL }, mode: 'captions_only' });
  expect(plain.transcript.chapters).toBeNull();
  expect(plain.job.options.chapters).toBe(false);
  const refused = await exportChapters(w, plain.transcript.id);
  expect(refused.status).toBe(422);
  expect(refused.body.error).toMatchObject({ code: 'CHAPTERS_UNAVAILABLE', details: { detail: 'format' } });
  // The same video with chapters is another result: a new job, not the transcript without them.
  const withChapters = await finishedTranscript(w, { source: { url: VIDEO_URL }, mode: 'captions_only', chapters: true });
  expect(withChapters.transcript.id).not.toBe(plain.transcript.id);
  expect(withChapters.transcript.chapters).toHaveLength(4);
}, 120_000);

it('is refused before any charge where no embedding model is installed, and capabilities say so', async () => {
  const plain = await startTestApi({ EMBEDDING_MODEL_DIR: '/nonexistent/e5' });
  try {
    const w = await createWorkspace(plain.deps, { plan: 'starter' });
    const res = await submit(plain, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', chapters: true });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'CAPABILITY_UNAVAILABLE', details: { detail: 'chapters' } });
    expect(await plain.deps.db.job.count({ where: { workspaceId: w.workspaceId } })).toBe(0);
    const caps = await request(plain.app).get('/v1/capabilities');
    expect(caps.body.chapters).toMatchObject({ available: false, model: null });
    expect(caps.body.export_formats).toContain('chapters');
    const here = await request(stack.api.app).get('/v1/capabilities');
    expect(here.body.chapters).toMatchObject({ available: true, origins: ['platform', 'computed'], computed_min_duration_seconds: 180 });
  } finally {
    await plain.close();
  }
});

it('refuses chapters that are not a boolean, naming the field', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', chapters: 'yes' });
  expect(res.status).toBe(422);
  expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'chapters' } });
});
