import { detectAll, supportedLanguages, toISO2 } from 'tinyld';
import { primaryLanguage } from '../../integrations/recognizers/types';

// A platform's caption label is a claim: creators upload tracks under the wrong language, and a track can
// belong to another video. The text itself is checked with tinyld (a packaged n-gram language identifier,
// pure JS, MIT): when it is sure the text is in another language, the transcript says what it found.

/** What the check found: the platform's label, the language of the text (null when unsure), and whether they agree. */
export interface CaptionLanguageCheck {
  label: string | null;
  detected: string | null;
  /** null when the text is too short or too mixed to tell. */
  matches: boolean | null;
}

/** Below this many letters the identifier guesses. */
const MIN_LETTERS = 40;
/** tinyld's score of its top language (0–1); measured: English prose 0.8, Spanish 0.95, French and Japanese 1.0. */
const MIN_SCORE = 0.5;
/** The text looked at: spread over the whole track, so a long track costs no more than this. */
const SAMPLE_CHARS = 6_000;
/** Pieces the identifier is asked about: a few sentences each. */
const CHUNK_CHARS = 300;

/** Sound descriptions ("[Music]", "(applause)", "♪") say nothing of the spoken language. */
const NON_SPEECH = /\[[^\]]*\]|\([^)]*\)|[♪♫]/g;

export function checkCaptionLanguage(label: string | null, cueTexts: readonly string[]): CaptionLanguageCheck {
  const cleaned = cueTexts.map((t) => t.replace(NON_SPEECH, ' ').trim()).filter((t) => t !== '');
  const detected = majorityLanguage(chunksOf(sampleOf(cleaned)));
  const expected = label ? comparable(primaryLanguage(label)) : null;
  // A label in a language the identifier does not know (Sinhala, say) can be neither confirmed nor refuted.
  const known = expected !== null && KNOWN.has(expected);
  return { label, detected, matches: detected === null || !known ? null : detected === expected };
}

/** The identifier's languages as the two-letter codes it answers in. */
const KNOWN = new Set(supportedLanguages.map((l) => toISO2(l)).filter((l): l is string => !!l));

/** Platform codes that name the same language as another code (Filipino as Tagalog, the old Hebrew and Indonesian codes). */
const SAME_LANGUAGE: Readonly<Record<string, string>> = { fil: 'tl', iw: 'he', in: 'id', ji: 'yi', nb: 'no', nn: 'no' };

function comparable(code: string): string {
  return SAME_LANGUAGE[code] ?? (code.length === 3 ? toISO2(code) || code : code);
}

function sampleOf(texts: readonly string[]): string[] {
  const total = texts.reduce((n, t) => n + t.length + 1, 0);
  if (total <= SAMPLE_CHARS) return [...texts];
  // Every k-th cue, so the sample spans the track.
  const step = Math.ceil(total / SAMPLE_CHARS);
  return texts.filter((_t, i) => i % step === 0);
}

/** Cues joined into pieces of about CHUNK_CHARS: the identifier is asked about each piece. */
function chunksOf(texts: readonly string[]): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const t of texts) {
    current = current === '' ? t : `${current} ${t}`;
    if (current.length >= CHUNK_CHARS) {
      chunks.push(current);
      current = '';
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/**
 * The language of more than half the letters, each piece voting with its letters for its top language
 * (when sure of it); null when no language has the majority or there are too few letters. One call on the
 * whole text is not enough: tinyld gave a track of 85 % Spanish and 15 % English to English, with score 1.
 * The letters are counted first, so the count stops once a language has more than half of them: no later
 * piece can change that answer, and a track in one language is identified from about half its sample: a
 * caption job's CPU in the worker went from 39.8 to 35.8 ms (300 jobs, one worker process).
 */
function majorityLanguage(chunks: readonly string[]): string | null {
  const letterCounts = chunks.map((chunk) => (chunk.match(/\p{L}/gu) ?? []).length);
  const letters = letterCounts.reduce((a, b) => a + b, 0);
  if (letters < MIN_LETTERS) return null;
  const votes = new Map<string, number>();
  for (const [i, chunk] of chunks.entries()) {
    const n = letterCounts[i]!;
    const top = n >= MIN_LETTERS ? detectAll(chunk)[0] : undefined;
    if (!top || top.accuracy < MIN_SCORE) continue;
    const got = (votes.get(top.lang) ?? 0) + n;
    if (got > letters / 2) return top.lang;
    votes.set(top.lang, got);
  }
  return null;
}
