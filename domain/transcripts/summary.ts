import { z } from 'zod';
import type { ChatAnswer, ChatRequest } from '../../integrations/llm/chat-completions';
import { primaryLanguage } from '../../integrations/recognizers/types';
import type { Chapter } from './chapters';

// `summarize` (issue 53, item 5): a few sentences, key points and a sentence per chapter, written by a language
// model from the transcript and then held to it: a sentence or point that names a name or a number the transcript
// does not hold is dropped, so what is published says only what was said.

export interface TranscriptSummary {
  text: string;
  key_points: string[];
  /** One per chapter of the transcript (`chapters: true`), in order; null where the model's sentence was dropped. */
  chapters: Array<{ start: number; end: number; title: string; summary: string | null }>;
  model: string;
}

/** What the summary step reports beside the summary (the workflow's details, the bench). */
export interface SummaryOutcome {
  summary: TranscriptSummary;
  /** Sentences and points the model wrote, and those dropped for a name or number the transcript does not hold. */
  written: number;
  dropped: number;
  /** The names and numbers that dropped them, in order. */
  droppedFor: string[];
  /** Words of the transcript, and those the prompt carried (fewer when it was cut to the budget). */
  words: number;
  promptWords: number;
}

/**
 * The transcript's words the model reads at most. Prompt reading is the cost on CPU (about 42 tokens a second on
 * two cores, 1.35 tokens a word in English): 900 words keep a 10-minute talk within a minute with the answer.
 * A longer transcript gives each part (chapter, or tenth where there are none) its share, from the part's start.
 */
export const SUMMARY_PROMPT_WORDS = 900;
/** The answer's length: the summary and points, and more for a sentence per chapter. */
export const SUMMARY_MAX_TOKENS = 320;
const TOKENS_PER_CHAPTER = 40;
const PARTS_WITHOUT_CHAPTERS = 10;

const SENTENCE_END = /(?<=[.!?。！？])\s+/u;

interface Part {
  title: string | null;
  text: string;
}

/** The transcript's text by chapter (or by equal tenth of its segments), each cut to its share of the budget. */
export function promptParts(
  segments: Array<{ start: number; text: string }>,
  chapters: Chapter[],
  budget = SUMMARY_PROMPT_WORDS,
): { parts: Part[]; words: number; promptWords: number } {
  const groups: Array<{ title: string | null; texts: string[] }> = [];
  if (chapters.length > 0) {
    for (const c of chapters) groups.push({ title: c.title, texts: [] });
    for (const s of segments) {
      let i = chapters.findIndex((c, k) => s.start < c.end || k === chapters.length - 1);
      if (i < 0) i = 0;
      groups[i]!.texts.push(s.text);
    }
  } else {
    const size = Math.max(1, Math.ceil(segments.length / PARTS_WITHOUT_CHAPTERS));
    for (let i = 0; i < segments.length; i += size) groups.push({ title: null, texts: segments.slice(i, i + size).map((s) => s.text) });
  }
  const wordsOf = (t: string) => t.split(/\s+/).filter((w) => w !== '').length;
  const texts = groups.map((g) => g.texts.join(' ').replace(/\s+/g, ' ').trim());
  const words = texts.reduce((n, t) => n + wordsOf(t), 0);
  const parts: Part[] = [];
  let promptWords = 0;
  groups.forEach((g, i) => {
    const text = texts[i]!;
    const share = words <= budget ? Infinity : Math.max(20, Math.floor((budget * wordsOf(text)) / Math.max(1, words)));
    let kept = '';
    let n = 0;
    for (const sentence of text.split(SENTENCE_END)) {
      const w = wordsOf(sentence);
      if (n > 0 && n + w > share) break;
      kept += (kept ? ' ' : '') + sentence;
      n += w;
    }
    promptWords += n;
    parts.push({ title: g.title, text: kept });
  });
  return { parts, words, promptWords };
}

function languageName(code: string | null): string | null {
  if (!code) return null;
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? null;
  } catch {
    return null;
  }
}

/** The request the model answers: the transcript by part, and the JSON shape wanted. */
export function summaryRequest(parts: Part[], language: string | null, withChapters: boolean): ChatRequest {
  const name = languageName(language);
  const body = withChapters
    ? parts.map((p, i) => `## Chapter ${i + 1}: ${p.title ?? ''}\n${p.text}`).join('\n\n')
    : parts.map((p) => p.text).join('\n');
  const shape = withChapters
    ? `{"summary": "two or three sentences", "key_points": ["three to five short points"], "chapters": ["one sentence for each of the ${parts.length} chapters, in order"]}`
    : '{"summary": "two or three sentences", "key_points": ["three to five short points"]}';
  return {
    system:
      'You summarise transcripts of recorded speech. Use only what the transcript says: never add a name, number, ' +
      'date or fact that is not in it, and do not describe the speaker or the style. Answer with one JSON object.',
    user: `Summarise this transcript${name ? `, writing in ${name}` : ''}. Answer in JSON: ${shape}\n\n` + `Transcript:\n${body}`,
    maxTokens: SUMMARY_MAX_TOKENS + (withChapters ? TOKENS_PER_CHAPTER * parts.length : 0),
    json: true,
  };
}

const ModelAnswer = z.object({
  summary: z.string().catch(''),
  key_points: z.array(z.unknown()).catch([]),
  chapters: z.array(z.unknown()).optional().catch(undefined),
});

/** The model's JSON, read leniently: a code fence around it, a missing field or a point that is not text. */
export function readModelAnswer(text: string): { summary: string; keyPoints: string[]; chapters: string[] } {
  const stripped = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripped);
  } catch {
    // JSON cut off (the answer ran out of tokens): what was written whole is kept, the cut field is not.
    if (stripped.startsWith('{')) return wholeFieldsOf(stripped);
    // Not JSON (an endpoint that ignores response_format): the text is the summary.
    return { summary: text.trim(), keyPoints: [], chapters: [] };
  }
  const a = ModelAnswer.safeParse(parsed);
  if (!a.success) return { summary: '', keyPoints: [], chapters: [] };
  const texts = (xs: unknown[] | undefined) => (xs ?? []).map((x) => (typeof x === 'string' ? x.trim() : '')).filter((x) => x !== '');
  return {
    summary: a.data.summary.trim(),
    keyPoints: texts(a.data.key_points),
    chapters: (a.data.chapters ?? []).map((x) => (typeof x === 'string' ? x.trim() : '')),
  };
}

/** A JSON string literal's text, from just after its opening quote; null when the text ends inside it. */
function stringAt(text: string, from: number): { value: string; end: number } | null {
  const m = /^(?:[^"\\]|\\.)*"/.exec(text.slice(from));
  if (!m) return null;
  try {
    return { value: JSON.parse(`"${m[0]}`) as string, end: from + m[0].length };
  } catch {
    // A control character or a bad escape in the literal: not a string JSON reads.
    return null;
  }
}

/** The fields of a JSON answer cut off mid-way that were written whole: the summary's string, each list's whole strings. */
function wholeFieldsOf(text: string): { summary: string; keyPoints: string[]; chapters: string[] } {
  const field = (name: string) => new RegExp(`"${name}"\\s*:\\s*`).exec(text);
  const summaryAt = field('summary');
  const opening = summaryAt && text[summaryAt.index + summaryAt[0].length] === '"' ? summaryAt.index + summaryAt[0].length + 1 : -1;
  const summary = opening >= 0 ? (stringAt(text, opening)?.value ?? '') : '';
  const list = (name: string) => {
    const at = field(name);
    if (!at || text[at.index + at[0].length] !== '[') return [];
    const items: string[] = [];
    let i = at.index + at[0].length + 1;
    for (;;) {
      const next = /^\s*,?\s*"/.exec(text.slice(i));
      if (!next) break;
      const item = stringAt(text, i + next[0].length);
      if (!item) break;
      items.push(item.value.trim());
      i = item.end;
    }
    return items.filter((x) => x !== '');
  };
  return { summary: summary.trim(), keyPoints: list('key_points'), chapters: list('chapters') };
}

/** Words of a text as the check compares them: letters and digits, lower case, accents kept. */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? []).map((w) => w.replace(/['’].*$/, ''));
}

/** A number as written, its thousands separators and a trailing point dropped: `1,000` and `1000` are one. */
function normalNumber(n: string): string {
  return n.replace(/(?<=\d)[,  ](?=\d{3}\b)/g, '').replace(/[.,]$/, '');
}

const NUMBER = /\d(?:[\d,. ]*\d)?/g;
/** Capitalised words at a sentence's start that name nothing, in the languages a summary is most often written in. */
const OPENERS = new Set(
  'the this that these those it its he she they we you i in on at as an a overall also and but so then there here one first second finally moreover however while when after before during'.split(
    ' ',
  ),
);

/**
 * The names and numbers of a sentence that the transcript does not hold. Names: every capitalised word (a word
 * opening the sentence too, unless it is a plain opener); numbers: digit strings. Both are looked up among the
 * transcript's own words, so a summary in the transcript's language is checked against what was said.
 */
export function unsupportedClaims(sentence: string, transcript: TranscriptIndex, language: string | null = null): string[] {
  const out: string[] = [];
  for (const m of sentence.matchAll(NUMBER)) {
    const n = normalNumber(m[0]);
    if (!transcript.numbers.has(n)) out.push(m[0]);
  }
  const words = sentence.match(/[\p{L}\p{M}]+(?:['’][\p{L}]+)*/gu) ?? [];
  words.forEach((w, i) => {
    if (!/^\p{Lu}/u.test(w)) return;
    const lower = w.toLowerCase().replace(/['’].*$/, '');
    if (i === 0 && (OPENERS.has(lower) || saidAsOpener(lower, transcript) || plainEnglishOpener(sentence, language))) return;
    if (!saidAsWord(lower, transcript)) out.push(w);
  });
  return out;
}

export interface TranscriptIndex {
  words: Set<string>;
  numbers: Set<string>;
}

/** Longest ending told apart from the word it ends: "American" is said where "Americans" was, "Soviet" for "Soviets". */
const MAX_ENDING = 3;
const MIN_STEM = 4;

/** Whether the transcript holds the word, or the same word with a short ending more or less. */
function saidAsWord(word: string, transcript: TranscriptIndex): boolean {
  if (transcript.words.has(word)) return true;
  if (word.length < MIN_STEM) return false;
  for (const said of transcript.words) {
    if (said.length < MIN_STEM || Math.abs(said.length - word.length) > MAX_ENDING) continue;
    if (said.startsWith(word) || word.startsWith(said)) return true;
  }
  return false;
}

/** Tags of a sentence's first word that name nothing: a verb, an adjective, a plural common noun ("Calls for …"). */
const PLAIN_TAGS = ['Verb', 'Adjective', 'Adverb', 'Pronoun', 'Determiner', 'Preposition', 'Conjunction'];

/**
 * In English, a key point often opens with a verb ("Emphasizes the need for …") that the talk never said in that
 * form: compromise's tagger reads the first word in its sentence, and one it tags as a plain word is no name.
 */
function plainEnglishOpener(sentence: string, language: string | null): boolean {
  if (language === null || primaryLanguage(language) !== 'en') return false;
  // Required here, not imported: compromise builds a large lexicon when loaded, which only the summary workers need.
  const nlp = require('compromise') as typeof import('compromise').default;
  const first = (nlp(sentence).json() as Array<{ terms: Array<{ text: string; tags: string[] }> }>)[0]?.terms[0];
  if (!first) return false;
  const tags = new Set(first.tags);
  if (tags.has('ProperNoun') || tags.has('Person') || tags.has('Place') || tags.has('Organization')) return false;
  return PLAIN_TAGS.some((t) => tags.has(t)) || (tags.has('Noun') && (tags.has('Plural') || NOUN_OF_ACTION.test(first.text)));
}

/** A noun made of a verb or an adjective ("Normalization of …", "Advancement of …"): the tagger's plain singular noun, never a name. */
const NOUN_OF_ACTION = /(?:tion|sion|ment|ness|ity|ance|ence|ism|ship)$/i;

/**
 * A sentence's first word is capitalised whatever it is, and in key points it is mostly a verb or noun of the
 * talk in another form ("Reorganize" where "reorganization" was said): it passes when a word of the transcript
 * shares its stem, all but its last three letters and at least five. A name inside a sentence gets no such leeway.
 */
function saidAsOpener(word: string, transcript: TranscriptIndex): boolean {
  const stem = Math.max(5, word.length - MAX_ENDING);
  if (word.length < stem) return false;
  const prefix = word.slice(0, stem);
  for (const said of transcript.words) if (said.startsWith(prefix)) return true;
  return false;
}

export function indexTranscript(text: string): TranscriptIndex {
  return {
    words: new Set(wordsOf(text)),
    numbers: new Set([...text.matchAll(NUMBER)].map((m) => normalNumber(m[0]))),
  };
}

function sentencesOf(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The summary: the model asked once, its answer held to the transcript. Each sentence of the summary, each key
 * point and each chapter's sentence that names what the transcript does not is dropped (a chapter's becomes null).
 */
export async function summarizeTranscript(
  input: { segments: Array<{ start: number; text: string }>; chapters: Chapter[]; language: string | null },
  llm: { model: string; complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatAnswer> },
  signal?: AbortSignal,
  budget = SUMMARY_PROMPT_WORDS,
): Promise<SummaryOutcome> {
  const { parts, words, promptWords } = promptParts(input.segments, input.chapters, budget);
  const withChapters = input.chapters.length > 0;
  // Nothing was said: nothing to summarise, and a model asked anyway writes about nothing.
  if (words === 0)
    return {
      summary: {
        text: '',
        key_points: [],
        chapters: input.chapters.map((c) => ({ start: c.start, end: c.end, title: c.title, summary: null })),
        model: llm.model,
      },
      written: 0,
      dropped: 0,
      droppedFor: [],
      words,
      promptWords,
    };
  const answer = await llm.complete(summaryRequest(parts, input.language, withChapters), signal);
  const read = readModelAnswer(answer.text);
  const index = indexTranscript(input.segments.map((s) => s.text).join(' '));
  let written = 0;
  let dropped = 0;
  const droppedFor: string[] = [];
  const keep = (s: string) => {
    written += 1;
    const unsupported = unsupportedClaims(s, index, input.language);
    if (unsupported.length === 0) return true;
    dropped += 1;
    droppedFor.push(...unsupported);
    return false;
  };
  const text = sentencesOf(read.summary).filter(keep).join(' ');
  const keyPoints = read.keyPoints.filter(keep);
  const chapters = input.chapters.map((c, i) => {
    const said = read.chapters[i] ?? '';
    return { start: c.start, end: c.end, title: c.title, summary: said && keep(said) ? said : null };
  });
  return { summary: { text, key_points: keyPoints, chapters, model: llm.model }, written, dropped, droppedFor, words, promptWords };
}
