import { ApplicationFailure } from '@temporalio/common';
import { toTemporalFailure } from '../../../activities/failures';
import { byteRangeOf } from '../../../api/http/media-range';
import { ServiceError } from '../../../core/errors';
import { withoutMachinePaths } from '../../../core/machine-paths';
import { DeliveryQuery } from '../../../domain/schemas/resources';
import { ExportQuery } from '../../../domain/schemas/resources';
import { JobListQuery, WaitQuery } from '../../../domain/schemas/jobs';
import { QuoteQuery } from '../../../domain/schemas/billing';
import os from 'node:os';

// Issue 49, the rules found by probing from outside, each without a server: ranges read to the letter of
// RFC 9110, integers in query strings spelled one way, and no path of the machine in an error a caller sees.

describe('byte ranges (item 6)', () => {
  const size = 1000;
  it.each([
    ['no header', undefined, { kind: 'whole' }],
    ['one range', 'bytes=0-99', { kind: 'part', start: 0, end: 99 }],
    ['an open range', 'bytes=900-', { kind: 'part', start: 900, end: 999 }],
    ['a last byte past the end', 'bytes=900-5000', { kind: 'part', start: 900, end: 999 }],
    ['a suffix', 'bytes=-100', { kind: 'part', start: 900, end: 999 }],
    ['a suffix longer than the media: all of it', 'bytes=-99999999', { kind: 'part', start: 0, end: 999 }],
    ['ranges that overlap: one', 'bytes=0-9,5-19', { kind: 'part', start: 0, end: 19 }],
    ['ranges that touch: one', 'bytes=0-9,10-19', { kind: 'part', start: 0, end: 19 }],
    ['separate ranges: the whole file', 'bytes=0-9,100-109', { kind: 'whole' }],
    ['one satisfiable among unsatisfiable', 'bytes=5000-6000,10-19', { kind: 'part', start: 10, end: 19 }],
    ['a first byte past the end', 'bytes=1000-', { kind: 'unsatisfiable' }],
    ['a suffix of 0', 'bytes=-0', { kind: 'unsatisfiable' }],
    ['another unit: ignored', 'items=0-5', { kind: 'whole' }],
    ['a last byte before the first: ignored', 'bytes=9-5', { kind: 'whole' }],
    ['not a range: ignored', 'bytes=abc', { kind: 'whole' }],
    ['a sign: ignored', 'bytes=+1-5', { kind: 'whole' }],
    ['case and spaces of the unit', 'Bytes = 0-0', { kind: 'part', start: 0, end: 0 }],
  ])('%s', (_name, header, answer) => {
    expect(byteRangeOf(header, size)).toEqual(answer);
  });

  it('empty media satisfies no range', () => {
    expect(byteRangeOf('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(byteRangeOf('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(byteRangeOf(undefined, 0)).toEqual({ kind: 'whole' });
  });
});

describe('integers in query strings are plain decimal digits, given once (item 7)', () => {
  it.each(['0x20', ' 42', '+42', '042', '1e0', '42.0', '', '4 2', '-1'])('%j is refused, naming the parameter', (value) => {
    const r = ExportQuery.safeParse({ format: 'srt', max_line_length: value });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['max_line_length']);
  });

  it('a repeated parameter is refused as such, not as "received NaN"', () => {
    const r = ExportQuery.safeParse({ format: 'srt', max_lines: ['1', '2'] });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ['max_lines'], message: 'is given more than once' });
  });

  it('plain digits are read, defaults still apply, bounds still hold', () => {
    expect(ExportQuery.parse({ format: 'srt', max_line_length: '32', max_lines: '1' })).toEqual({
      format: 'srt',
      max_line_length: 32,
      max_lines: 1,
    });
    expect(JobListQuery.parse({})).toMatchObject({ limit: 20 });
    expect(JobListQuery.parse({ limit: '100' })).toMatchObject({ limit: 100 });
    expect(JobListQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(WaitQuery.parse({ wait: '0' })).toEqual({ wait: 0 });
    expect(WaitQuery.safeParse({ wait: '05' }).success).toBe(false);
    expect(DeliveryQuery.safeParse({ limit: '0x10' }).success).toBe(false);
    expect(QuoteQuery.safeParse({ units: '1e3' }).success).toBe(false);
  });
});

describe('no path of the machine in an error a caller sees (item 3)', () => {
  const scratch = `${os.tmpdir()}/transcript-scratch/worker-123/media`;

  it('a path under the temporary folder, the working folder or home is <file>', () => {
    expect(withoutMachinePaths(`${scratch}: Invalid data found when processing input`)).toBe(
      '<file>: Invalid data found when processing input',
    );
    expect(withoutMachinePaths(`open '${process.cwd()}/recognizer/x.py'`)).toBe("open '<file>'");
    expect(withoutMachinePaths('no route /v1/nothing')).toBe('no route /v1/nothing');
    expect(withoutMachinePaths(`${os.tmpdir()}ish`)).toBe(`${os.tmpdir()}ish`);
  });

  it("an activity's failure carries no path in its message or detail", () => {
    const failure = toTemporalFailure(
      new ServiceError('UNSUPPORTED_MEDIA', `not an audio or video file type: ${scratch}: Invalid data`),
      1,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(JSON.stringify((failure as ApplicationFailure).details)).not.toContain('transcript-scratch');
    expect((failure as ApplicationFailure).details).toEqual(['not an audio or video file type: <file>: Invalid data']);
  });
});
