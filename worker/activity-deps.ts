import type { ActivityDeps } from '../activities';
import { addressPolicy, deeplSettings, outboundSettings, recognizerSettings, translationSettings, type Config } from '../domain/config';
import { createDeeplTranslator } from '../integrations/translation/deepl';
import type { Db } from '../domain/db';
import { resolveSecretsKey } from '../domain/secrets-key';
import { downloadAudio } from '../integrations/media/download';
import type { Outbound } from '../integrations/outbound/http';
import { createCaptionSources } from '../integrations/platforms/sources';
import { createDiscoverySources } from '../integrations/platforms/discovery';
import { selectRecognizers } from '../integrations/recognizers/select';
import type { ObjectStore } from '../integrations/storage';
import { rampartTagger } from '../integrations/pii/rampart';

/**
 * The activities' dependencies from the worker's settings: one place for the
 * production worker (worker/main.ts) and the tests (test/support/job-stack.ts),
 * which change only what `overrides` names (a test CA, shorter timeouts).
 */
export function activityDepsFromConfig(
  cfg: Config,
  io: { db: Db; store: ObjectStore; outbound: Outbound },
  overrides: {
    transcription?: Partial<ActivityDeps['transcription']>;
    webhooks?: Partial<ActivityDeps['webhooks']>;
  } = {},
): ActivityDeps {
  const recognizers = selectRecognizers(recognizerSettings(cfg));
  return {
    db: io.db,
    store: io.store,
    captions: createCaptionSources(io.outbound),
    transcription: {
      recognizer: recognizers.local,
      cloud: recognizers.cloud,
      recognitionTaskQueue: cfg.RECOGNITION_TASK_QUEUE,
      callbackUrl: `${cfg.PUBLIC_BASE_URL ?? `http://127.0.0.1:${cfg.PORT}`}/ingress/asr/assemblyai`,
      directLinkPolicy: addressPolicy(cfg),
      downloadPlatformAudio: (url, platform, toDir) => downloadAudio(url, platform, { toDir, outbound: outboundSettings(cfg) }),
      ...overrides.transcription,
    },
    webhooks: { secretsKey: resolveSecretsKey(cfg), addressPolicy: addressPolicy(cfg), outbound: io.outbound, ...overrides.webhooks },
    discoveries: { sources: createDiscoverySources(io.outbound), secretsKey: resolveSecretsKey(cfg) },
    embeddingTaskQueue: cfg.EMBEDDING_TASK_QUEUE,
    summaryTaskQueue: cfg.SUMMARY_TASK_QUEUE,
    translation: {
      settings: translationSettings(cfg),
      provider: deeplSettings(cfg) ? createDeeplTranslator(deeplSettings(cfg)!) : null,
    },
    personalData: rampartTagger(cfg.PII_MODEL_DIR),
  };
}
