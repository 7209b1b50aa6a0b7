import { overlayTone, TONE_PADDING_SECONDS, toneSpans } from '../../domain/transcripts/redacted-audio';
import { toneShare } from '../support/tone';

// `redacted_audio` (issue 53, item 3): which stretches the tone covers, and the tone itself. The whole job, on
// recognised speech, with the file decoded again: test/redaction.test.ts.

describe('the stretches under the tone', () => {
  it('are the placeholder words, padded, merged where they touch, clipped to the audio', () => {
    const words = [
      { start: 0.02, end: 0.5, text: 'Call' },
      { start: 0.0, end: 0.04, text: '[PHONE]' },
      { start: 1.0, end: 2.0, text: '([PHONE]),' },
      { start: 2.1, end: 2.5, text: '[EMAIL].' },
      { start: 3.0, end: 3.5, text: '[NOTAKIND]' },
      { start: 4.0, end: 4.99, text: '[CARD]' },
    ];
    const p = TONE_PADDING_SECONDS;
    expect(toneSpans(words, 5)).toEqual([
      [0, 0.04 + p],
      [1 - p, 2.5 + p],
      [4 - p, 5],
    ]);
    expect(toneSpans([{ start: 0, end: 1, text: 'nothing here' }], 5)).toEqual([]);
  });
});

describe('the tone', () => {
  it('replaces the samples of each stretch by a 1 kHz sine and leaves the rest as it was', () => {
    const rate = 16000;
    const samples = Int16Array.from({ length: rate * 2 }, (_, i) => Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / rate)));
    const before = Int16Array.from(samples);
    overlayTone(samples, rate, [[0.5, 1.0]]);
    expect(toneShare(samples, rate, 8000 + 160, 16000 - 160)).toBeGreaterThan(0.95);
    expect(toneShare(before, rate, 8000 + 160, 16000 - 160)).toBeLessThan(0.01);
    expect(Array.from(samples.subarray(0, 8000))).toEqual(Array.from(before.subarray(0, 8000)));
    expect(Array.from(samples.subarray(16000))).toEqual(Array.from(before.subarray(16000)));
    // Faded in: the stretch starts at silence, not at the old sample's level.
    expect(Math.abs(samples[8000]!)).toBe(0);
    expect(Math.max(...Array.from(samples.subarray(8000, 16000)).map(Math.abs))).toBeLessThanOrEqual(Math.ceil(0.2 * 32767));
  });
});
