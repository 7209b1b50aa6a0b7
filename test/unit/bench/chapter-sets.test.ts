import fs from 'node:fs';
import path from 'node:path';
import { composeTalks, loadExcerpts, TALK_SETS } from '../../../bench/sections/chapters';

// bench/sets/chapters (issue 53): the talks the chapters bench composes recordings from. Each set holds excerpts of
// at least 800 words, each a different text; the one-subject set is built from the pinned WikiText-2 files its build
// script checks, with the split's tokenisation undone; and a composition's true boundaries are where its talks start.

const DIR = path.join(__dirname, '../../../bench/sets/chapters');
const words = (sentences: string[]) => sentences.join(' ').split(/\s+/).filter(Boolean).length;

describe.each(TALK_SETS.map((s) => [s.file] as const))('the chapters bench set %s', (file) => {
  const excerpts = loadExcerpts(file);

  it('holds at least 80 excerpts of at least 800 words, no two the same text', () => {
    expect(excerpts.length).toBeGreaterThanOrEqual(80);
    for (const e of excerpts) expect(words(e.sentences)).toBeGreaterThanOrEqual(800);
    expect(new Set(excerpts.map((e) => e.sentences.join(' '))).size).toBe(excerpts.length);
  });

  it('composes recordings of 3 to 6 talks whose true boundaries are where each later talk starts', () => {
    const compositions = composeTalks(excerpts, 10, 5);
    expect(composeTalks(excerpts, 10, 5)).toEqual(compositions);
    for (const c of compositions) {
      expect(c.talks.length).toBeGreaterThanOrEqual(3);
      expect(c.talks.length).toBeLessThanOrEqual(6);
      expect(c.boundaries).toHaveLength(c.talks.length - 1);
      const starts = new Set(c.segments.map((s) => s.start));
      for (const b of c.boundaries) expect(starts.has(Math.round(b * 1000) / 1000)).toBe(true);
      // Each talk lasts 2 to 5 minutes (whole sentences: the last may run a sentence past 5).
      const edges = [0, ...c.boundaries, c.segments.at(-1)!.end];
      for (let k = 1; k < edges.length; k++) expect(edges[k]! - edges[k - 1]!).toBeGreaterThanOrEqual(120);
    }
  });
});

describe('the one-subject talks (WikiText-2)', () => {
  const set = JSON.parse(fs.readFileSync(path.join(DIR, 'wiki-excerpts.json'), 'utf8')) as {
    source: { licence: string; repository: string; commit: string; files: Record<string, string> };
    excerpts: Array<{ name: string; sentences: string[] }>;
  };

  it('names its source files by the hashes its build script pins, and its licence', () => {
    const script = fs.readFileSync(path.join(DIR, 'build_wiki.py'), 'utf8');
    expect(set.source.licence).toBe('CC BY-SA 3.0');
    expect(set.source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(set.source.files).sort()).toEqual([
      'word_language_model/data/wikitext-2/test.txt',
      'word_language_model/data/wikitext-2/valid.txt',
    ]);
    for (const hash of Object.values(set.source.files)) {
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(script).toContain(hash);
    }
  });

  it("reads as text is written: no token of the split's own (<unk>, @-@), contractions joined, punctuation after its word", () => {
    const text = set.excerpts.flatMap((e) => e.sentences).join(' ');
    // Only the match's place is printed: the set is half a megabyte.
    const first = (pattern: RegExp) => text.match(pattern)?.index ?? null;
    expect(first(/<unk>|@[-,.]@/)).toBeNull();
    expect(first(/\wn 't\b|\w '(re|ve|ll|m|s)\b/)).toBeNull();
    // A dropped <unk> between two stops leaves a few (3 of about 86,000 words).
    expect(text.match(/ [.,;:!?]/g)?.length ?? 0).toBeLessThan(10);
    expect(new Set(set.excerpts.map((e) => e.name)).size).toBeGreaterThan(80);
  });
});
