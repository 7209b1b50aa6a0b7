import { chooseCaptionTrack, type ChoosableTrack } from '../../../integrations/platforms/caption-choice';
import { languageMatch, normaliseLanguageTag } from '../../../integrations/platforms/language-tags';
import type { CaptionPreference } from '../../../integrations/platforms/types';

type Track = ChoosableTrack & { id: string };
const creator = (id: string, language = id, isDefault = false): Track => ({ id, language, kind: 'creator', isDefault });
const auto = (id: string, language: string, isDefault = false): Track => ({ id, language, kind: 'automatic', isDefault });

// The track list of the recorded GJLlxj_dtq8 player response: default = creator en.
const NINE = [
  creator('zh'),
  creator('cs'),
  creator('en', 'en', true),
  auto('a.en', 'en'),
  creator('de'),
  creator('hi'),
  creator('ja'),
  creator('ko'),
  creator('es'),
];
// A video with regional English variants and automatic French.
const VARIANTS = [
  creator('en-GB'),
  creator('en-US', 'en-US', true),
  auto('a.en', 'en'),
  auto('a.fr', 'fr'),
  creator('pt-BR'),
  creator('zh-Hant'),
  creator('iw'),
];
const ONLY_AUTO = [auto('a.en', 'en', true)];
const ONLY_CREATOR_ES = [creator('es', 'es', true)];
// Default is automatic English, creator captions exist only in Spanish.
const AUTO_DEFAULT_CREATOR_ES = [auto('a.en', 'en', true), creator('es')];

const cases: Array<[string, Track[], string[] | undefined, CaptionPreference | undefined, string]> = [
  // [what, tracks, caption_languages, caption_preference, chosen id or error code]
  ['no languages: the default track', NINE, undefined, undefined, 'en'],
  ['no languages, automatic_only: automatic in the default language', NINE, undefined, 'automatic_only', 'a.en'],
  ['no languages, creator_only: the default creator track', NINE, [], 'creator_only', 'en'],
  ['exact language', NINE, ['de'], undefined, 'de'],
  ['first available language in order', NINE, ['fr', 'it', 'ja', 'de'], undefined, 'ja'],
  ['prefer_creator picks creator over automatic in one language', NINE, ['en'], 'prefer_creator', 'en'],
  ['automatic_only in a language that only has creator captions', NINE, ['de'], 'automatic_only', 'LANGUAGE_UNAVAILABLE'],
  ['automatic_only falls to the next language', NINE, ['de', 'en'], 'automatic_only', 'a.en'],
  ['language missing', NINE, ['fr'], undefined, 'LANGUAGE_UNAVAILABLE'],
  ['region asked, only the bare language exists', NINE, ['en-US'], undefined, 'en'],
  ['bare language asked, regional tracks exist: the default wins among equals', VARIANTS, ['en'], undefined, 'en-US'],
  ['exact region beats other region', VARIANTS, ['en-GB'], undefined, 'en-GB'],
  ['other region of the same language beats nothing', VARIANTS, ['en-AU'], 'creator_only', 'en-US'],
  ['case and underscore do not matter', VARIANTS, ['PT_br'], undefined, 'pt-BR'],
  ['script subtag: zh-Hant', VARIANTS, ['zh-Hant'], undefined, 'zh-Hant'],
  ['script variant of the same language still matches', VARIANTS, ['zh-TW'], undefined, 'zh-Hant'],
  ['deprecated code on the track (iw) matches he', VARIANTS, ['he'], undefined, 'iw'],
  ['language order beats creator preference: automatic fr before creator en', VARIANTS, ['fr', 'en'], 'prefer_creator', 'a.fr'],
  ['creator_only skips the automatic-only language', VARIANTS, ['fr', 'en'], 'creator_only', 'en-US'],
  ['creator_only on a video with only automatic captions', ONLY_AUTO, undefined, 'creator_only', 'NO_CAPTIONS'],
  ['prefer_creator on a video with only automatic captions', ONLY_AUTO, ['en'], 'prefer_creator', 'a.en'],
  ['automatic_only on a video with only creator captions', ONLY_CREATOR_ES, undefined, 'automatic_only', 'NO_CAPTIONS'],
  ['no tracks at all', [], undefined, undefined, 'NO_CAPTIONS'],
  ['no tracks at all, with languages', [], ['en'], undefined, 'NO_CAPTIONS'],
  ['default automatic, prefer_creator: stays in the default language', AUTO_DEFAULT_CREATOR_ES, undefined, 'prefer_creator', 'a.en'],
  ['default automatic, creator_only: the creator track in another language', AUTO_DEFAULT_CREATOR_ES, undefined, 'creator_only', 'es'],
];

describe('chooseCaptionTrack', () => {
  test.each(cases)('%s', (_what, tracks, languages, preference, expected) => {
    let outcome: string;
    try {
      outcome = chooseCaptionTrack(tracks, { languages, preference }).id;
    } catch (err) {
      outcome = (err as { code: string }).code;
    }
    expect(outcome).toBe(expected);
  });

  test('LANGUAGE_UNAVAILABLE names what was asked and what exists', () => {
    expect(() => chooseCaptionTrack(NINE, { languages: ['fr', 'it'] })).toThrow(
      expect.objectContaining({
        code: 'LANGUAGE_UNAVAILABLE',
        detail: expect.stringMatching(/caption_languages: none of fr, it .*available: zh, cs, en, de/),
      }),
    );
  });
});

describe('language tags', () => {
  test.each([
    ['eng-US', 'en-US'],
    ['cmn-Hans-CN', 'zh-Hans-CN'],
    ['spa-ES', 'es-ES'],
    ['pt_br', 'pt-BR'],
    ['zh-hant', 'zh-Hant'],
    ['fil', 'fil'],
    ['', ''],
  ])('normalise %s → %s', (input, output) => {
    expect(normaliseLanguageTag(input)).toBe(output);
  });

  test.each([
    ['en', 'en', 3],
    ['en', 'en-US', 2],
    ['en-US', 'en', 2],
    ['en-US', 'en-GB', 1],
    ['en', 'de', 0],
    ['he', 'iw', 3],
    ['en', 'eng-US', 2],
    ['fil', 'fi', 0],
  ] as const)('match %s / %s = %d', (a, b, score) => {
    expect(languageMatch(a, b)).toBe(score);
  });
});
