import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WhisperRecognizer } from '../../integrations/recognizers/whisper';
import { LocalDiskObjectStore } from '../../integrations/storage';
import type { Express } from 'express';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/http/context';
import { connectAppDeps } from '../../api/wiring';
import { applyMigrations } from '../../prisma/migrate';
import { createDatabase } from '../../stack/postgres';
import { createApiKey, signUp } from '../../domain/accounts/accounts';
import { changePlan } from '../../domain/accounts/plan';
import { SCOPES, type Scope } from '../../domain/accounts/principal';
import { loadConfig } from '../../domain/config';
import type { PlanId } from '../../core/plans';

// Integration tests run against the real PostgreSQL and Temporal servers that
// stack/test-env.ts starts; these helpers build the app in-process on top.

export interface TestApi {
  app: Express;
  deps: AppDeps;
  close: () => Promise<void>;
}

/**
 * One local-disk object store per test process, shared by the in-process API
 * and workers, and by the recognition worker that npm test starts: under the
 * run's DATA_DIR (stack/test-env.ts sets it), where that worker reads pieces.
 */
let sharedStore: LocalDiskObjectStore | undefined;
export function testObjectStore(baseUrl?: string): LocalDiskObjectStore {
  sharedStore ??= new LocalDiskObjectStore({
    root: process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR, 'objects') : fs.mkdtempSync(path.join(os.tmpdir(), 'objects-')),
    baseUrl: 'http://127.0.0.1',
    signingSecret: UPLOAD_SIGNING_KEY,
  });
  // The same folder and key, signing URLs for an API a browser reaches at `baseUrl`.
  return baseUrl ? new LocalDiskObjectStore({ root: sharedStore.root, baseUrl, signingSecret: UPLOAD_SIGNING_KEY }) : sharedStore;
}
const UPLOAD_SIGNING_KEY = Buffer.from('test-upload-signing-key-0123456789abcdef');

export async function startTestApi(
  overrides: Partial<Record<string, string>> = {},
  extra: Partial<AppDeps> = {},
  poolSize = 5,
): Promise<TestApi> {
  const cfg = loadConfig({ ...process.env, APP_ENV: 'test', LOG_LEVEL: 'silent', ...overrides });
  // The production wiring (api/wiring.ts) with what the tests change: the run's shared store, a quiet logger.
  const { deps, close } = await connectAppDeps(cfg, {
    poolSize,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    overrides: { baseUrl: 'http://127.0.0.1', objectStore: testObjectStore(), recognizer: new WhisperRecognizer(), ...extra },
  });
  return { app: createApp(deps), deps, close };
}

/**
 * A database of its own in the suite's cluster, migrated: for tests that run
 * the workflow starter (it starts every committed job of its database whose
 * start was lost, so on the shared database it would start other test files'
 * jobs on its own queue). Dropped with the cluster's run (stack/test-env.ts
 * drops abandoned test databases by their name).
 */
export async function privateDatabase(tag: string): Promise<string> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${url.pathname.slice(1)}_${tag}_${randomBytes(4).toString('hex')}`;
  await createDatabase(url.toString());
  await applyMigrations(url.toString());
  return url.toString();
}

let counter = 0;
export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}-${process.pid}-${Date.now()}-${counter}@example.test`;
}

export interface TestWorkspace {
  workspaceId: string;
  userId: string;
  email: string;
  password: string;
  apiKey: string;
}

/** A workspace with a verified owner on `plan` and an API key with `scopes`. */
export async function createWorkspace(
  deps: AppDeps,
  opts: { plan?: PlanId; scopes?: Scope[]; verified?: boolean } = {},
): Promise<TestWorkspace> {
  const email = uniqueEmail(opts.plan ?? 'trial');
  const password = 'correct horse battery staple';
  const { user, workspace } = await signUp(deps.db, { email, password, display_name: 'Test' }, { baseUrl: deps.baseUrl });
  if (opts.verified !== false) await deps.db.user.update({ where: { id: user.id }, data: { emailVerifiedAt: new Date() } });
  if (opts.plan && opts.plan !== 'trial') await changePlan(deps.db, workspace.id, opts.plan);
  const key = await createApiKey(deps.db, workspace.id, { name: 'test', scopes: opts.scopes ?? [...SCOPES] });
  return { workspaceId: workspace.id, userId: user.id, email, password, apiKey: key.secret };
}

/** Signs in through the API and returns the cookie and CSRF token of the session. */
export async function signInSession(app: Express, email: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const res = await request(app).post('/app/session').send({ email, password }).expect(200);
  const setCookie = res.headers['set-cookie'] as unknown as string[];
  return { cookie: setCookie.map((c) => c.split(';')[0]).join('; '), csrf: res.body.csrf_token };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** A supertest parser that keeps the body as the exact text sent, for byte-for-byte checks of JSON. */
export function textBody(res: import('supertest').Response, callback: (err: Error | null, body: string) => void): void {
  // What supertest hands a parser is the response stream.
  const stream = res as unknown as import('node:http').IncomingMessage;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => callback(null, text));
}
