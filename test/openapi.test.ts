import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import request from 'supertest';
import { ERROR_CATALOGUE } from '../core/errors';
import { bearer, createWorkspace, startTestApi, type TestApi } from './support/harness';

// Every endpoint of the spec, as (method, OpenAPI path).
const SPEC_ENDPOINTS: [string, string][] = [
  ['get', '/v1/capabilities'],
  ['post', '/v1/jobs'],
  ['get', '/v1/jobs'],
  ['get', '/v1/jobs/{id}'],
  ['post', '/v1/jobs/{id}/cancel'],
  ['post', '/v1/jobs/{id}/retry'],
  ['post', '/v1/batches'],
  ['get', '/v1/batches/{id}'],
  ['get', '/v1/transcripts/{id}'],
  ['get', '/v1/transcripts/{id}/export'],
  ['delete', '/v1/transcripts/{id}'],
  ['post', '/v1/uploads'],
  ['post', '/v1/uploads/{id}/complete'],
  ['post', '/v1/video-discoveries'],
  ['get', '/v1/video-discoveries/{id}'],
  ['post', '/v1/language-discoveries'],
  ['get', '/v1/language-discoveries/{id}'],
  ['post', '/v1/webhook-endpoints'],
  ['get', '/v1/webhook-endpoints'],
  ['delete', '/v1/webhook-endpoints/{id}'],
  ['get', '/v1/usage'],
  ['get', '/app/keys'],
  ['post', '/app/keys'],
  ['delete', '/app/keys/{id}'],
  ['post', '/app/billing/checkout'],
  ['get', '/app/billing/quote'],
  ['post', '/app/billing/portal'],
  ['get', '/app/profile'],
  ['patch', '/app/profile'],
  ['delete', '/app/account'],
  ['get', '/app/webhooks/deliveries'],
];

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, version 1.0.0, with every endpoint of the spec', async () => {
    const { body: doc } = await request(api.app).get('/openapi.json').expect(200);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    for (const [method, path] of SPEC_ENDPOINTS) {
      expect(doc.paths[path]?.[method]).toBeDefined();
    }
  });

  it('states the scope and the error codes of every operation', async () => {
    const { body: doc } = await request(api.app).get('/openapi.json');
    for (const [method, path] of SPEC_ENDPOINTS) {
      const op = doc.paths[path][method];
      expect(op['x-required-scope']).toBeDefined();
      expect(Array.isArray(op['x-error-codes'])).toBe(true);
      for (const code of op['x-error-codes']) {
        const status = String(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status);
        expect(op.responses[status]).toBeDefined();
      }
    }
    // What any operation can answer (found by the schema fuzzer's long random run, where the documents lacked them):
    // 503 while the process stops or its database is away; 413 for a body over the limit on any that takes one.
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, { responses: object }>>)) {
      for (const [method, op] of Object.entries(methods)) {
        expect({ path, method, has503: '503' in op.responses }).toEqual({ path, method, has503: true });
        if (method !== 'get') expect({ path, method, has413: '413' in op.responses }).toEqual({ path, method, has413: true });
      }
    }
    expect(doc.paths['/v1/jobs'].post['x-required-scope']).toBe('jobs:write');
    expect(doc.paths['/v1/webhook-endpoints'].post['x-required-scope']).toBe('owner-session');
    expect(doc.paths['/v1/capabilities'].get['x-required-scope']).toBe('none');
  });

  it('is generated from the request schemas (the job request fields and limits appear)', async () => {
    const { body: doc } = await request(api.app).get('/openapi.json');
    const job = doc.components.schemas.JobRequest;
    expect(Object.keys(job.properties).sort()).toEqual(
      [
        'caption_languages',
        'caption_preference',
        'language',
        'max_credits',
        'max_duration_s',
        'metadata',
        'mode',
        'profile',
        'redact_pii',
        'redact_pii_types',
        'redacted_audio',
        'source',
        'speaker_labels',
        'speakers_expected',
        'translate_to',
        'vocabulary',
        'webhook_endpoint_id',
        'word_timing',
        'align_text',
        'chapters',
        'filter_profanity',
        'disfluencies',
        'summarize',
      ].sort(),
    );
    expect(job.properties.caption_languages.maxItems).toBe(5);
    expect(job.properties.max_duration_s).toMatchObject({ type: 'integer', minimum: 10, maximum: 43200 });
    // Issue 25's fields and their bounds, as the API checks them.
    expect(job.properties.vocabulary).toMatchObject({ maxItems: 100, items: { minLength: 1, maxLength: 50 } });
    // A pattern is what a client validates with: the vocabulary's takes a real term and refuses a control
    // character (zod-to-openapi wrote "^[^\\p{Cc}]*$/u", which matched no term; the long fuzz run flagged it).
    const vocabulary = new RegExp(job.properties.vocabulary.items.pattern, 'u');
    expect(['Quilter', 'São Paulo', '東京'].map((t) => vocabulary.test(t))).toEqual([true, true, true]);
    expect(vocabulary.test('a\u0001b')).toBe(false);
    // The same characters as the API's own rule (/^[^\p{Cc}]*$/u), every code point, in ranges any dialect reads.
    const disagree: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      if (vocabulary.test(c) !== /^[^\p{Cc}]*$/u.test(c)) disagree.push(cp);
    }
    expect(disagree).toEqual([]);
    // And every pattern of the document is one (no regex-literal flags glued on).
    const patterns: string[] = [];
    JSON.stringify(doc, (key, value) => (key === 'pattern' && typeof value === 'string' && patterns.push(value), value));
    for (const pattern of patterns) expect({ pattern, flagged: /\/[a-z]+$/.test(pattern) }).toEqual({ pattern, flagged: false });
    expect(job.properties.speakers_expected).toMatchObject({ minimum: 1, maximum: 10 });
    expect(job.properties.profile.enum).toEqual(['standard', 'fast']);
    // Forced alignment: the text's limit in characters, as JSON Schema counts them; the transcript's additions.
    expect(job.properties.align_text).toMatchObject({ type: 'string', maxLength: 200_000 });
    expect(job.properties.word_timing).toMatchObject({ type: 'boolean' });
    const transcript = doc.components.schemas.Transcript;
    expect(transcript.properties.source_origin.enum).toContain('provided_text');
    expect(Object.keys(transcript.properties)).toContain('alignment');
    expect(Object.keys(doc.components.schemas.Segment.properties)).toContain('match');
    const exportParams = doc.paths['/v1/transcripts/{id}/export'].get.parameters.map((p: { name: string }) => p.name);
    expect(exportParams).toEqual(expect.arrayContaining(['format', 'max_line_length', 'max_lines']));
    expect(job.required).toEqual(expect.arrayContaining(['source', 'mode']));
    expect(job.additionalProperties).toBe(false);
  });

  it('serves a readable reference page', async () => {
    const res = await request(api.app).get('/docs/').expect(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('keeps ingress endpoints out of the public document', async () => {
    const { body: doc } = await request(api.app).get('/openapi.json');
    expect(Object.keys(doc.paths).filter((p) => p.includes('ingress'))).toEqual([]);
  });
});

describe('the document states every rule the server enforces', () => {
  let doc: any;
  beforeAll(async () => {
    doc = (await request(api.app).get('/openapi.json')).body;
  });

  it('exactly one of source.url and source.upload_id', async () => {
    expect(doc.components.schemas.JobSourceRequest.oneOf).toEqual([{ required: ['url'] }, { required: ['upload_id'] }]);
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    for (const source of [{}, { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw', upload_id: '6f1c1c1e-8a52-4a4e-9a57-1b1c2d3e4f50' }]) {
      const res = await request(api.app)
        .post('/v1/jobs')
        .set(bearer(ws.apiKey))
        .set('Idempotency-Key', `k-${Math.random()}`)
        .send({ source, mode: 'transcribe' });
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('platform and source_id together or not at all (one exploded object parameter with dependentRequired)', async () => {
    const params = doc.paths['/v1/jobs'].get.parameters;
    const query = params.find((p: any) => p.in === 'query');
    expect(params.filter((p: any) => p.in === 'query')).toHaveLength(1);
    expect(query).toMatchObject({
      style: 'form',
      explode: true,
      schema: { type: 'object', dependentRequired: { platform: ['source_id'], source_id: ['platform'] } },
    });
    expect(Object.keys(query.schema.properties).sort()).toEqual(['cursor', 'limit', 'platform', 'source_id']);
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    const res = await request(api.app).get('/v1/jobs').query({ platform: 'videosite' }).set(bearer(ws.apiKey));
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'platform' } });
    await request(api.app).get('/v1/jobs').query({ platform: 'videosite', source_id: 'abc' }).set(bearer(ws.apiKey)).expect(200);
  });

  it('quote units in steps of 1,000', () => {
    const units = doc.paths['/app/billing/quote'].get.parameters.find((p: any) => p.name === 'units');
    expect(units.schema).toMatchObject({ type: 'integer', minimum: 1000, maximum: 100000, multipleOf: 1000 });
  });

  it('the e-mail rule as the pattern the server applies', async () => {
    const email = doc.components.schemas.SignUpRequest.properties.email;
    const pattern = new RegExp(email.pattern);
    const samples = [
      'name@example.com',
      'a.b+tag@sub.example.org',
      '.lead@example.com',
      'a..b@example.com',
      'no-tld@example',
      'x@-bad.com',
      "o'brien@example.ie",
    ];
    for (const address of samples) {
      const res = await request(api.app)
        .post('/app/sign-up')
        .send({ email: address, password: 'a long enough password', display_name: 'Rule' });
      // What the document allows is accepted (202, the same answer whether or not the address is taken); what it refuses is 422 naming `email`.
      if (pattern.test(address)) expect(res.status).toBe(202);
      else expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'email' } });
    }
  });

  it('metadata: at most 10 values, keys 1-64 characters', () => {
    expect(doc.components.schemas.Metadata).toMatchObject({ maxProperties: 10, propertyNames: { minLength: 1, maxLength: 64 } });
  });

  it('401 on a wrong sign-in password', () => {
    expect(doc.paths['/app/session'].post.responses['401']).toBeDefined();
  });

  it('no 501 on the discoveries nor on billing, which are built', () => {
    for (const path of ['/v1/video-discoveries', '/v1/language-discoveries']) {
      expect(doc.paths[path].post.responses['501']).toBeUndefined();
      expect(doc.paths[path].post.responses['202']).toBeDefined();
      expect(doc.paths[`${path}/{id}`].get.parameters.map((p: { name: string }) => p.name)).toContain('wait');
    }
    for (const [method, path] of [
      ['post', '/app/billing/checkout'],
      ['post', '/app/billing/portal'],
    ]) {
      expect(doc.paths[path!][method!].responses['501']).toBeUndefined();
      // 503 while no payment provider is configured (test/billing.test.ts).
      expect(doc.paths[path!][method!].responses['503']).toBeDefined();
    }
  });

  it('the text rule, the dependency 503 and the 405', () => {
    expect(doc.info.description).toMatch(/U\+0000/);
    expect(doc.info.description).toMatch(/503 SERVICE_UNAVAILABLE/);
    expect(doc.info.description).toMatch(/405 METHOD_NOT_ALLOWED/);
  });
});

describe('what the document says a response is, a JSON Schema validator reads the same way', () => {
  let doc: any;
  let schemaOf: (name: string) => ValidateFunction;
  beforeAll(async () => {
    doc = (await request(api.app).get('/openapi.json')).body;
    // The document as one schema resource, so that its `#/components/...` references resolve; formats are not the point here.
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'openapi' });
    schemaOf = (name) => ajv.getSchema(`openapi#/components/schemas/${name}`)!;
  });

  const anError = { code: 'NO_SPEECH', message: 'No speech was found.', retryable: false, details: { detail: 'audio' } };

  it('every error response is the one ErrorEnvelope, and a real one validates against it', async () => {
    for (const ops of Object.values<Record<string, any>>(doc.paths))
      for (const op of Object.values<any>(ops))
        for (const [status, response] of Object.entries<any>(op.responses))
          if (Number(status) >= 400)
            expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    const unauthenticated = await request(api.app).get('/v1/jobs');
    const invalid = await request(api.app).get('/v1/jobs/not-a-uuid').set(bearer(ws.apiKey));
    expect([unauthenticated.status, invalid.status]).toEqual([401, 422]);
    for (const res of [unauthenticated, invalid]) expect(schemaOf('ErrorEnvelope')(res.body)).toBe(true);
    expect(schemaOf('ErrorEnvelope')({ error: anError, request_id: 'r' })).toBe(false); // doc_url is required
  });

  it('a nullable error field takes null and an error; a required one takes no null (no `allOf` with a null type)', () => {
    const job = schemaOf('Job');
    // Only the field under test is checked: the other properties' errors are filtered out by their path.
    const errorsAt = (value: unknown) => (job({ error: value }), (job.errors ?? []).filter((e) => e.instancePath.startsWith('/error')));
    expect(errorsAt(null)).toEqual([]);
    expect(errorsAt(anError)).toEqual([]);
    expect(errorsAt('no')).not.toEqual([]);
    expect(schemaOf('ErrorObject')(null)).toBe(false);
    expect(schemaOf('ErrorObject')(anError)).toBe(true);
    const retry = doc.components.schemas.Job.properties.retry;
    expect(retry.properties.last_error).toEqual({ $ref: '#/components/schemas/ErrorObject' });
    const withNullType = JSON.stringify(doc).match(/"allOf":\[[^\]]*"type":\[[^\]]*"null"/g);
    expect(withNullType).toBeNull();
  });
});
