import type { Db } from '../domain/db';

export interface ActivityDeps {
  db: Db;
}

/** Activities come from a factory that takes their dependencies, so tests can pass their own. */
export function createActivities(deps: ActivityDeps) {
  return {
    async ping(message: string): Promise<string> {
      await deps.db.$queryRaw`SELECT 1`;
      return `pong:${message}`;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
