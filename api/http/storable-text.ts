import { ServiceError } from '../../domain/errors';

// PostgreSQL cannot store U+0000 in text or jsonb, and an unpaired UTF-16
// surrogate cannot be encoded as UTF-8 at all. Either one reaching the
// database fails the statement, which used to surface as a retryable 500 that
// no retry could ever fix. One rule at the edge refuses them in every string
// and every object key of every request part, before any schema runs.

export const UNSTORABLE_TEXT_RULE =
  'Every string (and every object key) must be well-formed Unicode without U+0000: a NUL character or an unpaired UTF-16 surrogate answers 422 INVALID_REQUEST naming the field.';

function unstorable(s: string): boolean {
  return s.includes('\u0000') || !(s as string & { isWellFormed(): boolean }).isWellFormed();
}

/** The dotted path of the first string or key PostgreSQL could not store, or null. */
export function findUnstorableText(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return unstorable(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorableText(value[i], `${path}[${i}]`);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      // A bad key cannot be named by itself: point at the object holding it.
      if (unstorable(key)) return path === '' ? '(key)' : `${path} (key)`;
      const hit = findUnstorableText(child, path ? `${path}.${key}` : key);
      if (hit !== null) return hit;
    }
  }
  return null;
}

/** Throws 422 INVALID_REQUEST naming the field when `value` holds text PostgreSQL cannot store. */
export function assertStorableText(value: unknown, where: string): void {
  const hit = findUnstorableText(value);
  if (hit === null) return;
  const field = hit === '' ? where : hit;
  throw new ServiceError('INVALID_REQUEST', field, {
    message: `${field}: text must not contain NUL (U+0000) or unpaired UTF-16 surrogates.`,
  });
}
