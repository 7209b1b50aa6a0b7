import { addMonths } from '../../core/dates';
import { ERROR_CATALOGUE, ERROR_CODES, isErrorCode, ServiceError, toErrorObject } from '../../core/errors';
import { getEventListeners } from 'node:events';
import { PLAN_IDS, PLANS } from '../../core/plans';
import {
  CLEAN_RANGES,
  inRanges,
  onlyRangesPattern,
  SIMPLE_LAYOUT_RANGES,
  WIDE_RANGES,
  ZERO_WIDTH_RANGES,
  type Ranges,
} from '../../core/unicode';
import { timeoutOrAbort } from '../../core/waiting';

// The kernel (core/) on its own: no server, no other layer.

describe('the error catalogue', () => {
  it('maps every code once to an HTTP status and a retry rule: 5xx retryable, 4xx not (429 aside)', () => {
    for (const code of ERROR_CODES) {
      const { status, retryable } = ERROR_CATALOGUE[code];
      expect({ code, valid: status >= 400 && status < 600 }).toEqual({ code, valid: true });
      if (status >= 500) expect({ code, retryable }).toEqual({ code, retryable: true });
      else if (status !== 429) expect({ code, retryable }).toEqual({ code, retryable: false });
    }
    expect(isErrorCode('RATE_LIMITED')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('an error leaves as the spec object: code, message, retryable, details naming the field', () => {
    const e = new ServiceError('INVALID_REQUEST', 'source.url', { message: 'source.url: not a link' });
    expect(e.status).toBe(422);
    expect(e.toObject()).toEqual({
      code: 'INVALID_REQUEST',
      message: 'source.url: not a link',
      retryable: false,
      details: { detail: 'source.url' },
    });
    expect(toErrorObject('RATE_LIMITED', undefined, undefined, 7)).toEqual({
      code: 'RATE_LIMITED',
      message: ERROR_CATALOGUE.RATE_LIMITED.message,
      retryable: true,
      retry_after_seconds: 7,
    });
  });
});

describe('calendar months', () => {
  it.each([
    ['2026-01-31T10:00:00Z', 1, '2026-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00Z', 1, '2028-02-29T10:00:00.000Z'],
    ['2026-03-15T00:00:00Z', 12, '2027-03-15T00:00:00.000Z'],
    ['2026-12-31T23:59:59Z', 2, '2027-02-28T23:59:59.000Z'],
  ])('%s + %i month(s) = %s (the same day, or the last of a shorter month)', (from, months, to) => {
    expect(addMonths(new Date(from), months).toISOString()).toBe(to);
  });
});

describe('the plans', () => {
  it('every plan has its limits, and only paid plans transcribe', () => {
    for (const id of PLAN_IDS) expect(PLANS[id].batchSize).toBeGreaterThan(0);
    expect(PLAN_IDS.filter((id) => PLANS[id].paid)).toEqual(['starter', 'pro', 'scale']);
  });
});

describe('the Unicode range tables (core/unicode.ts)', () => {
  const tables: [string, Ranges][] = [
    ['CLEAN_RANGES', CLEAN_RANGES],
    ['SIMPLE_LAYOUT_RANGES', SIMPLE_LAYOUT_RANGES],
    ['ZERO_WIDTH_RANGES', ZERO_WIDTH_RANGES],
    ['WIDE_RANGES', WIDE_RANGES],
  ];

  it.each(tables)('%s is ascending and without overlaps (inRanges stops early on that)', (_name, ranges) => {
    for (let i = 0; i < ranges.length; i++) {
      const [from, to] = ranges[i]!;
      expect(from).toBeLessThanOrEqual(to);
      if (i > 0) expect(from).toBeGreaterThan(ranges[i - 1]![1]);
    }
  });

  it('inRanges and the pattern made from a table agree, at every edge', () => {
    const only = onlyRangesPattern(SIMPLE_LAYOUT_RANGES);
    for (const [from, to] of SIMPLE_LAYOUT_RANGES) {
      for (const cp of [from - 1, from, to, to + 1]) {
        expect({ cp, agree: only.test(String.fromCharCode(cp)) === inRanges(cp, SIMPLE_LAYOUT_RANGES) }).toEqual({ cp, agree: true });
      }
    }
    expect(inRanges(0x4e2d, WIDE_RANGES)).toBe(true); // 中
    expect(inRanges(0x200d, ZERO_WIDTH_RANGES)).toBe(true); // zero-width joiner
    expect(inRanges(0x41, WIDE_RANGES)).toBe(false);
  });
});

describe('a wait that ends at its time or when its signal aborts (core/waiting.ts)', () => {
  it('ends at its time when nothing aborts it', async () => {
    const started = Date.now();
    const limit = timeoutOrAbort(50, new AbortController().signal);
    await limit.ended;
    limit.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('ends at the abort, and at once when the signal has already aborted', async () => {
    const stopping = new AbortController();
    const limit = timeoutOrAbort(60_000, stopping.signal);
    const ended = limit.ended.then(() => 'ended');
    stopping.abort();
    await expect(Promise.race([ended, new Promise((r) => setTimeout(() => r('still waiting'), 1_000))])).resolves.toBe('ended');
    limit.stop();
    const late = timeoutOrAbort(60_000, stopping.signal);
    await expect(
      Promise.race([late.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still waiting'), 1_000))]),
    ).resolves.toBe('ended');
    late.stop();
  });

  it('leaves no listener on the signal once stopped: a loop of waits on one signal does not pile them up', () => {
    const call = new AbortController();
    for (let step = 0; step < 20; step++) timeoutOrAbort(60_000, call.signal).stop();
    expect(getEventListeners(call.signal, 'abort')).toHaveLength(0);
  });
});
