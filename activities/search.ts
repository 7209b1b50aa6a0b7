import type { Db } from '../domain/db';
import { indexTranscriptsAfter } from '../domain/search/index';
import { whileHeartbeating } from './heartbeat';

// The search index's backfill (workflows/search.ts): transcripts written before the index, or by an older
// version of it, indexed in steps.

export function createSearchActivities(db: Db) {
  return {
    /** The next `limit` transcripts after `afterId` whose moments are missing or of another version, indexed. */
    async indexTranscriptsForSearch(afterId: string | null, limit: number): Promise<{ indexed: number; lastId: string | null }> {
      return whileHeartbeating(() => indexTranscriptsAfter(db, afterId, limit));
    },
  };
}
