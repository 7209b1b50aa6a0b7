import { z } from 'zod';
import { portableJsonSchema } from '../../../api/mcp/portable-schema';
import { convertedOnce, JobOut, TranscriptOut } from '../../../api/mcp/tools/kit';

// Issue 26, item 4: the tool schemas spelled so that every MCP client reads them (no `type` arrays, no
// schema that declares nothing), with the same contract. The MCP Inspector's --strict check over the live
// tool server is in test/mcp-inspector.test.ts.

/** Every node of a JSON Schema, depth first. */
function nodes(s: unknown, out: unknown[] = []): unknown[] {
  if (typeof s !== 'object' || s === null) return out;
  out.push(s);
  for (const v of Object.values(s)) {
    if (Array.isArray(v)) v.forEach((x) => nodes(x, out));
    else nodes(v, out);
  }
  return out;
}

test('a nullable value becomes anyOf branches of one type each, with its description outside and its rules inside', () => {
  const s = portableJsonSchema({
    type: 'object',
    properties: { stage: { type: ['string', 'null'], description: 'The stage.', enum: ['a', 'b', null], maxLength: 5 } },
  });
  expect(s).toEqual({
    type: 'object',
    properties: {
      stage: { description: 'The stage.', anyOf: [{ type: 'string', enum: ['a', 'b'], maxLength: 5 }, { type: 'null' }] },
    },
  });
});

test('extra properties allowed are `true`; a value that may be anything lists the JSON types; a constrained schema is kept', () => {
  expect(portableJsonSchema({ type: 'object', additionalProperties: {} })).toEqual({ type: 'object', additionalProperties: true });
  const anything = portableJsonSchema({ type: 'object', properties: { details: { description: 'Free form.' } } }).properties as Record<
    string,
    { anyOf: { type: string }[] }
  >;
  expect(anything.details!.anyOf.map((b) => b.type)).toEqual(['string', 'number', 'boolean', 'object', 'array', 'null']);
  // A tuple's "no more items" in its object form; `false` where a boolean is the keyword's value stays.
  expect(portableJsonSchema({ type: 'array', prefixItems: [{ type: 'number' }], items: false })).toEqual({
    type: 'array',
    prefixItems: [{ type: 'number' }],
    items: { not: {} },
  });
  expect(portableJsonSchema({ type: 'object', additionalProperties: false })).toEqual({ type: 'object', additionalProperties: false });
  const kept = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'], additionalProperties: false };
  expect(portableJsonSchema(kept)).toEqual(kept);
});

test("the tools' own schemas have no type array and no node that declares nothing, and still validate the same", () => {
  for (const schema of [
    JobOut,
    TranscriptOut,
    z.object({ a: z.string().nullable(), b: z.unknown(), c: z.looseObject({ x: z.number() }) }),
  ]) {
    const std = convertedOnce(schema)['~standard'];
    const json = std.jsonSchema.output({ target: 'draft-2020-12' });
    for (const n of nodes(json) as Record<string, unknown>[]) {
      expect(Array.isArray(n.type)).toBe(false);
    }
  }
  const std = convertedOnce(z.object({ a: z.string().nullable() }))['~standard'];
  expect(std.validate({ a: null })).toEqual({ value: { a: null } });
  expect('issues' in (std.validate({ a: 1 }) as object)).toBe(true);
});
