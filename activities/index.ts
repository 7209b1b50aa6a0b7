import type { Db } from '../domain/db';
import { createCaptionActivities, type CaptionSources } from './captions';
import { createJobStateActivities } from './jobState';
import { createRetentionActivities } from './retention';

export interface ActivityDeps {
  db: Db;
  captions: CaptionSources;
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
  };
}

export type Activities = ReturnType<typeof createActivities>;
