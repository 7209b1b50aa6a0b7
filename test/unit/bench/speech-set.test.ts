import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// bench/sets/speech (issue 50): the real speech committed for the accuracy evaluation. Every file is the one its
// manifest row names (a changed or swapped recording would change every figure measured on it), carries its
// source, licence and attribution, has its reference beside it, and the set stays under 10 MB.

const DIR = path.join(__dirname, '../../../bench/sets/speech');
const COLUMNS = ['lang', 'file', 'repo', 'path', 'commit', 'licence', 'attribution', 'source_sha256', 'sha256', 'duration_s', 'conversion'];

function manifest(): Record<string, string>[] {
  const [head, ...lines] = fs.readFileSync(path.join(DIR, 'MANIFEST.tsv'), 'utf8').trimEnd().split('\n');
  const cols = head!.split('\t');
  expect(cols).toEqual(COLUMNS);
  return lines.map((line) => Object.fromEntries(line.split('\t').map((v, i) => [cols[i]!, v])));
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('the committed speech set', () => {
  const rows = manifest();

  it.each(rows.map((r) => [r.file!, r] as const))('%s is the file its manifest row names', (_file, row) => {
    const audio = path.join(DIR, row.file!);
    expect(sha256(audio)).toBe(row.sha256);
    expect(row.source_sha256).toMatch(/^[0-9a-f]{64}$/);
    if (row.conversion!.startsWith('none')) expect(row.sha256).toBe(row.source_sha256);
    expect(row.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(row.repo).toMatch(/^[\w.-]+\/[\w.-]+$/);
    expect(row.licence!.length).toBeGreaterThan(3);
    expect(row.attribution!.length).toBeGreaterThan(3);
    expect(Number(row.duration_s)).toBeGreaterThan(1);
    expect(row.file!.startsWith(`${row.lang}/`)).toBe(true);
    expect(fs.readFileSync(audio.replace(/\.[^./]+$/, '.txt'), 'utf8').trim().length).toBeGreaterThan(0);
  });

  it('holds nothing the manifest does not name, and stays under 10 MB', () => {
    const named = new Set(rows.flatMap((r) => [r.file!, r.file!.replace(/\.[^./]+$/, '.txt')]));
    const files = fs
      .readdirSync(DIR, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => path.relative(DIR, path.join(d.parentPath, d.name)));
    expect(files.filter((f) => !named.has(f) && !['MANIFEST.tsv', 'README.md'].includes(f))).toEqual([]);
    const bytes = files.reduce((sum, f) => sum + fs.statSync(path.join(DIR, f)).size, 0);
    expect(bytes).toBeLessThan(10 * 1024 * 1024);
  });
});
