import type { Segment } from '../../integrations/platforms/types';

/** What every parsed caption body must give, whatever its format. */
export function expectSaneSegments(segments: Segment[]): void {
  expect(segments.length).toBeGreaterThan(0);
  segments.forEach((s, i) => {
    expect(Number.isFinite(s.start) && Number.isFinite(s.end)).toBe(true);
    expect(s.start).toBeGreaterThanOrEqual(0);
    expect(s.end).toBeGreaterThanOrEqual(s.start);
    if (i > 0) expect(s.start).toBeGreaterThanOrEqual(segments[i - 1].start);
    expect(s.text).not.toBe('');
    expect(s.text).toBe(s.text.trim());
    expect(s.text).not.toMatch(/[\u200b\u2060\ufeff\n\r]/);
    expect(s.text).not.toMatch(/<\/?[a-z][^>]*>|<\d\d:\d\d/i);
    expect(s.text).not.toMatch(/&(amp|lt|gt|quot|#\d+);/);
  });
}
