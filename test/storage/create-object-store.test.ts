import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, objectStoreSettings } from '../../domain/config';
import { createObjectStore } from '../../integrations/storage/create-object-store';

/** The store settings a process with this environment gets (domain/config.ts). */
const objectStoreConfigFromEnv = (env: Record<string, string>) =>
  objectStoreSettings(loadConfig({ DATABASE_URL: 'postgresql://x/y', APP_ENV: 'test', ...env }));
import { LocalDiskObjectStore } from '../../integrations/storage/local-disk-object-store';
import { S3ObjectStore } from '../../integrations/storage/s3-object-store';

describe('createObjectStore', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-factory-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('without S3_ENDPOINT: local disk under DATA_DIR/objects, URLs on PUBLIC_BASE_URL', async () => {
    const store = createObjectStore(objectStoreConfigFromEnv({ DATA_DIR: dir, PUBLIC_BASE_URL: 'https://api.example.com/base' }));
    expect(store).toBeInstanceOf(LocalDiskObjectStore);
    expect((store as LocalDiskObjectStore).root).toBe(path.join(dir, 'objects'));
    expect(await store.presignPut('uploads/a', { contentType: 'audio/wav', bytes: 5, expiresSeconds: 60 })).toMatch(
      /^https:\/\/api\.example\.com\/base\/uploads\/put\/uploads\/a\?/,
    );
  });

  test('without a configured secret, a random key is kept in the data folder and reused (API and worker agree)', async () => {
    const a = createObjectStore(objectStoreConfigFromEnv({ DATA_DIR: dir })) as LocalDiskObjectStore;
    const b = createObjectStore(objectStoreConfigFromEnv({ DATA_DIR: dir })) as LocalDiskObjectStore;
    const keyFile = path.join(dir, 'objects', '.upload-signing-key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const p = { key: 'uploads/a', expires: 2_000_000_000, contentType: 'audio/wav', bytes: 5 };
    const sig = new URL(await a.presignPut('uploads/a', { contentType: 'audio/wav', bytes: 5, expiresSeconds: 60 })).searchParams;
    expect(b.verifySignature({ ...p, expires: Number(sig.get('expires')) }, sig.get('signature')!)).toBe(true);
  });

  test('SECRETS_KEY or UPLOAD_SIGNING_SECRET set the key; no file is written', () => {
    expect(objectStoreConfigFromEnv({ SECRETS_KEY: 'k'.repeat(32) }).signingSecret).toHaveLength(32);
    expect(objectStoreConfigFromEnv({ UPLOAD_SIGNING_SECRET: 's'.repeat(40) }).signingSecret?.toString()).toBe('s'.repeat(40));
    createObjectStore(objectStoreConfigFromEnv({ DATA_DIR: dir, SECRETS_KEY: 'k'.repeat(32) }));
    expect(fs.existsSync(path.join(dir, 'objects', '.upload-signing-key'))).toBe(false);
  });

  test('with S3_ENDPOINT: S3', () => {
    const config = objectStoreConfigFromEnv({
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY: 'a',
      S3_SECRET_KEY: 'b',
      S3_BUCKET: 'transcripts',
      S3_PUBLIC_ENDPOINT: 'http://localhost:9000',
    });
    expect(config.s3).toEqual({
      endpoint: 'http://minio:9000',
      publicEndpoint: 'http://localhost:9000',
      accessKey: 'a',
      secretKey: 'b',
      bucket: 'transcripts',
      region: undefined,
    });
    const store = createObjectStore(config);
    expect(store).toBeInstanceOf(S3ObjectStore);
    expect(store.kind).toBe('s3');
  });
});
