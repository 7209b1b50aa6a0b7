import type { Db } from '../domain/db';
import { indexTranscriptsAfter } from '../domain/search/index';
import { embedPendingMoments } from '../domain/search/embeddings';
import type { TextEmbedder } from '../integrations/embeddings/e5';
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

/**
 * The embedding worker's activities (worker/main.ts runs them on EMBEDDING_TASK_QUEUE, where the model is loaded):
 * the search embedding follower (workflows/search.ts) calls them there.
 */
export function createEmbeddingActivities(db: Db, embedder: TextEmbedder) {
  return {
    /** The next moments without a vector of this model, embedded and stored whole (domain/search/embeddings.ts). */
    async embedPendingMoments(limit: number): Promise<{ embedded: number; pending: number; model: string }> {
      const done = await whileHeartbeating(() => embedPendingMoments(db, embedder, { limit }));
      return { ...done, model: embedder.model };
    },
  };
}

export type EmbeddingActivities = ReturnType<typeof createEmbeddingActivities>;
