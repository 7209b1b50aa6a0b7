import fs from 'node:fs';
import request from 'supertest';
import { bearer, type TestApi, type TestWorkspace } from './harness';

/** Reserves a slot, PUTs the bytes to the signed URL (the local store's, through the app) and returns the slot. */
export async function reserveAndPut(
  api: TestApi,
  ws: TestWorkspace,
  file: string | Buffer,
  contentType: string,
  opts: { declaredBytes?: number; filename?: string } = {},
) {
  const body = typeof file === 'string' ? fs.readFileSync(file) : file;
  const slot = await request(api.app)
    .post('/v1/uploads')
    .set(bearer(ws.apiKey))
    .send({ filename: opts.filename ?? 'talk.mp3', content_type: contentType, bytes: opts.declaredBytes ?? body.length });
  if (slot.status !== 201) throw new Error(`reserve answered ${slot.status}: ${JSON.stringify(slot.body)}`);
  const url = new URL(slot.body.signed_upload_url);
  const put = await request(api.app)
    .put(url.pathname + url.search)
    .set('content-type', contentType)
    .send(body);
  return { slot: slot.body, put };
}

export async function complete(api: TestApi, ws: TestWorkspace, id: string) {
  return request(api.app).post(`/v1/uploads/${id}/complete`).set(bearer(ws.apiKey));
}

/** A ready upload of `file`. */
export async function uploadReady(api: TestApi, ws: TestWorkspace, file: string, contentType: string): Promise<string> {
  const { slot, put } = await reserveAndPut(api, ws, file, contentType);
  if (put.status >= 300) throw new Error(`PUT answered ${put.status}: ${put.text}`);
  const done = await complete(api, ws, slot.id);
  if (done.status !== 200) throw new Error(`complete answered ${done.status}: ${JSON.stringify(done.body)}`);
  return slot.id;
}
