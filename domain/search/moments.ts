import type { Segment } from '../../core/timing';

// How a transcript is cut into the moments search answers with: windows of consecutive segments, long enough
// to hold a thought and short enough to jump to (about 10–30 s), each of one speaker and one language.

/** A window closes once it holds this much speech. */
export const MOMENT_MIN_SECONDS = 10;
/** A segment that would take the window past this starts the next one. */
export const MOMENT_MAX_SECONDS = 30;

export interface Moment {
  seq: number;
  start: number;
  end: number;
  text: string;
  speaker: string | null;
  language: string | null;
  searchConfig: SearchConfig;
}

/** The text search configurations of the migration (20261129120001_search_moments), by language. */
const STEMMED: Record<string, SearchConfig> = {
  en: 'search_en',
  es: 'search_es',
  fr: 'search_fr',
  de: 'search_de',
  pt: 'search_pt',
  it: 'search_it',
};
/** Languages written without spaces between words: matched by trigrams, not by words. */
const WITHOUT_SPACES = new Set(['ja', 'ko', 'zh', 'th', 'lo', 'km', 'my']);

export const SEARCH_CONFIGS = ['search_en', 'search_es', 'search_fr', 'search_de', 'search_pt', 'search_it', 'search_simple'] as const;
export type SearchConfig = (typeof SEARCH_CONFIGS)[number] | 'search_trigram';

/**
 * Each configuration's twin that keeps accents: PostgreSQL's own. Accents are folded before stemming (unaccent
 * must come first in a mapping), which loses what a stemmer reads from them (French "fermée" and "fermé" share
 * a stem, "fermee" and "ferme" do not), so a moment's words are read both ways and a query matches either.
 */
export const ACCENTED_CONFIG: Record<(typeof SEARCH_CONFIGS)[number], string> = {
  search_en: 'english',
  search_es: 'spanish',
  search_fr: 'french',
  search_de: 'german',
  search_pt: 'portuguese',
  search_it: 'italian',
  search_simple: 'simple',
};

export function searchConfigOf(language: string | null): SearchConfig {
  const base = language?.split('-')[0]?.toLowerCase() ?? '';
  if (WITHOUT_SPACES.has(base)) return 'search_trigram';
  return STEMMED[base] ?? 'search_simple';
}

/** The transcript's moments, in order (`seq` from 0). Segments without text are skipped. */
export function momentsOf(segments: Pick<Segment, 'start' | 'end' | 'text' | 'speaker' | 'language'>[], language: string | null): Moment[] {
  type Open = Omit<Moment, 'seq' | 'searchConfig'>;
  const windows: Open[] = [];
  for (const s of segments) {
    const text = s.text.trim();
    if (!text) continue;
    const speaker = s.speaker ?? null;
    const lang = s.language ?? null;
    const open = windows[windows.length - 1];
    const joins =
      open !== undefined &&
      open.speaker === speaker &&
      open.language === lang &&
      open.end - open.start < MOMENT_MIN_SECONDS &&
      s.end - open.start <= MOMENT_MAX_SECONDS;
    if (joins) windows[windows.length - 1] = { ...open, end: Math.max(open.end, s.end), text: `${open.text} ${text}` };
    else windows.push({ start: s.start, end: s.end, text, speaker, language: lang });
  }
  return windows.map((w, seq) => {
    const lang = w.language ?? language;
    return { ...w, language: lang, seq, searchConfig: searchConfigOf(lang) };
  });
}
