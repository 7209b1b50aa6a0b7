import type { LanguageDiscovery, VideoDiscovery } from '../../prisma/generated/client';
import type { ErrorObject } from '../../core/errors';
import type { DiscoveryStatus, LanguageDiscoveryView, VideoDiscoveryView } from '../schemas/discoveries';

// Rows → the API's discovery objects (shared by REST and, next, the tool server).

export function videoDiscoveryView(row: VideoDiscovery): VideoDiscoveryView {
  return {
    id: row.id,
    kind: row.kind as VideoDiscoveryView['kind'],
    status: row.status as DiscoveryStatus,
    request: row.request as Record<string, unknown>,
    videos: row.videos as VideoDiscoveryView['videos'],
    profile: (row.profile as VideoDiscoveryView['profile']) ?? null,
    next_cursor: row.nextCursor,
    error: (row.error as ErrorObject | null) ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

export function languageDiscoveryView(row: LanguageDiscovery): LanguageDiscoveryView {
  return {
    id: row.id,
    status: row.status as DiscoveryStatus,
    source: { platform: 'videosite', media_id: row.mediaId, canonical_url: row.sourceUrl },
    video: (row.video as LanguageDiscoveryView['video']) ?? null,
    tracks: row.tracks as LanguageDiscoveryView['tracks'],
    error: (row.error as ErrorObject | null) ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}
