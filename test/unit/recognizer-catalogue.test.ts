import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '../../core/errors';
import { RECOGNIZER_CODES, recognizerCatalogue } from '../../stack/recognizer-catalogue';

// The Python recognizer's error codes are generated from core/errors.ts (stack/recognizer-catalogue.ts), never copied.
describe("the recognizer's error catalogue", () => {
  it('is the committed file, generated from core/errors.ts', () => {
    expect(fs.readFileSync(path.join(__dirname, '../../recognizer/catalogue.py'), 'utf8')).toBe(recognizerCatalogue());
  });

  it("carries each code's retryability and message as the catalogue states them", () => {
    const text = recognizerCatalogue();
    for (const code of RECOGNIZER_CODES) {
      const { retryable, message } = ERROR_CATALOGUE[code];
      expect(text).toContain(`"${code}": CatalogueEntry(retryable=${retryable ? 'True' : 'False'}, message=${JSON.stringify(message)})`);
    }
  });

  it('lists every code the recognizer raises', () => {
    const raised = new Set<string>();
    for (const file of fs.readdirSync(path.join(__dirname, '../../recognizer')).filter((f) => f.endsWith('.py'))) {
      const source = fs.readFileSync(path.join(__dirname, '../../recognizer', file), 'utf8');
      for (const m of source.matchAll(/ServiceError\("([A-Z_]+)"/g)) raised.add(m[1]!);
    }
    expect(raised.size).toBeGreaterThan(3);
    for (const code of raised) expect(RECOGNIZER_CODES).toContain(code);
  });
});
