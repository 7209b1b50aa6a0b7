import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { startJobStack, submit, srv3Captions, videositeCaptionRoutes, VIDEO_URL, waitUntilFinal, type JobStack } from './support/job-stack';
import { audioDir, makeSpeech } from './support/speech';
import { uploadReady } from './support/uploads';

// Issue 53, item 3: `redact_pii` through the whole job. A caption track and real recognised speech with a phone
// number and an e-mail address: the transcript, its words, its exports, its stored row and rendering, and search
// carry the placeholders, never the data; kinds that need a model are refused before any charge.

const CAPTIONS = [
  'Thanks for calling the support line, this is Sarah Johnson.',
  'You can call me back on 555 123 4567 tomorrow.',
  'Or write to john dot smith at example dot com.',
  'My card is 4111 1111 1111 1111 and it expires soon.',
];
let stack: JobStack;
let dir: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes({ captionBody: srv3Captions(CAPTIONS) }));
  dir = await audioDir('redact-');
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await dir?.cleanup();
});

async function transcriptOf(w: TestWorkspace, body: object) {
  const res = await submit(stack.api, w.apiKey, body);
  expect(res.status).toBe(202);
  const job = (await waitUntilFinal(stack.api, w.apiKey, res.body.id, 6)).body;
  expect(job).toMatchObject({ status: 'succeeded' });
  const t = await request(stack.api.app).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey));
  expect(t.status).toBe(200);
  return { job, transcript: t.body };
}

/** Everything stored of a transcript: its row's text, segments and words, and its rendering. */
async function storedText(id: string): Promise<string> {
  const row = await stack.api.deps.db.transcript.findUniqueOrThrow({ where: { id } });
  const rendering = await stack.api.deps.db.transcriptRendering.findUnique({ where: { transcriptId: id } });
  return JSON.stringify([row.text, row.segments, row.words, rendering?.body ?? '']);
}

it('redacts a caption track before it is stored: text, segments, exports, search', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const { job, transcript } = await transcriptOf(w, { source: { url: VIDEO_URL }, mode: 'captions_only', redact_pii: true });
  expect(job.options).toMatchObject({ redact_pii: true, redact_pii_types: ['email', 'phone', 'card', 'iban'] });
  expect(job.billing.credits_charged).toBe(1);
  expect(transcript.segments.map((s: { text: string }) => s.text)).toEqual([
    // Names are asked for by name (not in the default kinds).
    'Thanks for calling the support line, this is Sarah Johnson.',
    'You can call me back on [PHONE] tomorrow.',
    'Or write to [EMAIL].',
    'My card is [CARD] and it expires soon.',
  ]);
  expect(transcript.text).toContain('[PHONE]');
  const stored = await storedText(transcript.id);
  for (const secret of ['4567', 'smith', 'example', '4111']) expect(stored).not.toContain(secret);
  const srt = await request(stack.api.app).get(`/v1/transcripts/${transcript.id}/export`).query({ format: 'srt' }).set(bearer(w.apiKey));
  expect(srt.text).toContain('You can call me back on [PHONE] tomorrow.');
  expect(srt.text).not.toContain('4567');
  for (const q of ['4567', 'smith']) {
    const found = await request(stack.api.app).get('/v1/search').query({ q, mode: 'keyword' }).set(bearer(w.apiKey));
    expect(found.status).toBe(200);
    expect(found.body.moments).toEqual([]);
  }
  // The same video without redaction is another transcript (the spec is in the reuse key): the numbers are there.
  const plain = await transcriptOf(w, { source: { url: VIDEO_URL }, mode: 'captions_only' });
  expect(plain.transcript.id).not.toBe(transcript.id);
  expect(plain.transcript.text).toContain('555 123 4567');
}, 120_000);

it('redacts names of people in English when asked, and fails a transcript in another language before storing it', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const { job, transcript } = await transcriptOf(w, {
    source: { url: VIDEO_URL },
    mode: 'captions_only',
    redact_pii: true,
    redact_pii_types: ['person', 'phone'],
  });
  expect(job.options.redact_pii_types).toEqual(['person', 'phone']);
  expect(transcript.segments[0].text).toBe('Thanks for calling the support line, this is [PERSON].');
  expect(transcript.segments[1].text).toBe('You can call me back on [PHONE] tomorrow.');
  // The e-mail address is not asked for: its names go, as names, and the rest of it stays.
  expect(transcript.segments[2].text).toBe('Or write to [PERSON] dot [PERSON] at example dot com.');
  expect(await storedText(transcript.id)).not.toContain('Johnson');

  // The French track: names cannot be found in French here, so the job fails and nothing is kept or charged.
  stack.origin.setRoutes(
    videositeCaptionRoutes({ captionBody: srv3Captions(['Bonjour, ici Marie Dupont de la banque.', 'Rappelez-moi demain matin, merci.']) }),
  );
  try {
    const before = await getBalance(stack.api.deps.db, w.workspaceId);
    const res = await submit(stack.api, w.apiKey, {
      source: { url: VIDEO_URL },
      mode: 'captions_only',
      caption_languages: ['fr'],
      redact_pii: true,
      redact_pii_types: ['person'],
    });
    expect(res.status).toBe(202);
    const failed = (await waitUntilFinal(stack.api, w.apiKey, res.body.id, 6)).body;
    expect(failed).toMatchObject({ status: 'failed', result_id: null, error: { code: 'CAPABILITY_UNAVAILABLE', retryable: false } });
    expect(failed.billing.credits_charged).toBe(0);
    expect(await getBalance(stack.api.deps.db, w.workspaceId)).toEqual(before);
    expect(await stack.api.deps.db.transcript.count({ where: { jobId: res.body.id } })).toBe(0);
    // Asked with the language given, it is refused at once.
    const refused = await submit(stack.api, w.apiKey, {
      source: { url: VIDEO_URL },
      mode: 'auto',
      language: 'fr',
      redact_pii: true,
      redact_pii_types: ['person'],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'CAPABILITY_UNAVAILABLE', details: { detail: 'redact_pii_types' } });
  } finally {
    stack.origin.setRoutes(videositeCaptionRoutes({ captionBody: srv3Captions(CAPTIONS) }));
  }
}, 120_000);

it('redacts recognised speech, each redacted run of words one word with their times', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
  const speech = await makeSpeech(
    'Hello, this is the front desk. Please call me back at five five five, one two three, four five six seven. Thank you, goodbye.',
    dir.dir,
    'call',
  );
  const upload = await uploadReady(stack.api, w, speech.path, 'audio/wav');
  const { transcript } = await transcriptOf(w, {
    source: { upload_id: upload },
    mode: 'transcribe',
    redact_pii: true,
    redact_pii_types: ['phone'],
  });
  expect(transcript.text).toContain('[PHONE]');
  expect(transcript.text).not.toMatch(/4\s*5\s*6\s*7|four five six seven/i);
  const placeholder = transcript.words.find((x: { text: string }) => x.text.includes('[PHONE]'));
  expect(placeholder).toBeDefined();
  expect(placeholder.end - placeholder.start).toBeGreaterThan(1);
  expect(await storedText(transcript.id)).not.toMatch(/4567|four five six seven/i);
}, 180_000);

it('refuses kinds that need a personal-data model before any charge, naming the field', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const before = await getBalance(stack.api.deps.db, w.workspaceId);
  const res = await submit(stack.api, w.apiKey, {
    source: { url: VIDEO_URL },
    mode: 'captions_only',
    redact_pii: true,
    redact_pii_types: ['address', 'email'],
  });
  expect(res.status).toBe(422);
  expect(res.body.error).toMatchObject({ code: 'CAPABILITY_UNAVAILABLE', details: { detail: 'redact_pii_types' } });
  expect(await getBalance(stack.api.deps.db, w.workspaceId)).toEqual(before);
  const caps = await request(stack.api.app).get('/v1/capabilities');
  expect(caps.body.redaction).toMatchObject({
    types: ['email', 'phone', 'card', 'iban', 'person'],
    default_types: ['email', 'phone', 'card', 'iban'],
    person_languages: ['en'],
    needs_model: ['address', 'id'],
  });
}, 60_000);
