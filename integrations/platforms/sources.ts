import type { CaptionSources } from './types';
import type { Outbound } from '../outbound/http';
import { createShortvideoSource } from './shortvideo';
import { createVideositeSource } from './videosite';

/** The caption sources the worker uses: the platform clients behind the one outbound layer. */
export function createCaptionSources(outbound: Outbound): CaptionSources {
  const videosite = createVideositeSource({ outbound });
  const shortvideo = createShortvideoSource({ outbound });
  return {
    fetchCaptions: (platform, mediaId, options) =>
      platform === 'videosite' ? videosite.fetchCaptions(mediaId, options) : shortvideo.fetchCaptions(mediaId, options),
    resolveShareLink: (_platform, url) => shortvideo.resolveShareLink(url),
    // Only the videosite lists chapters.
    fetchChapters: async (platform, mediaId) => (platform === 'videosite' ? videosite.fetchChapters(mediaId) : []),
    // Only the videosite translates its tracks.
    fetchTranslatedCaptions: async (platform, mediaId, options) =>
      platform === 'videosite' ? videosite.fetchTranslatedCaptions(mediaId, options) : null,
    // Only the videosite streams live.
    findLiveManifest: async (platform, mediaId) => (platform === 'videosite' ? videosite.findLiveManifest(mediaId) : null),
  };
}
