import type { Db } from '../domain/db';
import type { EntityTagger } from '../domain/transcripts/redaction';
import { createAlignmentActivities } from './alignment';
import { createBatchActivities } from './batches';
import { createBillingActivities } from './billing';
import { createCaptionActivities } from './captions';
import { createDiscoveryActivities, type DiscoveryDeps } from './discoveries';
import type { CaptionSources } from '../integrations/platforms/types';
import { createJobStateActivities } from './job-state';
import { createLiveActivities } from './live';
import type { RecognitionActivities } from './recognition';
import type { ChapterActivities } from './chapters';
import type { SummaryActivities } from './summaries';
import { createRetentionActivities } from './retention';
import { createSearchActivities } from './search';
import type { ObjectStore } from '../integrations/storage';
import { createTranscriptionActivities, type TranscriptionDeps } from './transcription';
import { createTranslationActivities, type MachineTranslationActivities, type TranslationDeps } from './translation';
import { createUploadActivities } from './uploads';
import { createWebhookActivities, type WebhookDeps } from './webhooks';

export interface ActivityDeps {
  db: Db;
  store: ObjectStore;
  captions: CaptionSources;
  transcription: Omit<TranscriptionDeps, 'db' | 'store' | 'personalData'>;
  webhooks: Omit<WebhookDeps, 'db'>;
  discoveries: DiscoveryDeps;
  /** Task queue of the embedding workers (chapters); absent = the job's own queue (the tests' single worker). */
  embeddingTaskQueue?: string;
  /** Task queue of the summary workers (summarize); absent = the job's own queue (the tests' single worker). */
  summaryTaskQueue?: string;
  /** What translates `translate_to` besides the platform: the machine pairs and the operator's provider. */
  translation: Pick<TranslationDeps, 'settings' | 'provider'>;
  /** The personal-data model that finds names, addresses and IDs for redaction (PII_MODEL_DIR), or null without one. */
  personalData: EntityTagger | null;
}

/** Activities come from a factory that takes their dependencies, so tests can pass their own. */
export function createActivities(deps: ActivityDeps) {
  const { db, store } = deps;
  return {
    ...createJobStateActivities(db, {
      recognizer: deps.transcription.cloud ? 'cloud' : 'local',
      recognitionTaskQueue: deps.transcription.recognitionTaskQueue,
      embeddingTaskQueue: deps.embeddingTaskQueue,
      summaryTaskQueue: deps.summaryTaskQueue,
    }),
    ...createCaptionActivities(db, deps.captions, deps.personalData),
    ...createDiscoveryActivities(db, deps.discoveries),
    ...createTranscriptionActivities({ db, store, ...deps.transcription, personalData: deps.personalData }),
    ...createLiveActivities({
      db,
      store,
      directLinkPolicy: deps.transcription.directLinkPolicy,
      outbound: deps.webhooks.outbound,
      sources: deps.captions,
    }),
    ...createAlignmentActivities({ db, store, recognizer: deps.transcription.recognizer, personalData: deps.personalData }),
    ...createUploadActivities(db, store),
    ...createRetentionActivities(db, store),
    ...createSearchActivities(db),
    ...createBillingActivities(db),
    ...createBatchActivities(db),
    ...createWebhookActivities({ db, ...deps.webhooks }),
    ...createTranslationActivities({ db, store, sources: deps.captions, ...deps.translation }),
  };
}

/**
 * Every activity the workflows call: this worker's, recognizePiece and translateTexts of the Python recognition worker, and the
 * embedding workers' (worker/main.ts serves those where the model is).
 */
export type Activities = ReturnType<typeof createActivities> &
  RecognitionActivities &
  ChapterActivities &
  SummaryActivities &
  MachineTranslationActivities;
