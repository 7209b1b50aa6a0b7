// Tool schemas every MCP client can read. zod writes a nullable value as
// `type: [X, "null"]` and a value it does not constrain (z.unknown(), the extra
// properties of a loose object) as `{}`. Both are legal JSON Schema, but a
// client that maps tool schemas onto a single-`type` dialect (the OpenAPI
// subset of Gemini's function declarations) rejects the first or drops the
// constraint, and `{}` declares nothing (the MCP Inspector's `--strict`
// portability check flags both). Here the same contract is spelled portably:
// `anyOf` branches of one type each, `true` where extra properties are allowed,
// an explicit "any of the JSON types" where a value may be anything, and
// `{"not": {}}` for a bare `false` (what zod writes after a tuple's items).

type Schema = Record<string, unknown>;

/** Keywords that describe a value without constraining it: they stay beside an `anyOf` made of a type array. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
/** Keywords whose value is one subschema. */
const ONE = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
/** Keywords whose value is a list of subschemas. */
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Where a bare `true` is the schema (anything else is allowed). */
const BOOLEAN_POSITIONS = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const JSON_TYPES = ['string', 'number', 'boolean', 'object', 'array', 'null'];

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when the schema asserts something about a value (the Inspector's list of constraining keywords, in short). */
function constrains(s: Schema): boolean {
  return (
    Object.keys(s).some((k) => !ANNOTATIONS.has(k) && k !== 'if' && k !== 'then' && k !== 'else') ||
    ('if' in s && ('then' in s || 'else' in s))
  );
}

/** The schema, spelled portably (a new object; the input is left as it is). */
export function portableJsonSchema(schema: Schema): Schema {
  return rewrite(schema, undefined) as Schema;
}

function rewrite(node: unknown, keyword: string | undefined): unknown {
  // A bare `false` (a tuple's "no more items") in its object form, except where a boolean is the keyword's value.
  if (node === false && !(keyword && BOOLEAN_POSITIONS.has(keyword))) return { not: {} };
  if (!isSchema(node)) return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    if (ONE.includes(k)) out[k] = rewrite(v, k);
    else if (LIST.includes(k) && Array.isArray(v)) out[k] = v.map((x) => rewrite(x, k));
    else if (MAP.includes(k) && isSchema(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, x]) => [name, rewrite(x, k)]));
    else out[k] = v;
  }
  if (Array.isArray(out.type)) return typeUnionAsAnyOf(out, out.type as string[]);
  // `not: {}` is the object form of `false`: left as it is.
  if (!constrains(out) && keyword !== 'not') {
    const annotated = Object.keys(out).length > 0;
    if (!annotated && keyword && BOOLEAN_POSITIONS.has(keyword)) return true;
    return { ...out, anyOf: JSON_TYPES.map((type) => ({ type })) };
  }
  return out;
}

/** `{type: [X, "null"], …}` → `{anyOf: [{type: X, …}, {type: "null"}]}`, annotations kept outside the branches. */
function typeUnionAsAnyOf(node: Schema, types: string[]): Schema {
  const annotations: Schema = {};
  const rules: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') continue;
    if (ANNOTATIONS.has(k)) annotations[k] = v;
    else rules[k] = v;
  }
  const branch = (type: string): Schema => {
    if (type === 'null') return { type };
    const own: Schema = { type, ...rules };
    // An enum or const that admits null admits it in the null branch.
    if (Array.isArray(own.enum)) own.enum = own.enum.filter((v) => v !== null);
    return own;
  };
  return { ...annotations, anyOf: types.map(branch) };
}
