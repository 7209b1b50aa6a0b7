import { partialSegmentsOf } from '../../domain/jobs/partial-segments';
import { cleanedAsAsked } from '../../domain/jobs/state';
import { progressOf } from '../../domain/jobs/view';
import { JobRequestSchema, jobSpecOf } from '../../domain/schemas/jobs';
import { installedPersonalDataModel as modelOrFail } from '../support/personal-data-model';

// What a running job shows of a recognised piece: never more than its transcript will.

const specOf = (req: object) =>
  jobSpecOf(JobRequestSchema.parse({ source: { url: 'https://example.com/a.mp3' }, mode: 'transcribe', ...req }));
const piece = (text: string, language: string | null = 'en') => ({
  language,
  text,
  segments: [{ start: 20.5, end: 24, text, language }],
});

describe('partial segments', () => {
  it('are redacted as the job asked before anything is stored', async () => {
    const shown = await partialSegmentsOf(
      specOf({ redact_pii: true, redact_pii_types: ['email', 'phone'] }),
      piece('write to john at example dot com or call 555 123 4567'),
      null,
    );
    expect(shown).toHaveLength(1);
    expect(shown![0]!.text).toContain('[EMAIL]');
    expect(shown![0]!.text).toContain('[PHONE]');
    expect(shown![0]!.text).not.toMatch(/example|4567/);
    expect(shown![0]).toMatchObject({ start: 20.5, end: 24, language: 'en' });
  });

  it('are cleaned as the job asked: fillers out unless disfluencies are kept', async () => {
    const cleaned = await partialSegmentsOf(specOf({ disfluencies: false }), piece('so um we went uh home'), null);
    expect(cleaned![0]!.text).not.toMatch(/\b(um|uh)\b/);
    const kept = await partialSegmentsOf(specOf({ disfluencies: true }), piece('so um we went uh home'), null);
    expect(kept![0]!.text).toBe('so um we went uh home');
  });

  it('show nothing when names must be redacted in a language that redaction does not cover (the job fails at the end)', async () => {
    const names = specOf({ redact_pii: true, redact_pii_types: ['person'] });
    // Without the personal-data model, names are found in English only.
    expect(await partialSegmentsOf(names, piece('Hallo Anna', 'de'), null)).toBeNull();
    expect(await partialSegmentsOf(names, piece('hello Anna Smith'), null)).not.toBeNull();
    // With it, German names are redacted; Japanese is still not covered.
    const shown = await partialSegmentsOf(names, piece('Hallo, ich heiße Anna Schmidt und wohne in Köln.', 'de'), modelOrFail());
    expect(shown![0]!.text).toBe('Hallo, ich heiße [PERSON] und wohne in Köln.');
    expect(await partialSegmentsOf(names, piece('こんにちは', 'ja'), modelOrFail())).toBeNull();
  });

  it('are never shown, and the transcript never stored, when a worker lacks the model the API offered the kinds with', async () => {
    const addresses = specOf({ redact_pii: true, redact_pii_types: ['address'] });
    expect(await partialSegmentsOf(addresses, piece('I live at 22 Baker Street, London.'), null)).toBeNull();
    await expect(cleanedAsAsked(addresses, { ...piece('I live at 22 Baker Street, London.'), words: null }, null)).rejects.toMatchObject({
      code: 'CAPABILITY_UNAVAILABLE',
      message: expect.stringMatching(/address needs the personal-data model, which this worker does not have/),
    });
    const shown = await partialSegmentsOf(addresses, piece('I live at 22 Baker Street, London.'), modelOrFail());
    expect(shown![0]!.text).toBe('I live at [ADDRESS].');
  });

  it('carry the piece language where a segment has none', async () => {
    const shown = await partialSegmentsOf(
      specOf({}),
      { language: 'es', text: 'hola', segments: [{ start: 0, end: 1, text: 'hola' }] },
      null,
    );
    expect(shown).toEqual([{ start: 0, end: 1, text: 'hola', language: 'es' }]);
  });
});

describe('progress', () => {
  it('is null until the media is measured, the published stretch while running, all of it once succeeded', () => {
    expect(progressOf({ status: 'processing', mediaDurationMs: null, transcribedMs: 0 })).toBeNull();
    expect(progressOf({ status: 'processing', mediaDurationMs: 7_200_000, transcribedMs: 89_500 })).toEqual({
      transcribed_seconds: 89.5,
      total_seconds: 7200,
    });
    expect(progressOf({ status: 'processing', mediaDurationMs: 60_000, transcribedMs: 61_000 })).toEqual({
      transcribed_seconds: 60,
      total_seconds: 60,
    });
    expect(progressOf({ status: 'succeeded', mediaDurationMs: 60_000, transcribedMs: 0 })).toEqual({
      transcribed_seconds: 60,
      total_seconds: 60,
    });
    expect(progressOf({ status: 'failed', mediaDurationMs: 60_000, transcribedMs: 20_000 })).toEqual({
      transcribed_seconds: 20,
      total_seconds: 60,
    });
  });
});
