import { ERROR_CODES, type ErrorCode } from '../../core/errors';
import { z } from './zod';

export const Uuid = z.uuid({ message: 'must be a UUID' }).openapi({ format: 'uuid' });
export const DateTime = z.string().openapi({ format: 'date-time', description: 'UTC ISO 8601' });
export const IdParams = z.strictObject({ id: Uuid });

export const ErrorObjectSchema = z
  .object({
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    retryable: z.boolean(),
    retry_after_seconds: z.number().int().optional(),
    details: z.object({ detail: z.string() }).optional(),
  })
  .openapi('ErrorObject');
