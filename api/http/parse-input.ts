import type { ZodType } from 'zod';
import { zodToServiceError } from './envelope';
import { assertStorableText } from './storable-text';

/**
 * The one validation of request input, for the REST routes (params, query,
 * body), the agent tool server's tool arguments and the dashboard's forms:
 * text PostgreSQL cannot store (or nesting past the limit) first, then the
 * zod schema; a failure is 422 INVALID_REQUEST naming the field (`where`
 * prefixes it: `body` fields stand alone, `items[0].source.url`).
 */
export function parseInput<T>(schema: ZodType<T>, value: unknown, where: string): T {
  assertStorableText(value, where);
  const result = schema.safeParse(value);
  if (!result.success) throw zodToServiceError(result.error, where);
  return result.data;
}
