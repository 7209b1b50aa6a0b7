import { z } from './zod';
import { queryInteger, Uuid } from './common';
import { Bcp47Tag, PLATFORMS } from './jobs';

export const SEARCH_MODES = ['keyword', 'semantic', 'hybrid'] as const;
export const MAX_SEARCH_QUERY_CHARS = 500;
export const MAX_SEARCH_PAGE = 50;
/** How deep paging goes: moments ranked past this are not paged to (refine the query instead). */
export const MAX_SEARCH_DEPTH = 1000;
/**
 * How many of a keyword query's matching moments are ranked: a query that matches more (a word said in tens of
 * thousands of moments) ranks the first this many the index yields, so its cost is bounded.
 */
export const MAX_RANKED_MATCHES = MAX_SEARCH_DEPTH;
/** How deep semantic and hybrid search page (each ranking is read this deep, then fused). */
export const MEANING_DEPTH = 200;

const isoInstant = (field: string) =>
  z
    .string()
    .refine((v) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(v) && !Number.isNaN(Date.parse(v)), {
      message: `${field} must be an ISO 8601 date or date-time with a zone, such as 2026-11-29 or 2026-11-29T12:00:00Z`,
    })
    .openapi({ format: 'date-time' });

export const SearchQuery = z
  .strictObject({
    q: z
      .string()
      .refine((v) => v.trim().length > 0, 'q is not empty')
      .refine((v) => Array.from(v).length <= MAX_SEARCH_QUERY_CHARS, `q is at most ${MAX_SEARCH_QUERY_CHARS} characters`)
      .refine((v) => !/[\u0000-\u001F\u007F]/.test(v), 'q has no control characters')
      .openapi({
        maxLength: MAX_SEARCH_QUERY_CHARS,
        description:
          'What was said. Words match in any form the language\'s stemmer relates ("talks" finds "talking"), accents folded ("cafe" finds "café"); `"a phrase"` in double quotes matches those words in that order; `word*` matches words that begin so; `-word` excludes; `or` between words matches either. Japanese, Korean, Chinese and Thai transcripts are matched by the characters given.',
      }),
    mode: z
      .enum(SEARCH_MODES)
      .optional()
      .openapi({
        description: `\`keyword\`: the words as above. \`semantic\`: by meaning, in any language (a question in Spanish finds the English moment that answers it), through sentence embeddings of every moment; a moment is found this way a few seconds after its transcript is published. \`hybrid\`: both rankings fused by reciprocal rank, so an exact phrase and a paraphrase both come first. Absent: \`hybrid\`, or \`keyword\` where the deployment has no embedding model (the answer's \`mode\` says which ran); \`semantic\` or \`hybrid\` asked of such a deployment is refused with 422 \`CAPABILITY_UNAVAILABLE\` naming \`mode\`. Semantic and hybrid page through the best ${MEANING_DEPTH} moments, keyword through ${MAX_SEARCH_DEPTH}. Keyword ranks at most ${MAX_RANKED_MATCHES} of a query's matching moments, so a common word does not cost a read of every moment that holds it: a query matching more (a word said in tens of thousands of moments) is ranked over the first ${MAX_RANKED_MATCHES} the index finds, not all of them; a phrase, another word or a filter narrows it to the ones you want.`,
      }),
    language: Bcp47Tag.optional().openapi({
      description: 'Only moments spoken in this language (`pt` also matches `pt-BR`).',
    }),
    platform: z.enum(PLATFORMS).optional(),
    source_id: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .openapi({ description: "Only this video or upload: a transcript's `source.media_id`." }),
    speaker: z
      .string()
      .regex(/^[A-Z]{1,2}$/, 'speaker is a label such as A or B')
      .optional()
      .openapi({ description: 'Only moments of this speaker (transcripts with speaker labels).' }),
    created_after: isoInstant('created_after').optional().openapi({ description: 'Only transcripts created at or after this instant.' }),
    created_before: isoInstant('created_before').optional().openapi({ description: 'Only transcripts created before this instant.' }),
    limit: queryInteger(z.number().int().min(1).max(MAX_SEARCH_PAGE)).default(10),
    cursor: z.string().max(512).optional().openapi({ description: 'From `next_cursor`; valid for the same query only.' }),
  })
  .refine((q) => !q.created_after || !q.created_before || Date.parse(q.created_after) < Date.parse(q.created_before), {
    message: 'created_after must be before created_before',
    path: ['created_after'],
  });
export type SearchRequest = z.infer<typeof SearchQuery>;

export const MomentSchema = z
  .object({
    transcript_id: Uuid,
    job_id: Uuid,
    source: z.object({
      platform: z.enum(PLATFORMS),
      media_id: z.string(),
      title: z.string().nullable(),
      canonical_url: z.string().nullable(),
    }),
    start: z.number().openapi({ description: 'Seconds from the start of the media.' }),
    end: z.number(),
    text: z.string().openapi({ description: 'The words of the moment: consecutive segments of one speaker and language, about 10–30 s.' }),
    highlighted_text: z.string().openapi({
      description: 'The same text as an HTML fragment: `<`, `>`, `&`, `"` and `\'` escaped, the words that matched in `<mark>…</mark>`.',
    }),
    speaker: z.string().nullable(),
    language: z.string().nullable(),
    score: z.number().openapi({
      description:
        'How well the moment matches; higher is better, comparable within one search only (keyword: text search rank; semantic: cosine similarity; hybrid: the fused reciprocal rank).',
    }),
    link: z.string().nullable().openapi({
      description:
        'Opens the media at the moment: the video at its second (`…watch?v=ID&t=123`) for videosite, a signed link to the uploaded file with `#t=` for uploads (valid an hour), the source page for other platforms; null when the service keeps no link (direct links).',
    }),
  })
  .openapi('Moment');

export const SearchResultSchema = z
  .object({
    mode: z.enum(SEARCH_MODES).openapi({ description: 'The mode that ran: the one asked for, or the default.' }),
    moments: z.array(MomentSchema),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: `Opaque; null on the last page (and past ${MAX_SEARCH_DEPTH} moments).` }),
  })
  .openapi('SearchResult', { description: "Moments of the workspace's visible transcripts, best first." });
export type SearchResultView = z.infer<typeof SearchResultSchema>;
