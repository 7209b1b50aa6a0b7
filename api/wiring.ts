import { Client } from '@temporalio/client';
import pino, { type Logger } from 'pino';
import { addressPolicy, objectStoreSettings, recognizerSettings, stripeSettings, translationSettings, type Config } from '../domain/config';
import { createDb, openPool } from '../domain/db';
import { JobWakeups } from '../domain/jobs/wakeups';
import { resolveSecretsKey } from '../domain/secrets-key';
import { markWorkflowsStarted } from '../domain/workflow-starts';
import { StartDispatcher } from '../domain/start-dispatcher';
import { connectTemporal } from '../integrations/temporal-connection';
import { selectRecognizers } from '../integrations/recognizers/select';
import { createObjectStore } from '../integrations/storage';
import { traceObjectStore } from '../integrations/telemetry/spans';
import { logTraceFields, temporalClientInterceptors } from '../integrations/telemetry/tracing';
import { createStripeClient } from '../integrations/payments/stripe-client';
import type { BillingDeps } from '../domain/billing';
import type { DiscoveryServiceDeps } from '../domain/discoveries/submit';
import type { JobServiceDeps } from '../domain/jobs/submit';
import type { AppDeps } from './http/context';
import { AddressHourlyLimit, RateLimits, SignInThrottle } from './http/rate-limit';
import { createRequestLoad } from './http/request-load';
import { e5Embedder } from '../integrations/embeddings/e5';
import type { SearchContext } from '../domain/search/query';
import { rampartTagger } from '../integrations/pii/rampart';
import { redactionCoverage } from '../domain/transcripts/redaction';

/**
 * The API's dependencies from its settings: one place for the production
 * process (api/main.ts) and the tests (test/support/harness.ts), which pass
 * only what differs (their object store, a quiet logger, a smaller pool).
 */
export async function connectAppDeps(
  cfg: Config,
  opts: { logger?: Logger; poolSize?: number; overrides?: Partial<AppDeps> } = {},
): Promise<{ deps: AppDeps; close: () => Promise<void> }> {
  // The logger is built below; a connection lost before then (none can be) would go unlogged.
  let logger: Logger | undefined;
  const {
    prisma,
    pool,
    close: closeDb,
  } = createDb(cfg.DATABASE_URL, opts.poolSize, (err) => logger?.warn({ err: err.message }, 'database connection lost'), {
    keepOpen: true,
  });
  const connection = await connectTemporal(cfg.TEMPORAL_ADDRESS);
  const temporal = new Client({
    connection: connection.connection,
    namespace: cfg.TEMPORAL_NAMESPACE,
    interceptors: temporalClientInterceptors(),
  });
  const wakeups = new JobWakeups(pool);
  await wakeups.start();
  // Open before the first request, and kept open (createDb keepOpen).
  await openPool(pool);
  const objectStore = traceObjectStore(opts.overrides?.objectStore ?? createObjectStore(objectStoreSettings(cfg)));
  await objectStore.ensureBucket();
  const recognizers = selectRecognizers(recognizerSettings(cfg));
  const stripe = stripeSettings(cfg);
  const requestLoad = createRequestLoad();
  const deps: Omit<AppDeps, 'starts'> & { starts?: StartDispatcher } = {
    config: cfg,
    db: prisma,
    pool,
    temporal,
    logger:
      opts.logger ??
      pino({
        level: cfg.LOG_LEVEL,
        base: { service: 'api' },
        mixin: logTraceFields,
        redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret'],
      }),
    rateLimits: new RateLimits(pool),
    signInThrottle: new SignInThrottle(pool, cfg.SIGN_IN_FAILURES_PER_15_MINUTES),
    signUpLimit: new AddressHourlyLimit(
      pool,
      'sign_ups_per_hour',
      cfg.SIGN_UPS_PER_HOUR,
      'Sign in to the account you created, or try again later.',
    ),
    oauthRegistrationLimit: new AddressHourlyLimit(
      pool,
      'oauth_registrations_per_hour',
      cfg.OAUTH_REGISTRATIONS_PER_HOUR,
      'Reuse the client_id you registered, or publish a client ID metadata document (no registration needed).',
    ),
    wakeups,
    secretsKey: resolveSecretsKey(cfg),
    baseUrl: cfg.PUBLIC_BASE_URL ?? `http://127.0.0.1:${cfg.PORT}`,
    addressPolicy: addressPolicy(cfg),
    objectStore,
    recognizer: recognizers.active,
    cloudRecognizer: recognizers.cloud,
    stripe: stripe ? createStripeClient(stripe) : null,
    embedder: e5Embedder(cfg.EMBEDDING_MODEL_DIR),
    redaction: redactionCoverage(rampartTagger(cfg.PII_MODEL_DIR)),
    requestLoad,
    ...opts.overrides,
  };
  logger = deps.logger;
  // Built from the final Temporal client and logger (a test may pass its own client).
  const starts =
    deps.starts ??
    new StartDispatcher(
      { temporal: deps.temporal, taskQueue: cfg.TEMPORAL_TASK_QUEUE },
      (err, what) => deps.logger.warn({ err, what }, 'workflow start after commit failed; the starter will make it up'),
      { markStarted: (table, ids) => markWorkflowsStarted(deps.db, table, ids), busy: deps.requestLoad.busy },
    );
  return {
    deps: { ...deps, starts },
    close: async () => {
      // Starts already handed over finish (each is bounded) before their connection closes.
      await starts.drain();
      await wakeups.close();
      await connection.close();
      await closeDb();
    },
  };
}

// ---- What each domain service is given from the API's dependencies: built
// here once, so routes, the tool server and the dashboard use the same.

export function searchContext(deps: AppDeps): SearchContext {
  return { secretsKey: deps.secretsKey, baseUrl: deps.baseUrl, embedder: deps.embedder };
}

export function jobServiceDeps(deps: AppDeps): JobServiceDeps {
  return {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    recognizer: deps.recognizer,
    addressPolicy: deps.addressPolicy,
    photosocialEnabled: deps.config.PHOTOSOCIAL_ENABLED,
    asrEnabled: deps.config.ASR_ENABLED,
    chaptersEnabled: deps.embedder !== null,
    summariesEnabled: deps.config.LLM_BASE_URL !== undefined,
    redaction: deps.redaction,
    translation: translationSettings(deps.config),
    cancelWaitMs: deps.config.CANCEL_WAIT_SECONDS * 1000,
    starts: deps.starts,
  };
}

export function discoveryDeps(deps: AppDeps): DiscoveryServiceDeps {
  return {
    db: deps.db,
    secretsKey: deps.secretsKey,
    starts: deps.starts,
    temporal: deps.temporal,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
  };
}

export function billingDeps(deps: AppDeps): BillingDeps {
  return {
    db: deps.db,
    stripe: deps.stripe,
    webhookSecret: deps.config.STRIPE_WEBHOOK_SECRET ?? null,
    baseUrl: deps.baseUrl,
    logger: deps.logger,
  };
}
