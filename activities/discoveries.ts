import type { Db } from '../domain/db';
import {
  completeLanguageDiscovery,
  completeVideoDiscovery,
  failDiscovery,
  languageMediaIdOf,
  markDiscoveryProcessing,
  purgeExpiredDiscoveries,
  videoListingOf,
} from '../domain/discoveries/state';
import type { ErrorObject } from '../domain/errors';
import type { DiscoveryPage, DiscoverySources, LanguageDiscoveryResult } from '../integrations/platforms/discovery-types';
import type { DiscoveryType } from '../workflows/definitions';
import { announceRetry, asActivity } from './failures';

export interface DiscoveryDeps {
  sources: DiscoverySources;
  /** Signs next_cursor (domain/discoveries/cursor.ts). */
  secretsKey: string;
}

// Discoveries: the platform call is one activity (retried by the workflow's
// policy on retryable source errors), the state steps are the others.

export function createDiscoveryActivities(db: Db, deps: DiscoveryDeps) {
  return {
    async startDiscovery(type: DiscoveryType, id: string): Promise<boolean> {
      return asActivity(() => markDiscoveryProcessing(db, type, id));
    },
    /** One page of videos from the platform (no state written: completeVideoDiscovery stores it). */
    async fetchVideoPage(id: string): Promise<DiscoveryPage> {
      return asActivity(async () => {
        const listing = await videoListingOf(db, id);
        return deps.sources.videoPage(listing.input, listing.position, listing.limit);
      }, announceRetry);
    },
    async fetchCaptionLanguages(id: string): Promise<LanguageDiscoveryResult> {
      return asActivity(async () => deps.sources.captionLanguages(await languageMediaIdOf(db, id)), announceRetry);
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
