import fs from 'node:fs';
import path from 'node:path';

// Issue 51, item 6: README.md is what a newcomer reads first, so it stays short (the two commands, what it is, the
// quickstart, where code lives, links); everything else lives in the documentation site built from docs/.

const ROOT = path.join(__dirname, '../../..');
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

it('is under 15 KB and starts with the two commands', () => {
  expect(Buffer.byteLength(readme)).toBeLessThan(15 * 1024);
  const blocks = [...readme.matchAll(/```sh\n([^`]+)```/g)].map((m) => m[1]!.trim());
  expect(blocks.slice(0, 2)).toEqual(['npm run dev', 'npm test']);
});

it('links only to pages that exist', () => {
  const links = [...readme.matchAll(/\]\((docs\/[^)#]+)\)/g)].map((m) => m[1]!);
  expect(links.length).toBeGreaterThanOrEqual(10);
  for (const link of links) expect({ link, exists: fs.existsSync(path.join(ROOT, link)) }).toEqual({ link, exists: true });
});
