import { ServiceError } from '../../core/errors';
import { languageMatch } from './language-tags';
import type { CaptionKind, CaptionPreference } from './types';

// Which caption track answers a job's caption_languages and caption_preference.
// The caller's language order comes first: automatic captions in the first
// language asked for beat creator captions in the second. Within one language,
// caption_preference orders the kinds; within one kind, the closer tag wins
// (exact, then `en` ↔ `en-US`, then `en-US` ↔ `en-GB`), then the default
// track, then the platform's order. A track listed under its own code
// (caption-codes.ts: `en-x-commentary` for one of several English creator
// tracks) is matched by that code before any plain-language match, so every
// code the language discovery lists leads back to its track; where code and
// language are the same (nearly every track) the order is the one above.

export interface ChoosableTrack {
  /** BCP 47 (or close to it). */
  language: string;
  kind: CaptionKind;
  isDefault: boolean;
  /** The code the track is listed under when it differs from `language` (caption-codes.ts); absent = `language`. */
  code?: string;
}

export interface CaptionChoice {
  languages?: readonly string[];
  preference?: CaptionPreference;
}

const KINDS: Record<CaptionPreference, CaptionKind[]> = {
  prefer_creator: ['creator', 'automatic'],
  creator_only: ['creator'],
  automatic_only: ['automatic'],
};

export function chooseCaptionTrack<T extends ChoosableTrack>(tracks: readonly T[], choice: CaptionChoice = {}): T {
  const preference = choice.preference ?? 'prefer_creator';
  const kinds = KINDS[preference];
  if (tracks.length === 0) throw new ServiceError('NO_CAPTIONS', 'the video has no caption tracks');
  const allowed = tracks.filter((t) => kinds.includes(t.kind));
  if (allowed.length === 0) {
    throw new ServiceError(
      'NO_CAPTIONS',
      `caption_preference=${preference}: the video has only ${tracks[0].kind === 'creator' ? 'creator' : 'automatic'} captions`,
    );
  }

  const languages = choice.languages ?? [];
  if (languages.length > 0) {
    for (const language of languages) {
      const hit = bestFor(language, allowed, kinds);
      if (hit) return hit;
    }
    const available = [...new Set(allowed.map((t) => t.code ?? t.language))].join(', ');
    throw new ServiceError(
      'LANGUAGE_UNAVAILABLE',
      `caption_languages: none of ${languages.join(', ')} (caption_preference=${preference}; available: ${available})`,
    );
  }

  // No languages asked for: the video's default track, or the closest to it
  // that the preference allows (its language, then any allowed track).
  const reference = tracks.find((t) => t.isDefault) ?? tracks.find((t) => t.kind === 'creator') ?? tracks[0];
  return bestFor(reference.code ?? reference.language, allowed, kinds) ?? allowed.find((t) => t.isDefault) ?? allowed[0];
}

function bestFor<T extends ChoosableTrack>(language: string, tracks: readonly T[], kinds: readonly CaptionKind[]): T | undefined {
  for (const kind of kinds) {
    let best: T | undefined;
    let bestScore = 0;
    for (const track of tracks) {
      const match = track.kind === kind ? matchOf(language, track) : 0;
      if (match === 0) continue;
      const score = match * 2 + (track.isDefault ? 1 : 0);
      if (score > bestScore) {
        best = track;
        bestScore = score;
      }
    }
    if (best) return best;
  }
  return undefined;
}

/** languageMatch, plus 4 when the tag is exactly the track's own code. */
function matchOf(language: string, track: ChoosableTrack): number {
  if (languageMatch(language, track.code ?? track.language) === 3) return 4;
  return languageMatch(language, track.language);
}
