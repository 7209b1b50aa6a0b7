import { z } from 'zod';
import type { Segment, Word } from '../../core/timing';
import { cleanWords } from '../../integrations/recognizers/result';
import type { TranscriptAlignment } from './read';

// Forced alignment's rules on the TypeScript side: what the recognition
// worker is asked (recognizer/alignment.py), and how its answer becomes the
// transcript. A caption track keeps its cues as segments and gains words and
// a match per cue; a given text (`align_text`) becomes segments by sentence.

/** A segment whose match (the share of its words heard near it) is below this is probably not what the audio says (recognizer/alignment.py MATCH_FLAG_BELOW; measured in bench/RESULTS.md). */
export const MATCH_THRESHOLD = 0.3;

const AlignedWordSchema = z.object({ start: z.number(), end: z.number(), text: z.string(), confidence: z.number().min(0).max(1) });
const Match = z.number().min(0).max(1).nullable();

/** recognizer/worker.py `_align`'s result file. */
export const AlignmentResultSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('cues'),
    model: z.string(),
    language: z.string(),
    cues: z.array(z.object({ words: z.array(AlignedWordSchema), match: Match })),
  }),
  z.object({
    kind: z.literal('text'),
    model: z.string(),
    language: z.string(),
    segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string(), words: z.array(AlignedWordSchema), match: Match })),
  }),
]);
export type AlignmentResult = z.infer<typeof AlignmentResultSchema>;

/** What the recognition worker is asked to align: a caption track's cues, or a text with no times. */
export type AlignmentRequest =
  | { kind: 'cues'; language: string; cues: { start: number; end: number; text: string }[] }
  | { kind: 'text'; language: string | null; text: string };

export function captionAlignmentRequest(language: string, segments: Segment[]): AlignmentRequest {
  return { kind: 'cues', language, cues: segments.map((s) => ({ start: s.start, end: s.end, text: s.text })) };
}

function summary(method: TranscriptAlignment['method'], model: string, matches: (number | null)[]): TranscriptAlignment {
  return {
    method,
    model,
    match_threshold: MATCH_THRESHOLD,
    segments_below_threshold: matches.filter((m) => m !== null && m < MATCH_THRESHOLD).length,
  };
}

const word = (w: z.infer<typeof AlignedWordSchema>): Word => ({
  start: w.start,
  end: w.end,
  text: w.text.trim(),
  confidence: w.confidence,
});

/** A caption transcript with its cues aligned: the cues stay the segments (with their match), the words are added. */
export function alignedCaptions(
  segments: Segment[],
  result: AlignmentResult,
): { segments: Segment[]; words: Word[]; alignment: TranscriptAlignment } {
  if (result.kind !== 'cues' || result.cues.length !== segments.length)
    throw new Error(`alignment result does not fit the caption track (${segments.length} cues)`);
  const words = segments.flatMap((_s, i) => result.cues[i]!.words.map(word));
  return {
    segments: segments.map((s, i) => ({ ...s, match: result.cues[i]!.match })),
    // Cues may overlap (rolling captions): the words in time order, trimmed, times made monotonic.
    words: cleanWords(words.sort((a, b) => a.start - b.start)),
    alignment: summary(
      'word_timing',
      result.model,
      result.cues.map((c) => c.match),
    ),
  };
}

/** A given text aligned: its sentences are the segments, its words carry the times. */
export function alignedText(result: AlignmentResult): {
  language: string;
  segments: Segment[];
  words: Word[];
  alignment: TranscriptAlignment;
} {
  if (result.kind !== 'text') throw new Error('alignment result is not a text alignment');
  const segments = result.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, language: result.language, match: s.match }));
  return {
    language: result.language,
    segments,
    words: cleanWords(result.segments.flatMap((s) => s.words.map(word))),
    alignment: summary(
      'align_text',
      result.model,
      result.segments.map((s) => s.match),
    ),
  };
}
