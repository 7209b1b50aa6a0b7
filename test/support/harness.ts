import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PocketsphinxRecognizer } from '../../integrations/recognizers/pocketsphinx';
import { LocalDiskObjectStore } from '../../integrations/storage';
import type { Express } from 'express';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/http/context';
import { RateLimits } from '../../api/http/rate-limit';
import { createApiKey, signUp } from '../../domain/accounts/accounts';
import { changePlan } from '../../domain/accounts/plan';
import { SCOPES, type Scope } from '../../domain/accounts/principal';
import { loadConfig } from '../../domain/config';
import { createDb } from '../../domain/db';
import { JobWakeups } from '../../domain/jobs/wakeups';
import type { PlanId } from '../../domain/plans';
import { resolveSecretsKey } from '../../domain/secrets-key';

// Integration tests run against the real PostgreSQL and Temporal servers that
// stack/test-env.ts starts; these helpers build the app in-process on top.

export interface TestApi {
  app: Express;
  deps: AppDeps;
  close: () => Promise<void>;
}

/** One local-disk object store per test process, shared by the in-process API and workers. */
let sharedStore: LocalDiskObjectStore | undefined;
export function testObjectStore(): LocalDiskObjectStore {
  sharedStore ??= new LocalDiskObjectStore({
    root: fs.mkdtempSync(path.join(os.tmpdir(), 'objects-')),
    baseUrl: 'http://127.0.0.1',
    signingSecret: Buffer.from('test-upload-signing-key-0123456789abcdef'),
  });
  return sharedStore;
}

export async function startTestApi(
  overrides: Partial<Record<string, string>> = {},
  extra: Partial<AppDeps> = {},
  poolSize = 5,
): Promise<TestApi> {
  const cfg = loadConfig({ ...process.env, APP_ENV: 'test', LOG_LEVEL: 'silent', ...overrides });
  await testObjectStore().ensureBucket();
  const { prisma, pool } = createDb(cfg.DATABASE_URL, poolSize);
  const connection = await Connection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE });
  const wakeups = new JobWakeups(pool);
  await wakeups.start();
  const deps: AppDeps = {
    config: cfg,
    db: prisma,
    pool,
    temporal,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    rateLimits: new RateLimits(pool),
    wakeups,
    secretsKey: resolveSecretsKey(cfg),
    baseUrl: 'http://127.0.0.1',
    addressPolicy: { loopbackOnly: true },
    objectStore: testObjectStore(),
    recognizer: new PocketsphinxRecognizer(),
    cloudRecognizer: null,
    ...extra,
  };
  const app = createApp(deps);
  return {
    app,
    deps,
    close: async () => {
      await wakeups.close();
      await connection.close();
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
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
