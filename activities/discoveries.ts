import type { Db } from '../domain/db';
import {
  claimLanguageMediaId,
  claimVideoListing,
  completeLanguageDiscovery,
  completeVideoDiscovery,
  failDiscovery,
  purgeExpiredDiscoveries,
} from '../domain/discoveries/state';
import type { ErrorObject } from '../core/errors';
import type { DiscoveryPage, DiscoverySources, LanguageDiscoveryResult } from '../integrations/platforms/discovery-types';
import type { DiscoveryType } from '../workflows/definitions';
import { announceRetry, asActivity } from './failures';

export interface DiscoveryDeps {
  sources: DiscoverySources;
  /** Signs next_cursor (domain/discoveries/cursor.ts). */
  secretsKey: string;
}

// Discoveries: the platform call is one activity (retried by the workflow's
// policy on retryable source errors) that also marks the discovery processing;
// storing the result and failing are the others.

export function createDiscoveryActivities(db: Db, deps: DiscoveryDeps) {
  return {
    /**
     * One page of videos from the platform. The discovery is marked processing
     * in the statement that reads its listing; null when it is already final
     * (nothing to fetch). The page itself is stored by completeVideoDiscovery.
     */
    async fetchVideoPage(id: string): Promise<DiscoveryPage | null> {
      return asActivity(async () => {
        const listing = await claimVideoListing(db, id);
        return listing && deps.sources.videoPage(listing.input, listing.position, listing.limit);
      }, announceRetry);
    },
    /** The video's caption languages; marks the discovery processing like fetchVideoPage (null when already final). */
    async fetchCaptionLanguages(id: string): Promise<LanguageDiscoveryResult | null> {
      return asActivity(async () => {
        const mediaId = await claimLanguageMediaId(db, id);
        return mediaId === null ? null : deps.sources.captionLanguages(mediaId);
      }, announceRetry);
    },
    async completeVideoDiscovery(id: string, page: DiscoveryPage): Promise<void> {
      return asActivity(() => completeVideoDiscovery(db, deps.secretsKey, id, page));
    },
    async completeLanguageDiscovery(id: string, result: LanguageDiscoveryResult): Promise<void> {
      return asActivity(() => completeLanguageDiscovery(db, id, result));
    },
    async failDiscovery(type: DiscoveryType, id: string, error: ErrorObject): Promise<void> {
      return asActivity(() => failDiscovery(db, type, id, error));
    },
    async purgeExpiredDiscoveries(batchSize = 500): Promise<number> {
      return purgeExpiredDiscoveries(db, batchSize);
    },
  };
}
