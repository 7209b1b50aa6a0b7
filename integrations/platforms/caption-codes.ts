import { languageMatch } from './language-tags';
import type { CaptionKind } from './types';

// The language code a caption track is listed under (language discovery) and
// asked for again (a job's caption_languages). Usually the platform's own
// code. A videosite video can carry several creator tracks of one language
// ("named tracks": `.en` plus `.en.<id>` with a trackName such as "Director's
// commentary"); one code for all of them would let a job ask for only one of
// them. Those get distinct BCP 47 tags with a private-use part, which stays a
// valid tag and still reads as the language:
//
//   - a language with one track of a kind keeps the platform's code (`en`);
//   - otherwise the unnamed track (the first, if several) keeps it, and every
//     other track gets `<code>-x-<slug>`: the slug is the track name folded to
//     ASCII letters and digits, split into subtags of at most 8 characters,
//     at most 4 of them ("Director's commentary" → `en-x-director-s-commenta-ry`);
//     a name with no ASCII letters or digits uses the id after the language in
//     its vssId (`.ja.kH2EDplw2PE` → `ja-x-kh2edplw-2pe`), else `track<n>`
//     (its place in the platform's list, from 1);
//   - a tag already taken (case-insensitively) within the kind gets a
//     further subtag `-2`, `-3` ...
//
// The codes depend only on the tracks themselves, so the same list gives the
// same codes at discovery and at job time; caption-choice.ts matches a
// requested tag against a track's code before its plain language.

export interface CodableTrack {
  /** The platform's language code. */
  language: string;
  kind: CaptionKind;
  /** The platform's trackName ('' for the unnamed track). */
  trackName: string;
  /** The platform's vssId (`.en`, `.en.<id>`, `a.en`); '' when absent. */
  vssId: string;
}

/** One code per track, in the same order. */
export function captionCodes(tracks: readonly CodableTrack[]): string[] {
  const codes = tracks.map((t) => t.language);
  const groups = new Map<string, number[]>();
  tracks.forEach((t, i) => {
    const key = `${t.kind}|${t.language.toLowerCase()}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const keeper = members.find((i) => tracks[i].trackName.trim() === '') ?? null;
    for (const i of members) {
      if (i !== keeper) codes[i] = `${tracks[i].language}-x-${slugOf(tracks[i], i)}`;
    }
  }
  // Distinct within a kind, compared the way caption-choice compares tags.
  const taken: Array<{ kind: CaptionKind; code: string }> = [];
  return codes.map((code, i) => {
    const kind = tracks[i].kind;
    const clash = (c: string) => taken.some((t) => t.kind === kind && languageMatch(t.code, c) === 3);
    let unique = code;
    for (let n = 2; clash(unique); n++) unique = `${code}${code.includes('-x-') ? '' : '-x'}-${n}`;
    taken.push({ kind, code: unique });
    return unique;
  });
}

function slugOf(track: CodableTrack, index: number): string {
  const fromName = subtags(track.trackName);
  if (fromName.length > 0) return fromName.join('-');
  // `.ja.kH2EDplw2PE`: the part after the language is the track's own id.
  const id = track.vssId.split('.').slice(2).join('');
  const fromId = subtags(id);
  return fromId.length > 0 ? fromId.join('-') : `track${index + 1}`;
}

/** ASCII letters and digits of a text as private-use subtags (1–8 characters each, at most 4). */
function subtags(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  const out: string[] = [];
  for (const word of words) {
    for (let i = 0; i < word.length && out.length < 4; i += 8) out.push(word.slice(i, i + 8));
  }
  return out;
}
