import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { jobSpecOf, type JobRequest, type JobSpec, type PLATFORMS } from '../schemas/jobs';
import type { Principal } from '../accounts/principal';
import { rowByColumn, type Db, type Tx } from '../db';
import { startEventDelivery, startJobWorkflow } from '../workflow-starts';
import { CATCH_UP_WAIT_MS, type StartDispatcher } from '../start-dispatcher';
import { recordJobEvent } from '../webhooks/events';
import { ServiceError } from '../../core/errors';
import { requestHash, type IdempotencyScope } from '../idempotency';
import { acceptHeldRow, acceptRow, acceptWork } from '../accept-work';
import { Prisma, type Job } from '../../prisma/generated/client';
import { CAPTION_CREDITS, PLANS, transcriptionCredits, wordTimedCaptionCredits } from '../../core/plans';
import { recognizeLink, type RecognizedLink } from '../../integrations/platforms/links';
import { workflowIds } from '../../workflows/definitions';
import { reuseKey } from './reuse';
import { resolveLanguage, type Recognizer } from '../../integrations/recognizers/types';
import { assertSafeUrl, type AddressPolicy } from '../../integrations/fetch';
import { toJobView, type JobView } from './view';
import { assertTranslationReachable, type TranslationSettings } from '../transcripts/translation';
import { kindsNotCovered, type RedactionCoverage } from '../transcripts/redaction';

export interface JobServiceDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  /** The recognizer AI transcription uses: a `language` it cannot do is refused at submit. */
  recognizer?: Recognizer;
  /** SSRF rules for direct links, checked at submit (and again by the worker on every hop). */
  addressPolicy?: AddressPolicy;
  photosocialEnabled: boolean;
  asrEnabled: boolean;
  /** Computed chapters need the sentence embedding model (EMBEDDING_MODEL_DIR): without it `chapters` is refused. */
  chaptersEnabled: boolean;
  /** Summaries need a language model (LLM_BASE_URL): without it `summarize` is refused. */
  summariesEnabled: boolean;
  /** What `redact_pii_types` may name, and in which languages (the personal-data model's coverage). */
  redaction: RedactionCoverage;
  /** What translates `translate_to` (domain/config.ts translationSettings). */
  translation: TranslationSettings;
  /** How long a cancel waits for the job's workflow to decide. */
  cancelWaitMs: number;
  /** Starts workflows after their accepting commits (domain/workflow-starts.ts StartDispatcher). */
  starts: StartDispatcher;
}

export interface SubmitResult {
  status: 200 | 202;
  job: JobView;
  /** The answer to a replay of the Idempotency-Key: nothing was created. */
  replay?: boolean;
}

interface ResolvedSource {
  platform: (typeof PLATFORMS)[number];
  mediaId: string;
  canonicalUrl: string | null;
  sourceUrl: string | null;
  uploadId: string | null;
  title: string | null;
}

/** Where `details.detail` points for a job field: plain for jobs, `items[i].field` in a batch. */
export type FieldPath = (field: string) => string;
const plainPath: FieldPath = (f) => f;

/** recognizeLink with its refusal naming the request field the link came from. */
export function recognizeLinkAt(url: string, field: string): RecognizedLink {
  try {
    return recognizeLink(url);
  } catch (err) {
    if (err instanceof ServiceError) throw new ServiceError(err.code, field, { message: err.message });
    throw err;
  }
}

/**
 * A job as the domain accepts it: the source asked for, its options as a spec (jobSpecOf), and what goes beside
 * them. A request becomes one (submissionOf); a retry makes one from the job it repeats, spec and all, verbatim.
 */
export interface JobSubmission {
  source: JobRequest['source'];
  spec: JobSpec;
  /** The `align_text` itself (kept in job_texts; the spec carries its length). */
  alignText: string | null;
  maxCredits: number | null;
  webhookEndpointId: string | null;
  metadata: Record<string, string>;
}

export function submissionOf(req: JobRequest): JobSubmission {
  return {
    source: req.source,
    spec: jobSpecOf(req),
    alignText: req.align_text ?? null,
    maxCredits: req.max_credits ?? null,
    webhookEndpointId: req.webhook_endpoint_id ?? null,
    metadata: req.metadata ?? {},
  };
}

/** Checks the source and mode against the rules of the job request table and the caller's plan. */
export async function resolveJobSource(
  db: Db | Tx,
  principal: Principal,
  job: Pick<JobSubmission, 'source' | 'spec'>,
  settings: {
    photosocialEnabled: boolean;
    asrEnabled: boolean;
    chaptersEnabled: boolean;
    summariesEnabled: boolean;
    redaction: RedactionCoverage;
    translation: TranslationSettings;
    recognizer?: Recognizer;
    addressPolicy?: AddressPolicy;
  },
  at: FieldPath = plainPath,
): Promise<ResolvedSource> {
  const { spec } = job;
  let source: ResolvedSource;
  if (job.source.upload_id) {
    const upload = await db.upload.findFirst({ where: { id: job.source.upload_id, workspaceId: principal.workspaceId } });
    if (!upload) throw new ServiceError('NOT_FOUND', at('source.upload_id'), { message: 'No upload with this id in this workspace.' });
    if (upload.status !== 'ready') {
      const why =
        upload.status === 'verifying'
          ? 'still being verified; wait until it is ready'
          : upload.status === 'pending'
            ? 'pending; complete it first'
            : `${upload.status}; reserve a new upload`;
      throw new ServiceError('INVALID_REQUEST', at('source.upload_id'), { message: `The upload is ${why}.` });
    }
    source = { platform: 'upload', mediaId: upload.id, canonicalUrl: null, sourceUrl: null, uploadId: upload.id, title: upload.filename };
  } else {
    const link = recognizeLinkAt(job.source.url!, at('source.url'));
    source = {
      platform: link.platform,
      mediaId: link.mediaId,
      canonicalUrl: link.canonicalUrl,
      sourceUrl: job.source.url!,
      uploadId: null,
      title: null,
    };
  }
  const live = source.platform === 'hls';
  const mediaOnly = source.platform === 'upload' || source.platform === 'direct' || live;
  if (source.platform === 'photosocial' && !settings.photosocialEnabled) {
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('source.url'), { message: 'photosocial sources are switched off.' });
  }
  if (mediaOnly && spec.mode !== 'transcribe') {
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('mode'), {
      message: live
        ? 'A live stream is transcribed as it airs: use mode transcribe.'
        : `Uploads and direct links have no captions; use mode transcribe.`,
    });
  }
  // A videosite video may turn out to be on air: its live stream is then followed up to max_duration_s.
  if (spec.max_duration_s !== null && !live && source.platform !== 'videosite')
    throw new ServiceError('INVALID_REQUEST', at('max_duration_s'), {
      message: 'max_duration_s applies to live streams only: a link to an HLS playlist (.m3u8), or a videosite video on air.',
    });
  if (live && spec.align_text_chars !== null)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('align_text'), {
      message: 'A live stream has no text to align yet: align_text needs an upload or a direct link.',
    });
  if (live && spec.redacted_audio)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('redacted_audio'), {
      message: 'A live stream is heard once and not kept: a redacted copy of the audio needs an upload or a direct link.',
    });
  if (spec.chapters && !settings.chaptersEnabled)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('chapters'), {
      message: 'Chapters are not available on this deployment (no sentence embedding model is installed).',
    });
  assertTranslationReachable(spec, settings.translation, at('translate_to'));
  if (spec.redacted_audio && !mediaOnly)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('redacted_audio'), {
      message:
        "A redacted copy of the audio is made for uploads and direct links only: the service keeps no copy of a video platform's media.",
    });
  if (spec.summarize && !settings.summariesEnabled)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('summarize'), {
      message: 'Summaries are not available on this deployment (no language model is configured).',
    });
  const redact = spec.redact_pii_types ?? [];
  const needModel = redact.filter((t) => !settings.redaction.types.includes(t));
  if (needModel.length > 0)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('redact_pii_types'), {
      message: `${needModel.join(', ')} need a personal-data model, which this deployment does not run: it redacts ${settings.redaction.types.join(', ')}.`,
    });
  const uncovered = spec.language ? kindsNotCovered(settings.redaction, redact, spec.language) : [];
  if (uncovered.length > 0)
    throw new ServiceError('CAPABILITY_UNAVAILABLE', at('redact_pii_types'), {
      message: `${uncovered.join(', ')} ${uncovered.length > 1 ? 'are' : 'is'} redacted in ${settings.redaction.languages[uncovered[0]!].join(', ')} only, not in ${spec.language}.`,
    });
  // Word timing runs the recognizer on the audio too: the same plan and availability rules, named by its field.
  const audioWork = spec.mode !== 'captions_only' ? 'mode' : spec.word_timing ? 'word_timing' : null;
  if (audioWork) {
    if (!PLANS[principal.plan].paid)
      throw new ServiceError('PLAN_REQUIRED', at(audioWork), {
        message: audioWork === 'mode' ? 'AI transcription needs a paid plan.' : 'Word timing needs a paid plan.',
      });
    if (!settings.asrEnabled)
      throw new ServiceError('CAPABILITY_UNAVAILABLE', at(audioWork), { message: 'AI transcription is not available right now.' });
    if (settings.recognizer && spec.language) {
      try {
        resolveLanguage(settings.recognizer, spec.language);
      } catch (err) {
        if (err instanceof ServiceError) throw new ServiceError(err.code, at('language'), { message: err.detail ?? err.message });
        throw err;
      }
    }
  }
  // Last: the only check that may need the network (DNS), after every rule that does not.
  if ((source.platform === 'direct' || live) && settings.addressPolicy) {
    try {
      await assertSafeUrl(source.sourceUrl!, settings.addressPolicy);
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'UNSAFE_URL')
        throw new ServiceError('UNSAFE_URL', at('source.url'), { message: err.detail ?? err.message });
      // A name that does not resolve now is the fetch's business, with its own error.
      if (!(err instanceof ServiceError)) throw err;
    }
  }
  return source;
}

/** Credits held at acceptance: captions 1, auto 2, word timing 3; AI transcription holds its minimum (60 s) and is raised once the media is measured. */
export function initialHold(spec: Pick<JobSpec, 'mode' | 'word_timing'>): number {
  // AI transcription holds the price of its minimum billable length until the media is measured; word timing
  // holds the caption credit and that minimum.
  if (spec.word_timing) return wordTimedCaptionCredits(0);
  return spec.mode === 'captions_only' ? CAPTION_CREDITS : transcriptionCredits(0);
}

export interface NewJobRow {
  id: string;
  job: JobSubmission;
  source: ResolvedSource;
  batchId?: string;
  itemIndex?: number;
  retryOfJobId?: string;
}

export function jobRowData(
  principal: Principal,
  row: NewJobRow,
  holdId: string | null,
  cached: { transcriptId: string; title: string | null } | null,
) {
  const { spec, alignText } = row.job;
  const hold = cached ? 0 : initialHold(spec);
  return {
    id: row.id,
    workspaceId: principal.workspaceId,
    batchId: row.batchId ?? null,
    itemIndex: row.itemIndex ?? null,
    status: cached ? ('succeeded' as const) : ('queued' as const),
    stage: cached ? null : ('resolve' as const),
    mode: spec.mode,
    spec,
    maxCredits: row.job.maxCredits,
    webhookEndpointId: row.job.webhookEndpointId,
    metadata: row.job.metadata,
    sourceUrl: row.source.sourceUrl,
    platform: row.source.platform,
    mediaId: row.source.mediaId,
    canonicalUrl: row.source.canonicalUrl,
    title: cached?.title ?? row.source.title,
    uploadId: row.source.uploadId,
    // A live stream is never the same media twice: its key is its own, so no transcript answers it and it answers none.
    reuseKey:
      row.source.platform === 'hls'
        ? `live:${row.id}`
        : reuseKey({ platform: row.source.platform, mediaId: row.source.mediaId, spec, alignText }),
    resultId: cached?.transcriptId ?? null,
    billingKind: cached ? ('cached' as const) : spec.mode === 'transcribe' ? ('ai_transcription' as const) : ('captions' as const),
    creditsReserved: hold,
    creditsCharged: 0,
    holdId,
    retryOfJobId: row.retryOfJobId ?? null,
    workflowId: workflowIds.job(row.id),
    finishedAt: cached ? new Date() : null,
  };
}

/** The `align_text` of new jobs, for job_texts (written in the same accepting transaction as the jobs). */
export function jobTextRows(rows: NewJobRow[]): { jobId: string; text: string }[] {
  return rows.flatMap((r) => (r.job.alignText !== null ? [{ jobId: r.id, text: r.job.alignText }] : []));
}

/** A retained transcript that answers a request: the reused job's result and title. */
export interface ReusableTranscript {
  id: string;
  title: string | null;
}

/**
 * The reuse rule as a statement: the newest retained, undeleted, published transcript of this workspace for
 * the same video and options (`key`, reuse.ts), as `id` and `title`. Run alone (findReusable) or inside a
 * job's accepting statement (submitJob).
 */
export function reusableStatement(workspaceId: string, key: string): Prisma.Sql {
  return Prisma.sql`
    SELECT id::text AS id, title FROM transcripts
    WHERE workspace_id = ${workspaceId}::uuid AND reuse_key = ${key}
      AND deleted_at IS NULL AND published_at IS NOT NULL AND expires_at > now()
    ORDER BY created_at DESC LIMIT 1`;
}

/** A retained, undeleted transcript of this workspace for the same video and options, if any. */
export async function findReusable(db: Db | Tx, workspaceId: string, key: string): Promise<ReusableTranscript | null> {
  const [found] = await db.$queryRaw<ReusableTranscript[]>(reusableStatement(workspaceId, key));
  return found ?? null;
}

export async function assertWebhookEndpoint(db: Db | Tx, workspaceId: string, id: string | undefined, field: string): Promise<void> {
  if (!id) return;
  const endpoint = await db.webhookEndpoint.findFirst({ where: { id, workspaceId, enabled: true }, select: { id: true } });
  if (!endpoint)
    throw new ServiceError('INVALID_REQUEST', field, { message: 'No enabled webhook endpoint with this id in this workspace.' });
}

/** What a submit reads before it accepts: the new row, checked. */
export interface PreparedJob {
  row: NewJobRow;
}

/**
 * The reads of a submit, nothing written: the source resolved and checked with the webhook endpoint. The
 * API runs it beside the rate-limit statement (api/http/route.ts). The reuse rule is read by the accepting
 * statement itself (submitJob).
 */
export async function prepareJob(
  deps: JobServiceDeps,
  principal: Principal,
  job: JobSubmission,
  opts: { retryOfJobId?: string } = {},
): Promise<PreparedJob> {
  // Read side by side; when both are wrong, the source's error is the one answered, as when they ran in turn.
  const [source, endpoint] = await Promise.allSettled([
    resolveJobSource(deps.db, principal, job, deps),
    assertWebhookEndpoint(deps.db, principal.workspaceId, job.webhookEndpointId ?? undefined, 'webhook_endpoint_id'),
  ]);
  if (source.status === 'rejected') throw source.reason;
  if (endpoint.status === 'rejected') throw endpoint.reason;
  return { row: { id: randomUUID(), job, source: source.value, retryOfJobId: opts.retryOfJobId } };
}

/**
 * POST /v1/jobs: the request checked (prepareJob, or `prepared` when the
 * caller ran it already), then accepted in one statement (acceptHeldRow,
 * domain/accept-work.ts): reuse rule, key, credits, hold, job; the workflow
 * started after it, so an accepted job is never lost. When a retained
 * transcript answers the request, that statement writes nothing and the job
 * is accepted as a reuse instead (a second statement, on the rarer path).
 */
export async function submitJob(
  deps: JobServiceDeps,
  principal: Principal,
  req: JobRequest,
  idempotency: IdempotencyScope,
  opts: { prepared?: PreparedJob } = {},
): Promise<SubmitResult> {
  return acceptJob(deps, principal, submissionOf(req), idempotency, { hash: requestHash(req), prepared: opts.prepared });
}

/**
 * submitJob's accept, for any submission: a request's, or a retry's (the job it repeats, its spec verbatim).
 * `hash` is the Idempotency-Key's request hash: of the body the caller sent.
 */
export async function acceptJob(
  deps: JobServiceDeps,
  principal: Principal,
  submission: JobSubmission,
  idempotency: IdempotencyScope,
  opts: { hash: string; retryOfJobId?: string; prepared?: PreparedJob },
): Promise<SubmitResult> {
  const { hash } = opts;
  const { row } = opts.prepared ?? (await prepareJob(deps, principal, submission, opts));
  const { id } = row;
  // A load that lasts past the start hold: accepted no faster than the starts are made.
  await deps.starts.caughtUp(CATCH_UP_WAIT_MS);
  const holdId = randomUUID();
  const job = newJobRow(jobRowData(principal, row, holdId, null));
  const outcome = await acceptHeldRow<ReusableTranscript>(deps.db, {
    claim: { ...idempotency, workspaceId: principal.workspaceId, hash, resource: { type: 'job', id } },
    table: 'jobs',
    row: rowByColumn(job),
    now: ['created_at', 'updated_at'],
    children: { table: 'job_texts', rows: jobTextRows([row]).map(rowByColumn) },
    hold: { id: holdId, amount: job.creditsReserved, reason: `job ${id}` },
    reserve: { plan: principal.plan, jobs: { adding: 1, limit: PLANS[principal.plan].jobsInProgress } },
    answeredBy: reusableStatement(principal.workspaceId, job.reuseKey),
  });
  if (outcome.kind === 'answered') {
    const cached = outcome.answer;
    const claim = { ...idempotency, hash, resource: { type: 'job' as const, id } };
    return row.job.webhookEndpointId
      ? acceptReusingJobWithEvent(deps, principal, claim, row, cached)
      : acceptReusingJob(deps.db, principal, claim, row, cached);
  }
  if (outcome.kind === 'existing') return answerReplay(deps.db, outcome.id);
  const created: Job = { ...job, createdAt: outcome.times.created_at!, updatedAt: outcome.times.updated_at! };
  deps.starts.dispatch(`job ${id}`, () => startJobWorkflow(deps, created), { table: 'jobs', id });
  return { status: 202, job: toJobView(created) };
}

/**
 * A new job's whole row (acceptRow and acceptHeldRow write every column: one left out would be NULL, not its
 * default). The times the statement sets are placeholders until it answers them.
 */
function newJobRow(data: ReturnType<typeof jobRowData>): Job {
  return {
    ...data,
    error: null,
    asrStartedAt: null,
    providerJobId: null,
    mediaDurationMs: null,
    transcribedMs: 0,
    retryAttempt: 0,
    lastRetryError: null,
    workflowStartedAt: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

/**
 * A job that a retained transcript answers: already succeeded, nothing held, nothing to run. Its key and
 * row are written in one statement (acceptRow), the cheapest accept there is, as befits a free answer.
 */
async function acceptReusingJob(
  db: Db,
  principal: Principal,
  claim: { key: string; operation: string; hash: string; resource: { type: 'job'; id: string } },
  row: NewJobRow,
  cached: ReusableTranscript,
): Promise<SubmitResult> {
  // finished_at too is set by the statement, to the database's time (acceptRow's `now`).
  const job = newJobRow(jobRowData(principal, row, null, { transcriptId: cached.id, title: cached.title }));
  const outcome = await acceptRow(db, {
    claim: { ...claim, workspaceId: principal.workspaceId },
    table: 'jobs',
    row: rowByColumn(job),
    now: ['created_at', 'updated_at', 'finished_at'],
  });
  if (outcome.kind === 'existing') return answerReplay(db, outcome.id);
  const { created_at, updated_at, finished_at } = outcome.times;
  return { status: 200, job: toJobView({ ...job, createdAt: created_at!, updatedAt: updated_at!, finishedAt: finished_at! }) };
}

/**
 * A job that a retained transcript answers, for a request that names a webhook endpoint: it finishes as it is
 * accepted, so its job.succeeded event is recorded with its row (the accepting transaction, no hold) and its
 * delivery workflow is started after the commit; the workflow starter makes up a lost start
 * (startPendingWorkflows). Without this the subscriber would wait for an event that never comes.
 */
async function acceptReusingJobWithEvent(
  deps: JobServiceDeps,
  principal: Principal,
  claim: IdempotencyScope & { hash: string; resource: { type: 'job'; id: string } },
  row: NewJobRow,
  cached: ReusableTranscript,
): Promise<SubmitResult> {
  const outcome = await acceptWork(deps.db, deps.starts, {
    principal,
    idempotency: { operation: claim.operation, key: claim.key },
    hash: claim.hash,
    resource: claim.resource,
    holds: [],
    holdReason: `job ${row.id}`,
    create: async (tx) => {
      const job = await tx.job.create({ data: jobRowData(principal, row, null, { transcriptId: cached.id, title: cached.title }) });
      const outcome = { type: 'job.succeeded', resultId: cached.id } as const;
      return { job, eventId: await recordJobEvent(tx, { ...job, endpointId: job.webhookEndpointId }, outcome) };
    },
    start: {
      label: `webhook event of job ${row.id}`,
      run: ({ job, eventId }: { job: Job; eventId: string | null }) =>
        eventId
          ? startEventDelivery(deps, eventId, { workspaceId: job.workspaceId, type: 'job.succeeded', jobId: job.id, batchId: job.batchId })
          : Promise.resolve(),
    },
  });
  if (outcome.kind === 'existing') return answerReplay(deps.db, outcome.id);
  return { status: 200, job: toJobView(outcome.created.job) };
}

/** The answer to a replayed Idempotency-Key: the job it made, as it is now. */
async function answerReplay(db: Db, jobId: string): Promise<SubmitResult> {
  const job = await db.job.findUniqueOrThrow({ where: { id: jobId } });
  return { status: 200, job: toJobView(job), replay: true };
}
