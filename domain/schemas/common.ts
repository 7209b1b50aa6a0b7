import { ERROR_CODES, type ErrorCode } from '../../core/errors';
import { z } from './zod';

export const Uuid = z.uuid({ message: 'must be a UUID' }).openapi({ format: 'uuid' });
export const DateTime = z.string().openapi({ format: 'date-time', description: 'UTC ISO 8601' });
export const IdParams = z.strictObject({ id: Uuid });

/**
 * An integer in a query string, read as `schema`: plain decimal digits, given once. `0x20`, ` 42`, `+42`, `042` and
 * `1e0` are refused (a number has one spelling, the one a cache or a signature sees), and so is a parameter given
 * twice (`?limit=1&limit=2`), naming it, where coercion read those as numbers or said "received NaN".
 */
export const queryInteger = <T extends z.ZodType<number>>(schema: T) =>
  z.preprocess((value, ctx) => {
    if (value === undefined || typeof value === 'number') return value;
    if (Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'is given more than once' });
      return z.NEVER;
    }
    if (typeof value === 'string' && /^(0|[1-9][0-9]{0,15})$/.test(value)) return Number(value);
    ctx.addIssue({ code: 'custom', message: 'must be a whole number in plain decimal digits (no sign, leading zero or exponent)' });
    return z.NEVER;
  }, schema);

export const ErrorObjectSchema = z
  .object({
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    retryable: z.boolean(),
    retry_after_seconds: z.number().int().optional(),
    details: z.object({ detail: z.string() }).optional(),
  })
  .openapi('ErrorObject');
