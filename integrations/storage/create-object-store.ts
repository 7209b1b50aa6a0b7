import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LocalDiskObjectStore } from './local-disk-object-store';
import type { ObjectStore } from './object-store';
import { S3ObjectStore, type S3ObjectStoreOptions } from './s3-object-store';
import { traceObjectStore } from '../telemetry/spans';

// Settings come from domain/config.ts (objectStoreSettings).

// Picks the store: S3 when S3_ENDPOINT is set, otherwise files under
// DATA_DIR/objects (the embedded dev default, served by createLocalUploadHandler).

export interface ObjectStoreConfig {
  /** Set (from S3_ENDPOINT) to use S3; null/undefined for local disk. */
  s3?: S3ObjectStoreOptions | null;
  /** DATA_DIR; local objects go to <dataDir>/objects. */
  dataDir: string;
  /** Base of the local signed PUT URLs: the API's public URL (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  /**
   * Key for the local signed PUT URLs. The API and every other process that
   * presigns must share it. When absent, a random key is kept in
   * <dataDir>/objects/.upload-signing-key (fine for one machine).
   */
  signingSecret?: Buffer;
}

export function createObjectStore(config: ObjectStoreConfig): ObjectStore {
  if (config.s3) return traceObjectStore(new S3ObjectStore(config.s3));
  const root = path.resolve(config.dataDir, 'objects');
  return traceObjectStore(
    new LocalDiskObjectStore({ root, baseUrl: config.publicBaseUrl, signingSecret: config.signingSecret ?? persistedKey(root) }),
  );
}

function persistedKey(root: string): Buffer {
  const file = path.join(root, '.upload-signing-key');
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(root, { recursive: true });
  const key = randomBytes(32);
  try {
    // 'wx': when the API and the worker start together, the first writer wins and the other reads its key.
    fs.writeFileSync(file, key.toString('hex'), { flag: 'wx', mode: 0o600 });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  }
}
