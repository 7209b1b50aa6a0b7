import request from 'supertest';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitUntilFinal, type JobStack } from './support/job-stack';

// Issue 53, item 4: filter_profanity and disfluencies through a whole caption job: the stored transcript, its
// segments and every export carry the clean-up; a job without them gets the words as the platform has them.

const CAPTIONS = ['So um I I think this is fine.', 'Well uh that was a shitty day.', 'um.', 'We went home after that.'];
const srv3 = `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${CAPTIONS.map(
  (t, i) => `<p t="${i * 3000}" d="2800">${t}</p>`,
).join('')}</body></timedtext>`;

let stack: JobStack;
beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes({ captionBody: srv3 }));
}, 60_000);
afterAll(async () => stack?.close());

async function transcriptOf(w: TestWorkspace, options: object) {
  const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', ...options });
  expect(res.status).toBe(202);
  const done = await waitUntilFinal(stack.api, w.apiKey, res.body.id, 5);
  expect(done.body.status).toBe('succeeded');
  const t = await request(stack.api.app).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(w.apiKey));
  return { job: done.body, transcript: t.body };
}

it('masks profanity and drops fillers and repeated words in the transcript, its segments and its exports', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const { job, transcript } = await transcriptOf(w, { filter_profanity: true, disfluencies: false });
  expect(job.options).toMatchObject({ filter_profanity: true, disfluencies: false });
  expect(job.billing.credits_charged).toBe(1);
  expect(transcript.segments.map((s: { start: number; text: string }) => [s.start, s.text])).toEqual([
    [0, 'So I think this is fine.'],
    [3, 'Well that was a s***** day.'],
    [9, 'We went home after that.'],
  ]);
  expect(transcript.text).not.toMatch(/\bum\b|\buh\b|shitty|\bI I\b/);
  const srt = await request(stack.api.app).get(`/v1/transcripts/${transcript.id}/export`).query({ format: 'srt' }).set(bearer(w.apiKey));
  expect(srt.text).toContain('s***** day');
  expect(srt.text).not.toMatch(/shitty|\bum\b/);
  // Stored that way: the row holds no unmasked word.
  const row = await stack.api.deps.db.transcript.findUniqueOrThrow({ where: { id: transcript.id } });
  expect(JSON.stringify([row.text, row.segments])).not.toContain('shitty');
}, 120_000);

it('keeps the words as the platform has them without the options, as another result', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const plain = await transcriptOf(w, {});
  expect(plain.job.options).toMatchObject({ filter_profanity: false, disfluencies: true });
  expect(plain.transcript.segments.map((s: { text: string }) => s.text)).toEqual(CAPTIONS);
  const masked = await transcriptOf(w, { filter_profanity: true });
  expect(masked.transcript.id).not.toBe(plain.transcript.id);
  expect(masked.transcript.segments.map((s: { text: string }) => s.text)).toEqual([
    'So um I I think this is fine.',
    'Well uh that was a s***** day.',
    'um.',
    'We went home after that.',
  ]);
}, 120_000);

it('refuses options that are not booleans, naming them', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  for (const field of ['filter_profanity', 'disfluencies']) {
    const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', [field]: 'no' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: field } });
  }
  const caps = await request(stack.api.app).get('/v1/capabilities');
  expect(caps.body.cleanup.profanity_languages).toEqual(expect.arrayContaining(['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'ko']));
  expect(caps.body.cleanup.disfluency_languages).toEqual(expect.arrayContaining(['en', 'fr', 'de']));
});
