import { z } from './zod';
import { DateTime, ErrorObjectSchema, Uuid } from './common';

// Video and language discoveries: one schema per resource validates the POST
// bodies (with the per-kind field rules), types the handlers and writes the
// OpenAPI components.

export const DISCOVERY_KINDS = [
  'videosite_search',
  'videosite_channel_videos',
  'videosite_channel_search',
  'videosite_playlist_videos',
  'shortvideo_user_videos',
] as const;
export type DiscoveryKind = (typeof DISCOVERY_KINDS)[number];

/** Which input fields each kind takes (all required), and the largest page. */
export const KIND_RULES: Record<DiscoveryKind, { fields: readonly ('query' | 'channel' | 'playlist' | 'user')[]; maxLimit: number }> = {
  videosite_search: { fields: ['query'], maxLimit: 50 },
  videosite_channel_videos: { fields: ['channel'], maxLimit: 50 },
  videosite_channel_search: { fields: ['channel', 'query'], maxLimit: 50 },
  videosite_playlist_videos: { fields: ['playlist'], maxLimit: 50 },
  shortvideo_user_videos: { fields: ['user'], maxLimit: 10 },
};
const INPUT_FIELDS = ['query', 'channel', 'playlist', 'user'] as const;
export const DEFAULT_DISCOVERY_LIMIT = 20;
/** Same workspace, same request within this window: the earlier discovery is answered again, free. */
export const DISCOVERY_CACHE_SECONDS = 600;
export const DISCOVERY_RETENTION_HOURS = 24;

export const VideoDiscoveryRequestSchema = z
  .strictObject({
    kind: z.enum(DISCOVERY_KINDS),
    query: z.string().trim().min(1).max(200).optional(),
    channel: z.string().trim().min(1).max(2048).optional(),
    playlist: z.string().trim().min(1).max(2048).optional(),
    user: z.string().trim().min(1).max(2048).optional(),
    limit: z.number().int().min(1).max(50).optional(),
    cursor: z.string().min(1).max(8192).optional(),
    include_details: z.boolean().optional(),
  })
  .superRefine((req, ctx) => {
    const rules = KIND_RULES[req.kind];
    for (const field of INPUT_FIELDS) {
      const wanted = rules.fields.includes(field);
      if (wanted && req[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required for kind ${req.kind}` });
      if (!wanted && req[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} does not apply to kind ${req.kind}` });
    }
    const shortvideo = req.kind === 'shortvideo_user_videos';
    if (req.limit !== undefined && req.limit > rules.maxLimit)
      ctx.addIssue({ code: 'custom', path: ['limit'], message: `limit is at most ${rules.maxLimit} for kind ${req.kind}` });
    if (shortvideo && req.cursor !== undefined)
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'shortvideo_user_videos has one page: no cursor' });
    if (!shortvideo && req.include_details !== undefined)
      ctx.addIssue({ code: 'custom', path: ['include_details'], message: 'include_details applies to shortvideo_user_videos only' });
  })
  .openapi('VideoDiscoveryRequest', {
    description:
      "Per kind: `videosite_search` takes `query`; `videosite_channel_videos` takes `channel`; `videosite_channel_search` takes `channel` and `query`; `videosite_playlist_videos` takes `playlist`; `shortvideo_user_videos` takes `user` (and optionally `include_details`). A field of another kind, `cursor` on `shortvideo_user_videos`, `include_details` on a videosite kind, or `limit` outside 1–50 (1–10 for shortvideo) answers 422 INVALID_REQUEST naming the field. `channel`: @handle, channel id (UC…) or channel URL (/@h, /channel/UC…, /c/…, /user/…). `playlist`: id or any URL with `list=`. `user`: @user or profile URL. `limit` defaults to 20. The next page is a new POST with the same fields and `cursor` = the previous page's `next_cursor`.",
  });
export type VideoDiscoveryRequest = z.infer<typeof VideoDiscoveryRequestSchema>;

export const ShortvideoDetailsSchema = z
  .object({
    like_count: z.number().int().nullable(),
    comment_count: z.number().int().nullable(),
    share_count: z.number().int().nullable(),
    hashtags: z.array(z.string()),
    caption_languages: z.array(z.string()),
  })
  .openapi('ShortvideoDetails', { description: 'Per-video details of `shortvideo_user_videos` with `include_details`.' });

export const VideoEntrySchema = z
  .object({
    platform: z.enum(['videosite', 'shortvideo']),
    video_id: z.string(),
    url: z.string().openapi({ description: 'Canonical watch URL.' }),
    title: z.string().nullable(),
    channel_id: z.string().nullable(),
    channel_title: z.string().nullable(),
    duration_s: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Whole seconds from the shown length ("12:34", "1:02:03"); null for live or unknown.' }),
    published_at: DateTime.nullable().openapi({
      description: 'Only when the page gives an absolute date; relative texts ("3 weeks ago") leave it null.',
    }),
    published_text: z.string().nullable().openapi({ description: 'As the platform shows it.' }),
    view_count: z.number().int().nullable().openapi({
      description:
        'From "1,234,567 views" exactly; an abbreviated "1.2M views" is expanded (1.2 × 10^6 = 1200000), so it is approximate; "No views" is 0.',
    }),
    view_count_text: z.string().nullable(),
    thumbnail_url: z.string().nullable().openapi({ description: 'The largest thumbnail offered.' }),
    shortvideo: ShortvideoDetailsSchema.nullable(),
  })
  .openapi('VideoEntry');

export const DiscoveryProfileSchema = z
  .object({
    platform: z.enum(['videosite', 'shortvideo']),
    id: z.string().openapi({ description: 'Channel id (UC…) or the shortvideo user id.' }),
    handle: z.string().nullable().openapi({ description: '@handle or @user.' }),
    title: z.string().nullable(),
    url: z.string(),
    subscriber_count_text: z.string().nullable().openapi({ description: 'Subscribers or followers as shown.' }),
    avatar_url: z.string().nullable(),
  })
  .passthrough()
  .openapi('DiscoveryProfile', { description: 'The channel (channel kinds) or the user (shortvideo); null for searches and playlists.' });

export const DISCOVERY_STATUSES = ['queued', 'processing', 'succeeded', 'failed'] as const;
export type DiscoveryStatus = (typeof DISCOVERY_STATUSES)[number];

export const VideoDiscoverySchema = z
  .object({
    id: Uuid,
    kind: z.enum(DISCOVERY_KINDS),
    status: z.enum(DISCOVERY_STATUSES).openapi({ description: '`queued` → `processing` → `succeeded` or `failed`; nothing else.' }),
    request: z.record(z.string(), z.unknown()).openapi({ description: 'The accepted request, `limit` filled in.' }),
    videos: z.array(VideoEntrySchema),
    profile: DiscoveryProfileSchema.nullable(),
    next_cursor: z.string().nullable().openapi({
      description: 'Opaque and signed; bound to the workspace, the kind and the request fields; valid 24 h. Null on the last page.',
    }),
    error: ErrorObjectSchema.nullable(),
    created_at: DateTime,
    updated_at: DateTime,
    expires_at: DateTime.openapi({ description: 'created_at + 24 h; afterwards the discovery answers 404.' }),
  })
  .openapi('VideoDiscovery');
export type VideoDiscoveryView = z.infer<typeof VideoDiscoverySchema>;

export const LanguageDiscoveryRequestSchema = z
  .strictObject({ source: z.strictObject({ url: z.string().max(2048) }) })
  .openapi('LanguageDiscoveryRequest');
export type LanguageDiscoveryRequest = z.infer<typeof LanguageDiscoveryRequestSchema>;

export const CaptionTrackSchema = z
  .object({
    language_code: z
      .string()
      .openapi({ description: 'Pass it in `caption_languages` (with caption_preference matching `kind`) to get exactly this track.' }),
    name: z.string().openapi({ description: 'Display name as the platform shows it.' }),
    kind: z.enum(['creator', 'automatic']),
    is_default: z.boolean(),
    is_translatable: z.boolean().openapi({ description: 'The platform can translate this track into other languages.' }),
  })
  .openapi('CaptionTrack');

export const LanguageDiscoverySchema = z
  .object({
    id: Uuid,
    status: z.enum(DISCOVERY_STATUSES),
    source: z.object({ platform: z.literal('videosite'), media_id: z.string(), canonical_url: z.string() }),
    video: z
      .object({ video_id: z.string(), url: z.string(), title: z.string().nullable(), duration_s: z.number().int().nullable() })
      .nullable()
      .openapi({ description: 'Null until succeeded.' }),
    tracks: z.array(CaptionTrackSchema),
    error: ErrorObjectSchema.nullable(),
    created_at: DateTime,
    updated_at: DateTime,
    expires_at: DateTime,
  })
  .openapi('LanguageDiscovery', {
    description: 'The caption tracks of a videosite video; `language_code` values are used in caption_languages.',
  });
export type LanguageDiscoveryView = z.infer<typeof LanguageDiscoverySchema>;
