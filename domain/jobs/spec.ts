import type { Prisma } from '../../prisma/generated/client';
import { ServiceError } from '../../core/errors';
import { JOB_SPEC_DEFAULTS, JobSpecSchema, type JobSpec } from '../schemas/jobs';

/**
 * A stored job's spec (jobs.spec), checked as it is read. A field added since the row was written takes its
 * default (what the request that left it out asked for), so a new option needs no migration; a value this
 * version cannot read is an internal error here, not a wrong transcript later.
 */
export function specOfJob(job: { id: string; spec: Prisma.JsonValue }): JobSpec {
  const stored = job.spec !== null && typeof job.spec === 'object' && !Array.isArray(job.spec) ? job.spec : null;
  const parsed = JobSpecSchema.safeParse(stored && { ...JOB_SPEC_DEFAULTS, ...stored });
  if (!parsed.success) throw new ServiceError('INTERNAL_ERROR', 'spec', { message: `Job ${job.id} has a spec this version cannot read.` });
  return parsed.data;
}
