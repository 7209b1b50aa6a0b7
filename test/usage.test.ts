import request from 'supertest';
import { bearer, createWorkspace, startTestApi, type TestApi } from './support/harness';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /v1/usage', () => {
  it('reports the plan, the period and the credit buckets', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    const res = await request(api.app).get('/v1/usage').set(bearer(ws.apiKey)).expect(200);
    expect(res.body).toEqual({
      plan: 'pro',
      period_end: expect.any(String),
      credits_remaining: 6000,
      credits_total: 6000,
      credits_reserved: 0,
      prepaid_credits: 0,
      transcribe_credits_per_minute: 2,
      minimum_billable_seconds: 60,
      subscription: null,
    });
    expect(new Date(res.body.period_end).getTime()).toBeGreaterThan(Date.now() + 27 * 86400_000);
  });

  it('excludes reserved credits from credits_remaining', async () => {
    const ws = await createWorkspace(api.deps);
    await api.deps.db.$executeRaw`UPDATE credit_accounts SET reserved = 5 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const res = await request(api.app).get('/v1/usage').set(bearer(ws.apiKey)).expect(200);
    expect(res.body).toMatchObject({ plan: 'trial', credits_total: 50, credits_reserved: 5, credits_remaining: 45 });
  });
});

describe('GET /v1/capabilities', () => {
  it('answers without a key, as for a trial', async () => {
    const res = await request(api.app).get('/v1/capabilities').expect(200);
    expect(res.body).toMatchObject({
      max_duration_ms: 7200000,
      max_media_bytes: 262144000,
      recognition_profiles: ['standard', 'fast'],
      transcribe_credits_per_minute: 2,
      minimum_billable_seconds: 60,
      free_caption_credits: 50,
      free_caption_credits_period: 'month',
      photosocial_enabled: false,
      plan: null,
    });
    expect(res.body.export_formats.sort()).toEqual(['chapters', 'json', 'srt', 'txt', 'vtt']);
    expect(res.body.price_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(res.body.videosite).toEqual({
      enabled: true,
      captions_only: true,
      auto: false,
      transcribe: false,
      social_acquisition_fee: false,
    });
    expect(res.body.photosocial).toMatchObject({ enabled: false, native_captions: 'unverified_disabled' });
  });

  it("reflects the caller's plan", async () => {
    const trial = await createWorkspace(api.deps);
    const t = await request(api.app).get('/v1/capabilities').set(bearer(trial.apiKey)).expect(200);
    expect(t.body.videosite).toMatchObject({ auto: false, transcribe: false });
    expect(t.body.upload.transcribe).toBe(false);
    const pro = await createWorkspace(api.deps, { plan: 'pro' });
    const p = await request(api.app).get('/v1/capabilities').set(bearer(pro.apiKey)).expect(200);
    expect(p.body.plan).toBe('pro');
    expect(p.body.videosite).toMatchObject({ captions_only: true, auto: true, transcribe: true });
    expect(p.body.upload).toMatchObject({ captions_only: false, transcribe: true });
    expect(p.body.direct).toMatchObject({ captions_only: false, auto: false, transcribe: true });
  });
});
