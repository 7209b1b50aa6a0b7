import { deleteTranscript, exportTranscriptFile, getTranscriptJson, redactedAudioFile } from '../../domain/transcripts/read';
import { defineRoute, type AnyRoute } from '../http/route';
import { IdParams } from '../../domain/schemas/common';
import { DeletionSchema, ExportQuery, TranscriptSchema } from '../../domain/schemas/resources';

const tags = ['Transcripts'];

const getRoute = defineRoute({
  method: 'get',
  path: '/v1/transcripts/:id',
  operationId: 'getTranscript',
  summary: 'Transcript',
  tags,
  description: "Another workspace's transcript, a deleted one and one past its retention window all answer 404.",
  auth: { kind: 'required', scope: 'transcripts:read' },
  rateLimit: 'read',
  params: IdParams,
  responses: { 200: { description: 'The transcript.', schema: TranscriptSchema } },
  errors: ['NOT_FOUND'],
  // The stored JSON as it is (domain/transcripts/view.ts), not parsed and serialised again.
  handler: async ({ deps, principal, params }) => ({
    status: 200,
    raw: {
      contentType: 'application/json; charset=utf-8',
      body: (await getTranscriptJson(deps.db, principal.workspaceId, params.id)).json,
    },
  }),
});

export const deleteTranscriptRoute = defineRoute({
  method: 'delete',
  path: '/v1/transcripts/:id',
  operationId: 'deleteTranscript',
  summary: 'Hide and purge',
  tags,
  description:
    'Hidden at once and no longer reused; a durable workflow purges the stored text right away (`purge_after` is the time it was scheduled). Needs `jobs:write` (there is no transcripts:write scope).',
  auth: { kind: 'required', scope: 'jobs:write' },
  params: IdParams,
  responses: { 202: { description: 'Hidden now; purge scheduled.', schema: DeletionSchema } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params }) => ({
    status: 202,
    body: await deleteTranscript(deps.db, deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, principal.workspaceId, params.id),
  }),
});

const exportRoute = defineRoute({
  method: 'get',
  path: '/v1/transcripts/:id/export',
  operationId: 'exportTranscript',
  summary: 'File export',
  tags,
  description:
    'txt (one segment per line, text/plain), srt (text/srt), vtt (text/vtt), json (application/json, the transcript object), chapters (text/vtt: a WebVTT chapters track, one cue per chapter, for a job that asked for `chapters`). srt and vtt captions break at word and punctuation boundaries within `max_line_length` and `max_lines`, timed by the words where the transcript has word times; with speaker labels a caption starts with the speaker ("B: …") where the speaker changes. The download filename is in `Content-Disposition: attachment; filename="…"; filename*=UTF-8\'\'…`.',
  auth: { kind: 'required', scope: 'transcripts:read' },
  rateLimit: 'read',
  params: IdParams,
  query: ExportQuery,
  responses: {
    200: {
      description: 'The file.',
      contentTypes: ['text/plain', 'text/srt', 'text/vtt', 'application/json'],
      headers: { 'Content-Disposition': 'attachment with the download filename' },
    },
  },
  errors: ['NOT_FOUND', 'TIMESTAMPS_UNAVAILABLE', 'CHAPTERS_UNAVAILABLE', 'TRANSLATION_UNAVAILABLE'],
  handler: async ({ deps, principal, params, query }) => {
    const file = await exportTranscriptFile(deps.db, principal.workspaceId, params.id, query.format, {
      maxLineLength: query.max_line_length,
      maxLines: query.max_lines,
      translated: query.translated,
    });
    return {
      status: 200,
      headers: { 'Content-Disposition': file.contentDisposition },
      raw: { contentType: file.contentType, body: file.body },
    };
  },
});

const redactedAudioRoute = defineRoute({
  method: 'get',
  path: '/v1/transcripts/:id/redacted-audio',
  operationId: 'getRedactedAudio',
  summary: 'Redacted audio',
  tags,
  description:
    'For a job that asked for `redacted_audio`: the audio with a 1 kHz tone over every redacted word, as Ogg Opus (16 kHz mono), whole, named `<title>-<id8>.redacted.ogg` in `Content-Disposition`. 404 `NOT_FOUND` naming `redacted_audio` for a transcript without one.',
  auth: { kind: 'required', scope: 'transcripts:read' },
  rateLimit: 'read',
  params: IdParams,
  responses: {
    200: {
      description: 'The audio.',
      contentTypes: ['audio/ogg'],
      headers: { 'Content-Disposition': 'attachment with the download filename' },
    },
  },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params }) => {
    const file = await redactedAudioFile(deps.db, deps.objectStore, principal.workspaceId, params.id);
    return {
      status: 200,
      headers: { 'Content-Disposition': file.contentDisposition },
      raw: { contentType: file.contentType, body: file.body },
    };
  },
});

export const transcriptRoutes: AnyRoute[] = [getRoute, deleteTranscriptRoute, exportRoute, redactedAudioRoute];
