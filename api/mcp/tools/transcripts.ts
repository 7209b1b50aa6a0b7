import { translatedTranscript } from '../../../domain/transcripts/export';
import { getTranscript } from '../../../domain/transcripts/read';
import type { AppDeps } from '../../http/context';
import { appMedia, appToolMeta, withAppMedia } from '../app/transcript-app';
import { DEFAULT_PAGE_CHARS, TRANSCRIPT_FORMATS, transcriptPage, transcriptSummary, type TranscriptFormat } from '../transcript-page';
import {
  countedRead,
  guarded,
  MaxChars,
  Next,
  Offset,
  ok,
  PageOut,
  requireScopes,
  textOf,
  TranscriptOut,
  z,
  type ToolRegistrar,
} from './kit';

// get_transcript: one page of a transcript or export (GET /v1/transcripts/{id} and its exports).

export function registerTranscriptTools(server: ToolRegistrar, deps: AppDeps): void {
  server.registerTool(
    'get_transcript',
    {
      title: 'Read a transcript',
      description:
        `One page of a transcript (free): segments (default: JSON with start/end seconds, speaker, language and, for aligned transcripts, match: below transcript.alignment.match_threshold the audio probably does not say it), words (word times as [start, end, text] or [start, end, text, speaker] tuples; AI transcription and aligned transcripts), text (one segment per line, "B: " where the speaker changes), srt or vtt. transcript.speakers and transcript.languages summarise who spoke and in which languages; transcript.chapters (when the job asked for chapters) lists its chapters with start and end seconds, to read one part by its times; transcript.summary (when the job asked for summarize) holds its summary, key points and a sentence per chapter, each checked against the transcript; transcript.translation (when the job asked for translate_to) names the translation's language, and translated: true pages through its text instead (segments, text, srt, vtt). Pages are at most max_chars characters (default ${DEFAULT_PAGE_CHARS}); page.total_chars is the whole size and page.next_offset continues (call again with offset = next_offset). ` +
        'srt and vtt need timing (TIMESTAMPS_UNAVAILABLE otherwise). Needs transcripts:read.',
      inputSchema: z.object({
        transcript_id: z.uuid(),
        format: z.enum(TRANSCRIPT_FORMATS).optional(),
        offset: Offset,
        max_chars: MaxChars,
        translated: z
          .boolean()
          .optional()
          .describe(
            "true: the page is of the transcript's translation (translate_to), timed by its segments. TRANSLATION_UNAVAILABLE without one.",
          ),
      }),
      outputSchema: z.object({ transcript: TranscriptOut, page: PageOut, next: Next }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: appToolMeta,
    },
    guarded(deps, async (args, _ctx, caller) => {
      const p = requireScopes(caller, 'transcripts:read');
      const transcript = await countedRead(deps, p, () => getTranscript(deps.db, p.workspaceId, args.transcript_id));
      const format: TranscriptFormat = args.format ?? 'segments';
      const page = transcriptPage(
        args.translated ? translatedTranscript(transcript) : transcript,
        format,
        args.offset ?? 0,
        args.max_chars ?? DEFAULT_PAGE_CHARS,
      );
      const next = page.next_offset === null ? null : `More: call get_transcript again with offset ${page.next_offset}.`;
      return withAppMedia(
        await appMedia(deps, p.workspaceId, transcript),
        ok(
          { transcript: transcriptSummary(transcript), page, next },
          `${page.content ?? textOf(page.segments ?? page.words)}\n\n[${page.format}, ${page.offset}–${page.offset + (page.segments?.length ?? page.words?.length ?? page.returned_chars)} of ${page.format === 'segments' ? `${page.total_segments} segments` : page.format === 'words' ? `${page.total_words} words` : `${page.total_chars} characters`}${next ? `; ${next}` : ''}]`,
        ),
      );
    }),
  );
}
