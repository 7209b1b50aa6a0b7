/**
 * Batch status from its child counts (written into the OpenAPI document):
 * - not every item final: `processing` once any item has left `queued`, else `queued`;
 * - every item final: `succeeded` when all succeeded, `cancelled` when all were
 *   cancelled, `failed` when none succeeded (at least one failed), otherwise
 *   `partial_success`.
 */
export function batchStatus(statuses: string[]): 'queued' | 'processing' | 'succeeded' | 'partial_success' | 'failed' | 'cancelled' {
  const count = (s: string) => statuses.filter((x) => x === s).length;
  const succeeded = count('succeeded');
  const failed = count('failed');
  const cancelled = count('cancelled');
  const total = statuses.length;
  if (succeeded + failed + cancelled < total) return statuses.every((s) => s === 'queued') ? 'queued' : 'processing';
  if (succeeded === total) return 'succeeded';
  if (cancelled === total) return 'cancelled';
  if (succeeded === 0) return 'failed';
  return 'partial_success';
}
