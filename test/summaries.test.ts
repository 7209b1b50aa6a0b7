import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { indexTranscript, unsupportedClaims } from '../domain/transcripts/summary';
import { toRecognizerWav } from '../integrations/media/convert';
import { LLM_MODEL_NAME, startLlmServer, type LlmServerHandle } from '../stack/llm';
import { evalClips } from './support/asr-eval';
import { bearer, createWorkspace } from './support/harness';
import { startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitUntilFinal, type JobStack } from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { audioDir } from './support/speech';
import { uploadReady } from './support/uploads';

// Issue 53, item 5: `summarize` through the whole job with the real embedded model (Qwen2.5-Coder-1.5B-Instruct
// on llama.cpp, the server the local stacks start): the summary, its key points and a sentence per computed chapter
// of a caption track of two talks, on real speech (an upload), through REST, the agents' get_transcript and the
// dashboard; and the refusal where no model is configured.

const COOKING = [
  'Start by heating the olive oil in a heavy pan over a medium flame.',
  'Chop the onions finely and let them soften until they turn golden.',
  'Add two cloves of garlic, but never let the garlic burn in the pan.',
  'Now the tomatoes go in, crushed by hand, with a good pinch of salt.',
  'Let the sauce simmer gently for 20 minutes and stir it now and then.',
  'Meanwhile bring a large pot of salted water to a rolling boil for the pasta.',
  'Fresh basil leaves are torn, not cut, and added at the very end.',
  'Taste the sauce and season it with pepper and a little more salt.',
  'Drain the pasta while it is still firm to the bite and keep a cup of its water.',
  'Toss the pasta in the pan with the sauce so every piece is coated.',
  'A splash of the starchy cooking water makes the sauce cling and shine.',
  'Grate some parmesan cheese over each plate just before serving.',
  'For a richer dish you can stir a spoon of butter into the tomato sauce.',
  'Leftover sauce keeps in the fridge for 3 days in a closed jar.',
  'Some cooks add a pinch of sugar to balance tomatoes that are too sour.',
  'Chili flakes fried in the oil at the start give the dish a gentle heat.',
  'Serve the pasta hot, in warmed bowls, with bread to wipe up the sauce.',
  'A simple green salad with lemon dressing goes well beside this meal.',
  'The whole recipe takes about 40 minutes from chopping to the table.',
  'That is how my grandmother Rosa made her tomato sauce every Sunday.',
];
const ASTRONOMY = [
  'Tonight we turn our telescopes to the planets of the outer solar system.',
  'Jupiter is the largest planet, a giant made mostly of hydrogen and helium.',
  'Its great red spot is a storm larger than the whole Earth.',
  'Four large moons circle Jupiter, first seen by Galileo in 1610.',
  'Saturn is famous for its rings of ice and rock that shine in sunlight.',
  'The rings are wide but remarkably thin, often less than a kilometre deep.',
  'Uranus spins on its side, probably knocked over by an ancient collision.',
  'Neptune has the fastest winds measured anywhere among the planets.',
  'Light from the Sun takes more than 4 hours to reach distant Neptune.',
  'Beyond Neptune lies the Kuiper belt, a ring of icy bodies and dwarf planets.',
  'Pluto was reclassified as a dwarf planet by astronomers in 2006.',
  'Comets with long tails come from the even more distant Oort cloud.',
  'Space probes such as Voyager have flown past all four giant planets.',
  'Voyager 1 has now left the heliosphere and entered interstellar space.',
  'Astronomers also find planets orbiting other stars in our galaxy.',
  'Thousands of these exoplanets have been detected by their dimming starlight.',
  'Some of them orbit in the habitable zone where liquid water could exist.',
  'Next week we will look at how telescopes split starlight into colours.',
  'Until then, keep looking up on clear nights and enjoy the view.',
  'Thank you for joining this evening tour of the outer planets.',
];
const CUE_SECONDS = 5;

function twoTalksSrv3(): string {
  const cues = [...COOKING, ...ASTRONOMY].map((text, i) => `<p t="${i * CUE_SECONDS * 1000}" d="${CUE_SECONDS * 1000 - 500}">${text}</p>`);
  return `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${cues.join('')}</body></timedtext>`;
}
const NEXT_WITHOUT_CHAPTERS: ReplayRoute = { method: 'POST', path: '/youtubei/v1/next', host: 'www.youtube.com', json: {} };

let llm: LlmServerHandle;
let stack: JobStack;
let plain: JobStack;
let server: Server;
let dir: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  // Two threads, always: llama.cpp's sums are the same in every run at a fixed thread count.
  llm = await startLlmServer({ threads: 2 });
  stack = await startJobStack([...videositeCaptionRoutes({ captionBody: twoTalksSrv3() }), NEXT_WITHOUT_CHAPTERS], {
    env: { LLM_BASE_URL: llm.baseUrl, LLM_MODEL: LLM_MODEL_NAME },
  });
  plain = await startJobStack(videositeCaptionRoutes());
  server = createServer(stack.api.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  dir = await audioDir('summaries-');
}, 600_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await stack?.close();
  await plain?.close();
  await llm?.stop();
  await dir?.cleanup();
});

/** Every sentence, point and chapter line of a summary checked against the transcript's text. */
function claimsNotInTranscript(summary: { text: string; key_points: string[]; chapters: Array<{ summary: string | null }> }, text: string) {
  const index = indexTranscript(text);
  return [summary.text, ...summary.key_points, ...summary.chapters.map((c) => c.summary ?? '')].flatMap((s) => unsupportedClaims(s, index));
}

it('summarises a talk of two topics, with a sentence for each computed chapter, through REST, the agents and the dashboard', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', chapters: true, summarize: true });
  expect(res.status).toBe(202);
  const job = (await waitUntilFinal(stack.api, w.apiKey, res.body.id, 24)).body;
  expect(job).toMatchObject({ status: 'succeeded', options: { summarize: true, chapters: true }, billing: { credits_charged: 1 } });
  const t = (await request(stack.api.app).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
  expect(t.chapters.length).toBeGreaterThanOrEqual(2);
  const s = t.summary;
  expect(s.model).toBe(LLM_MODEL_NAME);
  expect(s.text.length).toBeGreaterThan(20);
  expect(s.key_points.length).toBeGreaterThanOrEqual(1);
  // What the model wrote is about both talks: it read the whole transcript, not its start.
  const all = [s.text, ...s.key_points, ...s.chapters.map((c: { summary: string | null }) => c.summary ?? '')].join(' ');
  expect(all).toMatch(/pasta|sauce|tomato|cook/i);
  expect(all).toMatch(/planet|Jupiter|Saturn|Neptune|astronom|solar/i);
  // One line per chapter, with the chapter's times and title.
  expect(s.chapters.map((c: { start: number; end: number; title: string }) => [c.start, c.end, c.title])).toEqual(
    t.chapters.map((c: { start: number; end: number; title: string }) => [c.start, c.end, c.title]),
  );
  expect(s.chapters.filter((c: { summary: string | null }) => c.summary !== null).length).toBeGreaterThanOrEqual(1);
  expect(claimsNotInTranscript(s, t.text)).toEqual([]);
  // The json export is the transcript object, summary and all.
  const json = await request(stack.api.app).get(`/v1/transcripts/${t.id}/export`).query({ format: 'json' }).set(bearer(w.apiKey));
  expect(JSON.parse(json.text).summary).toEqual(s);

  // The agents' get_transcript carries it beside the page.
  const client = new Client({ name: 'summaries-test', version: '1.0.0' });
  const mcpUrl = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: bearer(w.apiKey) } }));
  const page = (await client.callTool({ name: 'get_transcript', arguments: { transcript_id: t.id, format: 'text' } })) as {
    structuredContent: { transcript: { summary: unknown } };
  };
  expect(page.structuredContent.transcript.summary).toEqual(s);
  await client.close();

  // The dashboard's transcript page shows it (signed in through the form, as a browser does).
  const signIn = await request(stack.api.app).post('/app/sign-in').type('form').send({ email: w.email, password: w.password });
  const cookie = (signIn.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
  const html = await request(stack.api.app).get(`/dashboard/transcripts/${t.id}`).set('Cookie', cookie);
  expect(html.status).toBe(200);
  expect(html.text).toContain('<h2>Summary</h2>');
  expect(html.text).toContain(escapeForHtml(s.key_points[0]));
  // The "New transcript" form asks for one (the request field the playground's browser test sends for the others).
  const form = await request(stack.api.app).get('/dashboard/new').set('Cookie', cookie);
  expect(form.text).toMatch(/<input type="checkbox" data-field="summarize" \/> Summary/);

  const caps = await request(stack.api.app).get('/v1/capabilities').expect(200);
  expect(caps.body.summaries).toEqual({ available: true, model: LLM_MODEL_NAME, prompt_words: 900 });
}, 900_000);

it('summarises recognised speech from an upload in its own language', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
  const clip = evalClips().find((c) => c.file === 'en/jfk_inaugural.flac')!;
  const wav = await toRecognizerWav(clip.audio, path.join(dir.dir, 'jfk.wav'));
  const upload = await uploadReady(stack.api, w, wav, 'audio/wav');
  const res = await submit(stack.api, w.apiKey, { source: { upload_id: upload }, mode: 'transcribe', summarize: true });
  expect(res.status).toBe(202);
  const job = (await waitUntilFinal(stack.api, w.apiKey, res.body.id, 24)).body;
  expect(job.status).toBe('succeeded');
  const t = (await request(stack.api.app).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
  expect(t.language).toBe('en');
  expect(t.summary.chapters).toEqual([]);
  expect(`${t.summary.text} ${t.summary.key_points.join(' ')}`).toMatch(/country/i);
  expect(claimsNotInTranscript(t.summary, t.text)).toEqual([]);
}, 600_000);

it('refuses summarize before any charge where no language model is configured, and leaves summary null when not asked', async () => {
  const w = await createWorkspace(plain.api.deps, { plan: 'starter' });
  const before = await getBalance(plain.api.deps.db, w.workspaceId);
  const refused = await submit(plain.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', summarize: true });
  expect(refused.status).toBe(422);
  expect(refused.body.error).toMatchObject({ code: 'CAPABILITY_UNAVAILABLE', details: { detail: 'summarize' } });
  expect(await getBalance(plain.api.deps.db, w.workspaceId)).toEqual(before);
  const wrong = await submit(plain.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', summarize: 'yes' });
  expect(wrong.status).toBe(422);
  expect(wrong.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'summarize' } });
  const caps = await request(plain.api.app).get('/v1/capabilities').expect(200);
  expect(caps.body.summaries).toEqual({ available: false, model: null, prompt_words: 900 });
  const res = await submit(plain.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
  const job = (await waitUntilFinal(plain.api, w.apiKey, res.body.id, 6)).body;
  const t = (await request(plain.api.app).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
  expect(t.summary).toBeNull();
}, 120_000);

function escapeForHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
