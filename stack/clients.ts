// The official clients' generated code, from the OpenAPI document the service serves at /openapi.json:
//   clients/openapi.json                          the document (servers left out: a client is given its base URL)
//   clients/typescript/src/schema.ts              openapi-typescript's types (calls typed through openapi-fetch)
//   clients/python/transcript_client/models.py    datamodel-code-generator's TypedDicts (no runtime dependency)
//
//   tsx stack/clients.ts generate [--document file.json]   write them (default: the document built in-process)
//   tsx stack/clients.ts check --document file.json        exit 1, naming the files, when the committed ones differ
//
// test/clients.test.ts runs `check` on the document the live API serves, so CI fails when a schema
// changed and the clients were not regenerated.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import * as prettier from 'prettier';
import { buildOpenApiDocument } from '../api/openapi';

const ROOT = path.resolve(__dirname, '..');
const DATAMODEL_CODEGEN = path.join(ROOT, '.tools/venv-test/bin/datamodel-codegen');

export const GENERATED = {
  document: 'clients/openapi.json',
  typescript: 'clients/typescript/src/schema.ts',
  python: 'clients/python/transcript_client/models.py',
} as const;

/** The document as the clients see it: the served one without `servers`, which names the host it was served from. */
export function clientDocument(served: Record<string, unknown>): Record<string, unknown> {
  const { servers: _servers, ...rest } = served;
  return rest;
}

async function formatted(file: string, text: string): Promise<string> {
  const options = (await prettier.resolveConfig(path.join(ROOT, file))) ?? {};
  return prettier.format(text, { ...options, filepath: path.join(ROOT, file) });
}

/** Every generated file's text, by its path in the repository. */
export async function generateClientSources(served: Record<string, unknown>): Promise<Record<string, string>> {
  const doc = clientDocument(served);
  const documentText = await formatted(GENERATED.document, JSON.stringify(doc));
  const types = astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0], { alphabetize: false }));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clients-'));
  try {
    const input = path.join(tmp, 'openapi.json');
    const output = path.join(tmp, 'models.py');
    fs.writeFileSync(input, JSON.stringify(doc));
    execFileSync(
      DATAMODEL_CODEGEN,
      [
        ...['--input', input, '--input-file-type', 'openapi', '--output', output],
        ...['--output-model-type', 'typing.TypedDict', '--target-python-version', '3.10'],
        ...[
          '--use-standard-collections',
          '--use-union-operator',
          '--disable-timestamp',
          '--formatters',
          'builtin',
          '--parent-scoped-naming',
        ],
        ...['--custom-file-header', '# Generated from clients/openapi.json by stack/clients.ts (datamodel-code-generator): do not edit.'],
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return {
      [GENERATED.document]: documentText,
      [GENERATED.typescript]: await formatted(
        GENERATED.typescript,
        `${COMMENT_HEADER}// Generated from clients/openapi.json by stack/clients.ts: do not edit.\n\n${types}`,
      ),
      [GENERATED.python]: fs.readFileSync(output, 'utf8'),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The paths whose committed text differs from what the document generates. */
export function differing(generated: Record<string, string>): string[] {
  return Object.entries(generated)
    .filter(([file, text]) => !fs.existsSync(path.join(ROOT, file)) || fs.readFileSync(path.join(ROOT, file), 'utf8') !== text)
    .map(([file]) => file);
}

async function main(argv: string[]) {
  const [command] = argv;
  const at = argv.indexOf('--document');
  const served = at >= 0 ? JSON.parse(fs.readFileSync(argv[at + 1]!, 'utf8')) : buildOpenApiDocument(undefined, '/');
  const generated = await generateClientSources(served);
  if (command === 'generate') {
    for (const [file, text] of Object.entries(generated)) fs.writeFileSync(path.join(ROOT, file), text);
    console.log(`[clients] wrote ${Object.keys(generated).join(', ')}`);
  } else if (command === 'check') {
    const stale = differing(generated);
    if (stale.length > 0) {
      console.error(`[clients] out of date with the served document: ${stale.join(', ')}. Run: npm run clients:generate`);
      process.exit(1);
    }
    console.log('[clients] generated code matches the served document');
  } else {
    console.error('usage: tsx stack/clients.ts generate|check [--document file.json]');
    process.exit(2);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
