import fs from 'node:fs';
import path from 'node:path';
import { reuseKey } from '../../domain/jobs/reuse';
import { specOfJob } from '../../domain/jobs/spec';
import {
  JOB_OPTION_FIELDS,
  JOB_SPEC_DEFAULTS,
  jobOptionShape,
  jobSpecOf,
  JobRequestSchema,
  JobSpecSchema,
} from '../../domain/schemas/jobs';
import { planWithSpec, type PlanBeforeSpec } from '../../workflows/definitions';
import { JOB_SPEC_MODULE, recognizerModels } from '../../stack/recognizer-models';

// One job spec (issue 51, item 1): the request's options normalised once, stored whole, carried in the plan,
// read by the recognizer through a generated model.

const request = (body: object) => JobRequestSchema.parse({ source: { url: 'https://www.youtube.com/watch?v=abcdefghijk' }, ...body });

describe('a job spec', () => {
  it('writes every default out, keeps the vocabulary once in the order given, and counts the text to align', () => {
    expect(jobSpecOf(request({ mode: 'captions_only' }))).toEqual({ ...JOB_SPEC_DEFAULTS, mode: 'captions_only' });
    const spec = jobSpecOf(
      request({
        mode: 'transcribe',
        language: 'pt-BR',
        profile: 'fast',
        vocabulary: [' Zeta ', 'alpha', 'Zeta'],
        speaker_labels: true,
        speakers_expected: 3,
      }),
    );
    expect(spec).toEqual({
      ...JOB_SPEC_DEFAULTS,
      mode: 'transcribe',
      language: 'pt-BR',
      profile: 'fast',
      vocabulary: ['Zeta', 'alpha'],
      speaker_labels: true,
      speakers_expected: 3,
    });
    expect(jobSpecOf(request({ mode: 'transcribe', align_text: 'Olá 👋 mundo' })).align_text_chars).toBe(11);
  });

  it('has a default for every field but the mode, so a new option cannot be left without one', () => {
    expect(Object.keys(JOB_SPEC_DEFAULTS).sort()).toEqual(
      Object.keys(JobSpecSchema.shape)
        .filter((f) => f !== 'mode')
        .sort(),
    );
  });

  it('is checked as it is read from its column', () => {
    const spec = jobSpecOf(request({ mode: 'auto' }));
    expect(specOfJob({ id: 'j', spec })).toEqual(spec);
    expect(() => specOfJob({ id: 'j', spec: { ...spec, profile: 'turbo' } })).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    expect(() => specOfJob({ id: 'j', spec: null })).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    expect(() => specOfJob({ id: 'j', spec: [] })).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    expect(() => specOfJob({ id: 'j', spec: { language: 'en' } })).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    // A row written before a field existed reads with that field's default: a new option needs no migration.
    const { speaker_labels: _dropped, ...before } = spec;
    expect(specOfJob({ id: 'j', spec: before })).toEqual(spec);
  });

  // Hashes the reuse key gave before the spec (computed with the code of 81077ed): a retained transcript keeps answering.
  it.each([
    [{ mode: 'captions_only' }, '82e41a268e98c6d1c248cffd312123527c97677b1bd8d1bbc5b9bf5758a1dee9'],
    [
      { mode: 'captions_only', caption_languages: ['EN', 'de'], caption_preference: 'creator_only', word_timing: true },
      '71363e646b108b0ff98bf00771a5c73866df07bc9e8d0a3cb0171e24c498bc51',
    ],
    [{ mode: 'auto', language: 'PT-br' }, '466ea31f3aa18d214e318db04b622130cb5c90143148e9e1bee90f52a7053811'],
    [{ mode: 'auto', speaker_labels: true, word_timing: true }, '972b51af8bc5f6e17f19d04a7bbef481aa6b4ff70db805a8bd521306b9f38930'],
    [{ mode: 'transcribe' }, '588a02aca0f3663a7613762efbf6e29df79d372976f8690a81f4ebfea9e5d0e3'],
    [
      { mode: 'transcribe', language: 'en', profile: 'fast', vocabulary: ['Zeta', 'alpha', 'Zeta'], speaker_labels: true },
      '25c5ca0167d2b3c64828c3d8906366a116e76f8ccbb25cb8288d4ce90aa2374e',
    ],
    [
      { mode: 'transcribe', speaker_labels: true, speakers_expected: 3 },
      '1ff76d82e67147b29d2af6d26fe98fa0d7b8d6a977270ccce76941b443b82393',
    ],
    [
      { mode: 'transcribe', align_text: 'Hello there. General Kenobi.' },
      'cd7191cfae9ff8936c8939d43b72bdfbd3fc1a89906b7730de570cf9ab40eb56',
    ],
  ])('keeps the reuse key of before for %j', (body, key) => {
    const req = request(body);
    expect(reuseKey({ platform: 'videosite', mediaId: 'abcdefghijk', spec: jobSpecOf(req), alignText: req.align_text ?? null })).toBe(key);
  });

  it('takes a field added to the spec into the reuse key when it differs from its default, with no line in reuse.ts', () => {
    const spec = { ...jobSpecOf(request({ mode: 'transcribe' })) };
    const plain = reuseKey({ platform: 'upload', mediaId: 'u', spec, alignText: null });
    const later = { ...spec, later_option: true } as typeof spec;
    (JOB_SPEC_DEFAULTS as Record<string, unknown>).later_option = false;
    try {
      expect(reuseKey({ platform: 'upload', mediaId: 'u', spec: { ...spec, later_option: false } as typeof spec, alignText: null })).toBe(
        plain,
      );
      expect(reuseKey({ platform: 'upload', mediaId: 'u', spec: later, alignText: null })).not.toBe(plain);
    } finally {
      delete (JOB_SPEC_DEFAULTS as Record<string, unknown>).later_option;
    }
  });

  it("gives the agents' transcribe tool the request's own option fields", () => {
    expect(Object.keys(jobOptionShape)).toEqual([...JOB_OPTION_FIELDS]);
    for (const field of JOB_OPTION_FIELDS) expect(jobOptionShape[field]).toBe(JobRequestSchema.shape[field]);
    expect(jobOptionShape.speaker_labels.description).toMatch(/label who speaks when/);
  });
});

describe("the workflow's plan", () => {
  const before: PlanBeforeSpec = {
    jobId: 'j',
    workspaceId: 'w',
    mode: 'transcribe',
    platform: 'upload',
    mediaId: 'u',
    sourceUrl: null,
    canonicalUrl: null,
    recognizer: 'local',
    captionLanguages: [],
    captionPreference: 'prefer_creator',
    language: 'de',
    speakerLabels: true,
    holdId: null,
    status: 'processing',
    stage: 'acquire_audio',
  };

  it('reads a plan recorded before the spec into one, the options absent then at their defaults', () => {
    const plan = planWithSpec(before);
    expect(plan.spec).toEqual({ ...JOB_SPEC_DEFAULTS, mode: 'transcribe', language: 'de', speaker_labels: true });
    expect(plan).not.toHaveProperty('speakerLabels');
    expect(planWithSpec({ ...before, alignText: true }).spec.align_text_chars).toBe(0);
    expect(planWithSpec(plan)).toBe(plan);
  });
});

describe("the recognizer's model of the spec", () => {
  it('is the committed file, generated from JobSpecSchema', () => {
    expect(fs.readFileSync(JOB_SPEC_MODULE, 'utf8')).toBe(recognizerModels());
  });

  it('declares every field of the spec, each but the mode with its default', () => {
    const source = fs.readFileSync(path.join(__dirname, '../../recognizer/job_spec.py'), 'utf8');
    expect(source).toMatch(/^    mode: [^=]+$/m);
    for (const field of Object.keys(JOB_SPEC_DEFAULTS)) expect(source).toMatch(new RegExp(`^    ${field}: [^\\n]*=`, 'm'));
  });
});
