import { ServiceError } from '../../core/errors';
import type { Outbound } from '../outbound/http';
import { normalizeDiscoveryInput } from './discovery-input';
import type { DiscoverySources, LanguageDiscoveryResult } from './discovery-types';
import { videositeCanonicalUrl } from './links';
import { createShortvideoLister } from './shortvideo-user';
import { createVideositeSource } from './videosite';
import type { InnertubeClient } from './videosite-clients';
import { createVideositeLister } from './videosite-discovery';

// Video and language discoveries over the one outbound layer: the videosite
// listings (videosite-discovery.ts, paged by discovery-paging.ts), the
// shortvideo user listing (shortvideo-user.ts) and the caption tracks of a
// videosite video, read exactly as a caption job reads them (videosite.ts),
// so that every listed code leads a job back to its track.

export { normalizeDiscoveryInput } from './discovery-input';

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

export interface DiscoverySourcesOptions {
  /** The innertube clients asked for the player response (default: the caption jobs' own). */
  videositeClients?: readonly InnertubeClient[];
}

export function createDiscoverySources(outbound: Outbound, options: DiscoverySourcesOptions = {}): DiscoverySources {
  const videosite = createVideositeLister(outbound);
  const shortvideo = createShortvideoLister(outbound);
  const captions = createVideositeSource({ outbound, clients: options.videositeClients });

  return {
    async videoPage(raw, position, limit, signal) {
      // Idempotent: the API normalised already; this keeps a hand-built input honest.
      const input = normalizeDiscoveryInput(raw);
      if (input.kind === 'shortvideo_user_videos') {
        if (position !== null)
          throw new ServiceError('INVALID_CURSOR', 'cursor', { message: 'cursor: shortvideo_user_videos has one page' });
        return shortvideo.page(input.user as string, limit, input.includeDetails === true, signal);
      }
      return videosite.page(input, position, limit, signal);
    },

    async captionLanguages(videoId, signal): Promise<LanguageDiscoveryResult> {
      if (!VIDEO_ID.test(videoId)) {
        throw new ServiceError('UNSUPPORTED_SOURCE', 'source.url', {
          message: 'source.url: video id must be 11 characters of A-Z a-z 0-9 _ -',
        });
      }
      const listing = await captions.describeCaptions(videoId, { signal });
      return {
        video: { video_id: videoId, url: videositeCanonicalUrl(videoId), title: listing.title, duration_s: listing.durationSeconds },
        tracks: listing.tracks.map((t) => ({
          language_code: t.language_code,
          name: t.name,
          kind: t.kind,
          is_default: t.is_default,
          is_translatable: t.is_translatable,
        })),
      };
    },
  };
}
