import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ServiceError } from '../../core/errors';
import { JobRequestSchema, jobSpecOf } from '../../domain/schemas/jobs';
import { ExportQuery } from '../../domain/schemas/resources';
import { exportTranscript, type ExportableTranscript } from '../../domain/transcripts/export';
import {
  assertTranslationReachable,
  canonicalTag,
  textsByTime,
  translationRoute,
  translationView,
  type TranslationSettings,
} from '../../domain/transcripts/translation';
import { translationLanguageOf } from '../../integrations/platforms/videosite';
import { createDeeplTranslator, deeplTarget } from '../../integrations/translation/deepl';
import { startFakeDeepl, type FakeDeepl } from '../support/fake-deepl';
import { FIXTURES_DIR, fixturesAvailable } from '../support/replay-origin';

// Issue 53, item 2 (`translate_to`): the choice of route, the refusals before any charge, the platform's
// translated cues laid onto segments, the translated exports and the DeepL client against a local fake of its API.

const MACHINE_ONLY: TranslationSettings = {
  machinePairs: [
    { source: 'en', target: 'pt' },
    { source: 'pt', target: 'en' },
  ],
  provider: null,
};
const WITH_PROVIDER: TranslationSettings = { ...MACHINE_ONLY, provider: { name: 'deepl', targets: ['de', 'pt-BR', 'en-US', 'sv'] } };

const refusal = (run: () => void) => {
  try {
    run();
  } catch (err) {
    return err instanceof ServiceError ? { code: err.code, detail: err.detail } : err;
  }
  return null;
};

describe('the route to a target language', () => {
  it('takes the machine model for its pairs, the provider for the rest it lists, none otherwise', () => {
    expect(translationRoute('en', 'pt', MACHINE_ONLY)).toBe('machine');
    expect(translationRoute('en-US', 'pt-BR', MACHINE_ONLY)).toBe('machine');
    expect(translationRoute('pt', 'en', MACHINE_ONLY)).toBe('machine');
    expect(translationRoute('en', 'de', MACHINE_ONLY)).toBeNull();
    expect(translationRoute('fr', 'pt', MACHINE_ONLY)).toBeNull();
    expect(translationRoute('fr', 'pt', WITH_PROVIDER)).toBe('provider');
    expect(translationRoute('en', 'de-AT', WITH_PROVIDER)).toBe('provider');
    expect(translationRoute('en', 'ja', WITH_PROVIDER)).toBeNull();
  });

  it('refuses at submit a target no route reaches, naming the field', () => {
    const check = (translate_to: string | null, language: string | null, settings = MACHINE_ONLY) =>
      refusal(() => assertTranslationReachable({ translate_to, language }, settings, 'translate_to'));
    expect(check(null, null)).toBeNull();
    expect(check('pt', 'en')).toBeNull();
    // The spoken language is detected later: a target some route reaches from some language is accepted.
    expect(check('pt', null)).toBeNull();
    expect(check('de', 'en')).toEqual({ code: 'CAPABILITY_UNAVAILABLE', detail: 'translate_to' });
    expect(check('pt', 'fr')).toEqual({ code: 'CAPABILITY_UNAVAILABLE', detail: 'translate_to' });
    expect(check('ja', null)).toEqual({ code: 'CAPABILITY_UNAVAILABLE', detail: 'translate_to' });
    expect(check('de', 'en', WITH_PROVIDER)).toBeNull();
    expect(check('ja', null, WITH_PROVIDER)).toEqual({ code: 'CAPABILITY_UNAVAILABLE', detail: 'translate_to' });
  });

  it('takes translate_to as a BCP 47 tag in its canonical case, and not the transcript language itself', () => {
    const parse = (body: object) => JobRequestSchema.safeParse({ source: { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw' }, ...body });
    const ok = parse({ mode: 'captions_only', translate_to: 'pt-br' });
    expect(ok.success && jobSpecOf(ok.data).translate_to).toBe('pt-BR');
    expect(canonicalTag('ZH-hant')).toBe('zh-Hant');
    const none = parse({ mode: 'captions_only' });
    expect(none.success && jobSpecOf(none.data).translate_to).toBeNull();
    const bad = parse({ mode: 'captions_only', translate_to: 'Portuguese!' });
    expect(bad.success).toBe(false);
    expect(!bad.success && bad.error.issues[0].path).toEqual(['translate_to']);
    const same = parse({ mode: 'auto', language: 'pt-BR', translate_to: 'pt' });
    expect(!same.success && same.error.issues.map((i) => i.path.join('.'))).toEqual(['translate_to']);
  });
});

describe("the platform's translated cues on the transcript's segments", () => {
  const segments = [
    { start: 0, end: 4 },
    { start: 4, end: 10 },
    { start: 12, end: 15 },
  ];

  it('gives each segment the cues whose middle falls in it, in order', () => {
    const cues = [
      { start: 0, end: 2, text: 'um' },
      { start: 2, end: 4, text: 'dois' },
      { start: 4.5, end: 9, text: 'três' },
      { start: 12, end: 15, text: 'quatro' },
    ];
    expect(textsByTime(segments, cues)).toEqual(['um dois', 'três', 'quatro']);
  });

  it('puts a cue that falls between segments in the nearer one, and leaves a segment without cues empty', () => {
    expect(textsByTime(segments, [{ start: 10.8, end: 12, text: 'perto do terceiro' }])).toEqual(['', '', 'perto do terceiro']);
    expect(textsByTime(segments, [{ start: 9.8, end: 10.6, text: 'perto do segundo' }])).toEqual(['', 'perto do segundo', '']);
    expect(textsByTime([], [{ start: 0, end: 1, text: 'x' }])).toEqual([]);
  });

  it('shows a text for every segment with its times', () => {
    expect(translationView({ language: 'pt', origin: 'machine', texts: ['olá', 'mundo'] }, segments.slice(0, 2))).toEqual({
      language: 'pt',
      origin: 'machine',
      segments: [
        { start: 0, end: 4, text: 'olá' },
        { start: 4, end: 10, text: 'mundo' },
      ],
    });
    expect(translationView(null, segments)).toBeNull();
  });
});

(fixturesAvailable() || process.env.CI ? describe : describe.skip)('the languages the recorded player translates into', () => {
  const player = JSON.parse(
    readFileSync(path.join(FIXTURES_DIR, 'videosite/player-captions/android-reel_item_watch-rCAS2eD-mcw-13tracks.body.json'), 'utf8'),
  ).playerResponse;

  it('finds the exact code, else the language, else nothing', () => {
    expect(translationLanguageOf(player, 'pt')).toBe('pt');
    expect(translationLanguageOf(player, 'pt-BR')).toBe('pt');
    expect(translationLanguageOf(player, 'zh-Hant')).toBe('zh-Hant');
    expect(translationLanguageOf(player, 'zh')).toBe('zh-Hant');
    expect(translationLanguageOf(player, 'sv')).toBeNull();
    expect(translationLanguageOf({}, 'pt')).toBeNull();
  });
});

describe('translated exports', () => {
  const transcript: ExportableTranscript = {
    id: '0a1b2c3d-0000-4000-8000-000000000000',
    source: { platform: 'upload', media_id: 'u', canonical_url: null, title: 'Talk' },
    source_origin: 'speech_recognition',
    language: 'en',
    text: 'Hello there. Good night.',
    segments: [
      { start: 0, end: 2, text: 'Hello there.' },
      { start: 2.5, end: 4, text: 'Good night.' },
    ],
    words: [
      { start: 0, end: 1, text: 'Hello', confidence: 0.9 },
      { start: 1, end: 2, text: 'there.', confidence: 0.9 },
      { start: 2.5, end: 3, text: 'Good', confidence: 0.9 },
      { start: 3, end: 4, text: 'night.', confidence: 0.9 },
    ],
    timing_granularity: 'word',
    duration_seconds: 4,
    recognition: null,
    extraction_version: 'x',
    translation: {
      language: 'pt-BR',
      origin: 'machine',
      segments: [
        { start: 0, end: 2, text: 'Olá.' },
        { start: 2.5, end: 4, text: 'Boa noite.' },
      ],
    },
    created_at: new Date(0).toISOString(),
  };

  it("gives srt, vtt and txt in the translation's language, timed by the segments, the file named with it", () => {
    const srt = exportTranscript(transcript, 'srt', { translated: true });
    expect(srt.body).toBe('1\n00:00:00,000 --> 00:00:02,000\nOlá.\n\n2\n00:00:02,500 --> 00:00:04,000\nBoa noite.\n');
    expect(srt.filename).toBe('talk-0a1b2c3d.pt-BR.srt');
    expect(exportTranscript(transcript, 'vtt', { translated: true }).body).toContain('00:00:02.500 --> 00:00:04.000\nBoa noite.');
    expect(exportTranscript(transcript, 'txt', { translated: true }).body).toContain('Boa noite.');
    // Without translated: the transcript's own words.
    expect(exportTranscript(transcript, 'srt').body).toContain('Hello there.');
    expect(exportTranscript(transcript, 'srt').filename).toBe('talk-0a1b2c3d.srt');
  });

  it('refuses translated=true for a transcript without a translation, naming the parameter', () => {
    const run = () => exportTranscript({ ...transcript, translation: null }, 'srt', { translated: true });
    expect(refusal(run)).toEqual({ code: 'TRANSLATION_UNAVAILABLE', detail: 'translated' });
  });

  it('takes translated for txt, srt and vtt only', () => {
    expect(ExportQuery.safeParse({ format: 'srt', translated: 'true' }).data).toEqual({ format: 'srt', translated: true });
    const json = ExportQuery.safeParse({ format: 'json', translated: 'true' });
    expect(!json.success && json.error.issues[0].path).toEqual(['translated']);
    expect(ExportQuery.safeParse({ format: 'txt', translated: 'yes' }).success).toBe(false);
  });
});

describe('DeepL, the operator provider, against a local fake of its published API', () => {
  let fake: FakeDeepl;
  beforeAll(async () => {
    fake = await startFakeDeepl('key-1');
  });
  afterAll(async () => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
  });

  it('maps tags to its target codes', () => {
    expect(deeplTarget('pt')).toBe('PT-BR');
    expect(deeplTarget('pt-PT')).toBe('PT-PT');
    expect(deeplTarget('en')).toBe('EN-US');
    expect(deeplTarget('en-GB')).toBe('EN-GB');
    expect(deeplTarget('de-AT')).toBe('DE');
    expect(deeplTarget('zh-Hant')).toBe('ZH-HANT');
  });

  it('sends the texts in batches of at most 50 with its auth header, and keeps their order', async () => {
    const deepl = createDeeplTranslator({ apiKey: 'key-1', baseUrl: fake.url, loopbackOnly: true });
    const texts = Array.from({ length: 120 }, (_, i) => `sentence ${i}`);
    const out = await deepl.translate(texts, 'en-US', 'de');
    expect(out).toEqual(texts.map((t) => `[DE] ${t}`));
    expect(fake.requests.map((r) => r.body.text!.length)).toEqual([50, 50, 20]);
    expect(fake.requests[0]).toMatchObject({ authorization: 'DeepL-Auth-Key key-1', body: { target_lang: 'DE', source_lang: 'EN' } });
    // A source DeepL does not take is left to its detection.
    await deepl.translate(['kumusta'], 'fil', 'de');
    expect(fake.requests.at(-1)!.body.source_lang).toBeUndefined();
  });

  it("maps its refusals onto the catalogue: quota and throttling are the provider's to recover from", async () => {
    const deepl = createDeeplTranslator({ apiKey: 'key-1', baseUrl: fake.url, loopbackOnly: true });
    const code = async (run: () => Promise<unknown>) =>
      run().then(
        () => null,
        (err: unknown) => (err instanceof ServiceError ? [err.code, err.retryable] : err),
      );
    fake.failNext(456);
    expect(await code(() => deepl.translate(['a'], 'en', 'de'))).toEqual(['PROVIDER_UNAVAILABLE', true]);
    fake.failNext(429);
    expect(await code(() => deepl.translate(['a'], 'en', 'de'))).toEqual(['PROVIDER_UNAVAILABLE', true]);
    const wrongKey = createDeeplTranslator({ apiKey: 'other', baseUrl: fake.url, loopbackOnly: true });
    expect(await code(() => wrongKey.translate(['a'], 'en', 'de'))).toEqual(['PROVIDER_REJECTED', false]);
    // The job's error speaks of translation, not of the recognizer the catalogue's message names.
    await expect(wrongKey.translate(['a'], 'en', 'de')).rejects.toThrow(/translation provider refused/);
    fake.failNext(429);
    await expect(deepl.translate(['a'], 'en', 'de')).rejects.toThrow(/translation provider is temporarily unavailable/);
  });

  it('calls only a loopback address in the test stack', () => {
    expect(() => createDeeplTranslator({ apiKey: 'k', baseUrl: 'https://api.deepl.com', loopbackOnly: true })).toThrow(/loopback/);
  });
});
