import type { Client as TemporalClient } from '@temporalio/client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../domain/config';
import type { Db } from '../../domain/db';
import type { AddressHourlyLimit, RateLimits, SignInThrottle } from './rate-limit';
import type { JobWakeups } from '../../domain/jobs/wakeups';
import type { AddressPolicy } from '../../integrations/fetch';
import type { AssemblyAiRecognizer } from '../../integrations/recognizers/cloud';
import type { Recognizer } from '../../integrations/recognizers/types';
import type { ObjectStore } from '../../integrations/storage';
import type { StartDispatcher } from '../../domain/start-dispatcher';
import type { Stripe } from '../../integrations/payments/stripe-client';
import type { RequestLoad } from './request-load';
import type { TextEmbedder } from '../../integrations/embeddings/e5';
import type { RedactionCoverage } from '../../domain/transcripts/redaction';

/** Everything a handler may use; built once per API process in api/app.ts. */
export interface AppDeps {
  config: Config;
  db: Db;
  pool: Pool;
  temporal: TemporalClient;
  logger: Logger;
  rateLimits: RateLimits;
  /** Failed password sign-ins per client address and e-mail (api/http/rate-limit.ts). */
  signInThrottle: SignInThrottle;
  /** Sign-ups per client address per hour (SIGN_UPS_PER_HOUR). */
  signUpLimit: AddressHourlyLimit;
  /** OAuth dynamic client registrations per client address per hour (OAUTH_REGISTRATIONS_PER_HOUR). */
  oauthRegistrationLimit: AddressHourlyLimit;
  wakeups: JobWakeups;
  secretsKey: string;
  baseUrl: string;
  /** SSRF policy for webhook endpoint URLs (tests allow loopback only). */
  addressPolicy: AddressPolicy;
  objectStore: ObjectStore;
  /** The recognizer jobs will use (its languages decide LANGUAGE_UNSUPPORTED at submit). */
  recognizer: Recognizer;
  cloudRecognizer: AssemblyAiRecognizer | null;
  /** Starts workflows right after their accepting commits (one per API process; drained at shutdown). */
  starts: StartDispatcher;
  /** The writes this process is answering: while it is busy, `starts` holds its starts (api/http/request-load.ts). */
  requestLoad: RequestLoad;
  /** The search query's embedder (search by meaning); null where the model is not installed. */
  embedder: TextEmbedder | null;
  /** The personal-data model's coverage (what `redact_pii_types` may name, in which languages): PII_MODEL_DIR. */
  redaction: RedactionCoverage;
  /** stripe-node for billing (domain/billing); null without STRIPE_SECRET_KEY (checkout and portal answer 503). */
  stripe: Stripe | null;
  /**
   * Aborted when this process begins a graceful stop (api/http/drain.ts): waits that hold a request end at once
   * and answer what they have. Absent where nothing stops the process that way (tests' in-process apps).
   */
  stopping?: AbortSignal;
  /** Tests only: CA (PEM) of the self-signed loopback https server serving OAuth client metadata documents. */
  caForTests?: string;
}
