import type { Db } from '../domain/db';
import { createBatchActivities } from './batches';
import { createCaptionActivities, type CaptionSources } from './captions';
import { createJobStateActivities } from './jobState';
import { createRetentionActivities } from './retention';
import { createWebhookActivities, type WebhookDeps } from './webhooks';

export interface ActivityDeps {
  db: Db;
  captions: CaptionSources;
  webhooks: Omit<WebhookDeps, 'db'>;
}

/** Activities come from a factory that takes their dependencies, so tests can pass their own. */
export function createActivities(deps: ActivityDeps) {
  return {
    async ping(message: string): Promise<string> {
      await deps.db.$queryRaw`SELECT 1`;
      return `pong:${message}`;
    },
    ...createJobStateActivities(deps.db),
    ...createCaptionActivities(deps.db, deps.captions),
    ...createRetentionActivities(deps.db),
    ...createBatchActivities(deps.db),
    ...createWebhookActivities({ db: deps.db, ...deps.webhooks }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
