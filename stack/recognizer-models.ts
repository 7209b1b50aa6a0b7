// The Python recognizer's model of a job's spec (recognizer/job_spec.py), generated from the one schema
// (domain/schemas/jobs.ts JobSpecSchema) by way of its JSON Schema, with datamodel-code-generator (the generator
// of clients/python) writing a dataclass: no runtime dependency in the worker, and mypy --strict reads it.
//   tsx stack/recognizer-models.ts generate   write recognizer/job_spec.py
//   tsx stack/recognizer-models.ts check      exit 1 when the committed file differs (stack/check.sh)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from '../domain/schemas/zod';
import { JOB_SPEC_DEFAULTS, JobSpecSchema } from '../domain/schemas/jobs';

const ROOT = path.resolve(__dirname, '..');
const DATAMODEL_CODEGEN = path.join(ROOT, '.tools/venv-test/bin/datamodel-codegen');
export const JOB_SPEC_MODULE = path.join(ROOT, 'recognizer', 'job_spec.py');

const HEADER = [
  '"""A job\'s spec as the recognizer reads it: generated from domain/schemas/jobs.ts JobSpecSchema.',
  '',
  "Written by `tsx stack/recognizer-models.ts generate` (datamodel-code-generator, from the schema's JSON Schema);",
  'stack/check.sh and test/unit/recognizer-models.test.ts fail when it differs. Do not edit.',
  '"""',
].join('\n');

/** The JSON Schema the model is generated from. */
export function jobSpecJsonSchema(): object {
  const schema = z.toJSONSchema(JobSpecSchema) as { properties: Record<string, Record<string, unknown>>; required: string[] };
  // Each field but the mode with its default, and so not required: a plan without a field (written by a service of
  // before the field) reads as the request that left it out.
  for (const [field, value] of Object.entries(JOB_SPEC_DEFAULTS)) schema.properties[field]!.default = value;
  schema.required = schema.required.filter((field) => !(field in JOB_SPEC_DEFAULTS));
  return schema;
}

export function recognizerModels(): string {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recognizer-models-'));
  try {
    const input = path.join(tmp, 'job_spec.json');
    const output = path.join(tmp, 'job_spec.py');
    fs.writeFileSync(input, JSON.stringify(jobSpecJsonSchema()));
    execFileSync(
      DATAMODEL_CODEGEN,
      [
        ...['--input', input, '--input-file-type', 'jsonschema', '--output', output, '--class-name', 'JobSpec'],
        ...['--output-model-type', 'dataclasses.dataclass', '--target-python-version', '3.10'],
        ...[
          '--use-standard-collections',
          '--use-union-operator',
          '--disable-timestamp',
          '--enum-field-as-literal',
          'all',
          '--strict-nullable',
        ],
        ...['--formatters', 'builtin', '--custom-file-header', HEADER],
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    // datamodel-code-generator quotes with '…'; the recognizer's ruff format writes "…".
    return fs.readFileSync(output, 'utf8').replace(/'([a-z_]+)'/g, '"$1"');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const command = process.argv[2];
  const text = recognizerModels();
  if (command === 'generate') {
    fs.writeFileSync(JOB_SPEC_MODULE, text);
    console.log('[models] wrote recognizer/job_spec.py');
  } else if (command === 'check') {
    if (!fs.existsSync(JOB_SPEC_MODULE) || fs.readFileSync(JOB_SPEC_MODULE, 'utf8') !== text) {
      console.error('[models] recognizer/job_spec.py differs from JobSpecSchema. Run: tsx stack/recognizer-models.ts generate');
      process.exit(1);
    }
  } else {
    console.error('usage: tsx stack/recognizer-models.ts generate|check');
    process.exit(2);
  }
}
