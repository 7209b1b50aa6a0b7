import type { Config } from './config';

// A fixed key outside production keeps local data readable across restarts;
// production refuses to start without its own key.
const DEVELOPMENT_ONLY_KEY = 'development-only-secrets-key-not-for-production';

export function resolveSecretsKey(cfg: Config): string {
  if (cfg.SECRETS_KEY) return cfg.SECRETS_KEY;
  if (cfg.APP_ENV === 'production') throw new Error('SECRETS_KEY must be set in production (32+ random characters).');
  return DEVELOPMENT_ONLY_KEY;
}
