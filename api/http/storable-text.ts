import { ServiceError } from '../../core/errors';

// PostgreSQL cannot store U+0000 in text or jsonb, and an unpaired UTF-16
// surrogate cannot be encoded as UTF-8 at all. Either one reaching the
// database fails the statement, which used to surface as a retryable 500 that
// no retry could ever fix. One rule at the edge refuses them in every string
// and every object key of every request part, before any schema runs.

export const UNSTORABLE_TEXT_RULE =
  'Every string (and every object key) must be well-formed Unicode without U+0000: a NUL character or an unpaired UTF-16 surrogate answers 422 INVALID_REQUEST naming the field.';

/**
 * How deeply a JSON body may nest arrays and objects. No request of the API
 * nests deeper than 5; the limit is checked on the raw bytes before the body
 * is parsed (api/http/json-body.ts), so nothing downstream (this walk, zod,
 * the MCP SDK) ever recurses over a hostile body. Values that did not come
 * from a JSON body (query strings, forms) are flat.
 */
export const JSON_DEPTH_LIMIT = 64;

function unstorable(s: string): boolean {
  return s.includes('\u0000') || !(s as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The dotted path of the first string or key PostgreSQL could not store, or
 * null. Iterative (an explicit stack, depth-first in document order), so a
 * deep value costs memory, never the call stack; values nested deeper than
 * JSON_DEPTH_LIMIT are refused by the caller before they get here, and are
 * reported here as the path where the limit was passed.
 */
export function findUnstorableText(value: unknown): { path: string; reason: 'text' | 'depth' } | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (unstorable(v)) return { path, reason: 'text' };
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth >= JSON_DEPTH_LIMIT) return { path, reason: 'depth' };
    const children: { value: unknown; path: string; depth: number }[] = [];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) children.push({ value: v[i], path: `${path}[${i}]`, depth: depth + 1 });
    } else {
      for (const [key, child] of Object.entries(v)) {
        // A bad key cannot be named by itself: point at the object holding it.
        if (unstorable(key)) return { path: path === '' ? '(key)' : `${path} (key)`, reason: 'text' };
        children.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
      }
    }
    // Reversed onto the stack, so the first child is looked at first.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return null;
}

/** Throws 422 INVALID_REQUEST naming the field when `value` holds text PostgreSQL cannot store (or nests past the limit). */
export function assertStorableText(value: unknown, where: string): void {
  const hit = findUnstorableText(value);
  if (hit === null) return;
  if (hit.reason === 'depth') throw tooDeep();
  const field = hit.path === '' ? where : hit.path;
  throw new ServiceError('INVALID_REQUEST', field, {
    message: `${field}: text must not contain NUL (U+0000) or unpaired UTF-16 surrogates.`,
  });
}

export function tooDeep(): ServiceError {
  return new ServiceError('INVALID_REQUEST', `json_depth_limit=${JSON_DEPTH_LIMIT}`, {
    message: `The body nests arrays and objects deeper than ${JSON_DEPTH_LIMIT} levels.`,
  });
}

/**
 * The deepest nesting of arrays and objects in JSON text, counted on the raw
 * bytes in one pass (brackets inside strings skipped), stopping as soon as it
 * passes `limit`. Malformed text is left for the parser to refuse.
 */
export function jsonNestingExceeds(text: Buffer | string, limit = JSON_DEPTH_LIMIT): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
