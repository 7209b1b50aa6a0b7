import { chrfScore, chrfStats, corpusChrf } from '../../../bench/sections/translation';

// The translation bench's chrF must be sacrebleu's: the values below are sacrebleu 2.5.1's corpus_chrf on the same
// sentences (computed once outside the suite, where sacrebleu is installed).

describe("the translation bench's chrF", () => {
  it("scores as sacrebleu's corpus_chrf does", () => {
    expect(corpusChrf(['o gato está no tapete'], ['o gato estava no tapete'], 10).score).toBeCloseTo(66.81372182998697, 10);
    expect(
      corpusChrf(['The cat sat on the mat.', 'It rained all day'], ['The cat was sitting on the mat.', 'It rained all day long.'], 10)
        .score,
    ).toBeCloseTo(SACREBLEU_TWO_SENTENCES, 10);
  });

  it('is 100 for the reference itself, ignores spaces, and is 0 with nothing in common', () => {
    expect(chrfScore(chrfStats('Boa noite a todos.', 'Boa noite a todos.'))).toBeCloseTo(100, 10);
    expect(chrfScore(chrfStats('Boanoite  a todos.', 'Boa noite a todos.'))).toBeCloseTo(100, 10);
    expect(chrfScore(chrfStats('xyz', 'abc'))).toBeCloseTo(0, 10);
  });

  it('gives a bootstrap interval around the score, the same on every run', () => {
    const hyp = ['um dois três', 'quatro cinco', 'seis sete oito nove', 'dez'];
    const ref = ['um dois três', 'quatro e cinco', 'seis oito nove', 'onze'];
    const a = corpusChrf(hyp, ref, 200);
    expect(a.low).toBeLessThanOrEqual(a.score);
    expect(a.high).toBeGreaterThanOrEqual(a.score);
    expect(corpusChrf(hyp, ref, 200)).toEqual(a);
  });
});

const SACREBLEU_TWO_SENTENCES = 59.14941147030819;
