import type { Db } from '../domain/db';
import { createBatchActivities } from './batches';
import { createCaptionActivities } from './captions';
import type { CaptionSources } from '../integrations/platforms/types';
import { createJobStateActivities } from './job-state';
import { createRetentionActivities } from './retention';
import type { ObjectStore } from '../integrations/storage';
import { createTranscriptionActivities, type TranscriptionDeps } from './transcription';
import { createUploadActivities } from './uploads';
import { createWebhookActivities, type WebhookDeps } from './webhooks';

export interface ActivityDeps {
  db: Db;
  store: ObjectStore;
  captions: CaptionSources;
  transcription: Omit<TranscriptionDeps, 'db' | 'store'>;
  webhooks: Omit<WebhookDeps, 'db'>;
}

/** Activities come from a factory that takes their dependencies, so tests can pass their own. */
export function createActivities(deps: ActivityDeps) {
  const { db, store } = deps;
  return {
    async ping(message: string): Promise<string> {
      await db.$queryRaw`SELECT 1`;
      return `pong:${message}`;
    },
    ...createJobStateActivities(db, { recognizer: deps.transcription.cloud ? 'cloud' : 'local' }),
    ...createCaptionActivities(db, deps.captions),
    ...createTranscriptionActivities({ db, store, ...deps.transcription }),
    ...createUploadActivities(db, store),
    ...createRetentionActivities(db),
    ...createBatchActivities(db),
    ...createWebhookActivities({ db, ...deps.webhooks }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
