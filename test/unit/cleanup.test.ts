import naughtyWords from 'naughty-words';
import { cleanText, cleanTranscriptWords, cleanWords, NO_CLEANUP, PROFANITY_LANGUAGES } from '../../domain/transcripts/cleanup';

// filter_profanity and disfluencies (issue 53, item 4): what is masked, what is dropped, and that words keep their times.

const profanity = { filterProfanity: true, disfluencies: true };
const fluent = { filterProfanity: false, disfluencies: false };
const both = { filterProfanity: true, disfluencies: false };

describe('filter_profanity', () => {
  it('masks listed words keeping the first letter and the punctuation around them, in each language', () => {
    expect(cleanText('What the fuck, really?', 'en', profanity)).toBe('What the f***, really?');
    expect(cleanText('Fuck.', 'en-US', profanity)).toBe('F***.');
    expect(cleanText('Das ist Scheiße!', 'de', profanity)).toBe('Das ist S******!');
    expect(cleanText('quel connard', 'fr', profanity)).toBe('quel c******');
    // A listed phrase is masked word by word; the same words apart are not.
    expect(cleanText('he said two girls one cup', 'en', profanity)).toBe('he said t** g**** o** c**');
    expect(cleanText('two girls drank one cup of tea', 'en', profanity)).toBe('two girls drank one cup of tea');
  });

  it('leaves clean text, unlisted languages and fillers alone', () => {
    expect(cleanText('A perfectly clean sentence.', 'en', profanity)).toBe('A perfectly clean sentence.');
    expect(cleanText('um fuck', 'xx', profanity)).toBe('um fuck');
    expect(cleanText('um, well', 'en', profanity)).toBe('um, well');
    expect(cleanText('What the fuck', 'en', NO_CLEANUP)).toBe('What the fuck');
  });

  it('masks inside the text where words are not spaced (ja) or take particles (ko)', () => {
    const ko = naughtyWords.ko![1]!;
    expect(cleanText(`너 ${ko}야`, 'ko', profanity)).toBe(`너 ${ko[0]}${'*'.repeat(Array.from(ko).length - 1)}야`);
    const ja = naughtyWords.ja!.find((w) => !/\s/.test(w) && Array.from(w).length >= 2 && !/[a-z0-9]/i.test(w))!;
    const masked = cleanText(`これは${ja}です`, 'ja', profanity);
    expect(masked).not.toContain(ja);
    expect(masked.startsWith('これは')).toBe(true);
    expect(masked.endsWith('です')).toBe(true);
  });

  it('does not mask a single listed character inside ordinary words (zh 性 in 可能性), nor Latin entries inside other words', () => {
    expect(naughtyWords.zh).toContain('性');
    expect(cleanText('这种可能性很大', 'zh', profanity)).toBe('这种可能性很大');
    expect(cleanText('你这个傻逼', 'zh', profanity)).toBe('你这个傻*');
    expect(naughtyWords.ja).toContain('sm');
    expect(cleanText('smartphone を使う', 'ja', profanity)).toBe('smartphone を使う');
  });

  it('has a list for every language it says it has', () => {
    for (const lang of PROFANITY_LANGUAGES) expect(naughtyWords[lang]?.length ?? 0).toBeGreaterThan(10);
  });
});

describe('disfluencies: false', () => {
  it('drops fillers and a word said twice in a row, moving a closing full stop to the word before', () => {
    expect(cleanText('So um I I think, uh, we should go um.', 'en', fluent)).toBe('So I think, we should go.');
    expect(cleanText('Alors euh on y va', 'fr', fluent)).toBe('Alors on y va');
    expect(cleanText('Ich äh ähm weiß nicht', 'de', fluent)).toBe('Ich weiß nicht');
    expect(cleanText('えーと、今日はえー晴れです', 'ja', fluent)).toBe('今日は晴れです');
    // The text's own spacing and line breaks stay (an align_text transcript is the given text).
    expect(cleanText('Hello  um\nworld,\tshit\n\num\nbye', 'en', both)).toBe('Hello\nworld,\ts***\n\nbye');
    // Words that only sound like fillers elsewhere stay: "like" in English, "este" in Spanish.
    expect(cleanText('I like este', 'en', fluent)).toBe('I like este');
  });

  it('drops the words themselves with their times, and keeps every other word with its own', () => {
    const words = [
      { start: 0, end: 0.4, text: 'I', confidence: 0.9 },
      { start: 0.5, end: 0.7, text: 'um', confidence: 0.5 },
      { start: 0.8, end: 1.0, text: 'I', confidence: 0.9 },
      { start: 1.1, end: 1.5, text: 'think', confidence: 0.9 },
      { start: 1.6, end: 2.0, text: 'shit.', confidence: 0.9 },
    ];
    expect(cleanWords(words, 'en', both)).toEqual([
      { start: 0, end: 0.4, text: 'I', confidence: 0.9 },
      { start: 1.1, end: 1.5, text: 'think', confidence: 0.9 },
      { start: 1.6, end: 2.0, text: 's***.', confidence: 0.9 },
    ]);
  });

  it('cleans a whole transcript: text, each segment in its own language, words; a segment left empty goes', () => {
    const cleaned = cleanTranscriptWords(
      {
        text: 'um. Bonjour euh merde',
        language: 'en',
        segments: [
          { start: 0, end: 1, text: 'um.', language: 'en' },
          { start: 1, end: 3, text: 'Bonjour euh merde', language: 'fr' },
        ],
        words: null,
      },
      both,
    );
    expect(cleaned.segments).toEqual([{ start: 1, end: 3, text: 'Bonjour m****', language: 'fr' }]);
    expect(cleaned.words).toBeNull();
  });
});
