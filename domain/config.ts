import { z } from 'zod';

// Settings are parsed once at boot; a wrong value stops the process with a
// message that names the variable.
const ConfigSchema = z.object({
  APP_ENV: z.enum(['development', 'test', 'production']).default('development'),
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
  PLATFORM_ORIGIN_OVERRIDE: z.string().url().optional(),
  EGRESS_PROXIES: z.string().optional(),
  PHOTOSOCIAL_ENABLED: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  ASR_ENABLED: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_API_BASE: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
});

export type Config = z.infer<typeof ConfigSchema>;

let cached: Config | undefined;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  return parsed.data;
}

export function config(): Config {
  cached ??= loadConfig();
  return cached;
}

/** For tests that change settings between cases. */
export function resetConfig(): void {
  cached = undefined;
}

export function isLocal(cfg: Config = config()): boolean {
  return cfg.APP_ENV !== 'production';
}
