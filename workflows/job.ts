import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  patched,
  proxyLocalActivities,
  getExternalWorkflowHandle,
  setHandler,
  startChild,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { FIRST_LIVE_CURSOR } from '../core/live';
import type { Activities } from '../activities';
import type { ErrorObject } from '../core/errors';
import {
  cancelRequestSignal,
  cancelUpdate,
  DEFAULT_PROVIDER_POLL_MS,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  EMBEDDING_QUEUE_TIMEOUT_MS,
  SUMMARY_QUEUE_TIMEOUT_MS,
  LOST_ATTEMPT_RETRY,
  HEARTBEAT_TIMEOUT,
  JOB_NOT_COMMITTED,
  providerCallbackSignal,
  retryPolicy,
  RECOGNITION_QUEUE_TIMEOUT_MS,
  searchAttributes as sa,
  type JobOutcome,
  planWithSpec,
  type JobPlan,
  type JobStage,
  type PlanBeforeSpec,
  type JobWorkflowInput,
  stopLiveSignal,
  workflowIds,
} from './definitions';
import { liveStreamWorkflow } from './live';
import { errorFromFailure, failureCode } from './failures';
import { OperatorView } from './operator-view';
import { deliverEvent } from './webhook';

/** auto mode falls back to AI transcription when the video has no usable captions. */
const CAPTIONS_MISSING = new Set(['NO_CAPTIONS', 'LANGUAGE_UNAVAILABLE']);

/**
 * One workflow per job. It decides the order of the steps; activities do the
 * work and are the only writers of the job's row. Retryable errors are retried
 * by Temporal with growing delays (DEFAULT_RETRY; a lost attempt sooner,
 * LOST_ATTEMPT_RETRY); the job shows the attempt meanwhile. Credits: held by
 * the API at acceptance, charged or released here exactly once (the settling
 * activities are idempotent).
 */
export async function jobWorkflow(input: JobWorkflowInput): Promise<JobOutcome> {
  const { jobId } = input;
  // State changes: short database writes, run as local activities (inside the
  // workflow task, no round trips through the server). A database outage is
  // waited out, however long: giving up would strand the job with its hold.
  const state = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '100 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' }, // no maximumAttempts: unlimited
  });
  // Retryable source, provider and storage errors (their delays ride on the failure), and lost attempts.
  const retry = retryPolicy(LOST_ATTEMPT_RETRY);
  // Media work: fetching and converting long files, stitching pieces. Not
  // eagerly dispatched to this worker: heavy work spreads over all workers.
  // Heartbeats (activities/heartbeat.ts) find a killed worker in 10 s.
  const media = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    allowEagerDispatch: false,
    retry,
  });
  // Source work: short network calls (each request has a 15 s budget), eagerly
  // dispatched to this worker where the server allows it
  // (stack/temporal-dynamic-config.yaml): no extra dispatch round trip. A
  // killed worker is found by the heartbeat timeout in 10 s.
  const source = proxyActivities<Activities>({ startToCloseTimeout: '60 seconds', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry });
  // Speech recognition: the Python recognition workers (recognizer/) on the
  // plan's recognition queue, one activity per piece, called by name. A piece
  // no recognition worker takes within the queue timeout fails the job with
  // PROVIDER_UNAVAILABLE rather than waiting for ever.
  const recognition = (plan: JobPlan) =>
    proxyActivities<Activities>({
      taskQueue: plan.recognitionTaskQueue,
      startToCloseTimeout: '30 minutes',
      scheduleToStartTimeout: RECOGNITION_QUEUE_TIMEOUT_MS,
      heartbeatTimeout: HEARTBEAT_TIMEOUT,
      retry,
    });

  // Chapters: on the embedding workers' queue, where the sentence embedding model is loaded (worker/main.ts). A
  // deployment without that model refuses `chapters` at submit; a queue no worker serves fails the job in time.
  const embedding = (plan: JobPlan) =>
    proxyActivities<Activities>({
      taskQueue: plan.embeddingTaskQueue,
      startToCloseTimeout: '30 minutes',
      scheduleToStartTimeout: EMBEDDING_QUEUE_TIMEOUT_MS,
      heartbeatTimeout: HEARTBEAT_TIMEOUT,
      retry,
    });
  // Summaries: on the summary workers' queue, which reach the language model (worker/main.ts). A deployment
  // without one refuses `summarize` at submit; a queue no worker serves fails the job in time.
  const summaries = (plan: JobPlan) =>
    proxyActivities<Activities>({
      taskQueue: plan.summaryTaskQueue,
      startToCloseTimeout: '30 minutes',
      scheduleToStartTimeout: SUMMARY_QUEUE_TIMEOUT_MS,
      heartbeatTimeout: HEARTBEAT_TIMEOUT,
      retry,
    });

  let finished = false;
  let cancelRequested = false;
  // Search attributes, current details and the jobView query (README, the Temporal UI runbook).
  // Past two points a cancel is refused (track.refuseCancel): audio went to a recognizer, or the result is being committed.
  const track = new OperatorView(jobId, { cancellable: true });
  track.answerQueries();
  const pipeline = new CancellationScope();

  // A live job that follows its stream is not cancelled but stopped: what was heard becomes its transcript.
  let stopLive: (() => Promise<void>) | null = null;
  const cancelOrStop = async () => {
    if (stopLive) return stopLive();
    cancelRequested = true;
    pipeline.cancel();
  };

  setHandler(
    cancelUpdate,
    async () => {
      await cancelOrStop();
      await condition(() => finished);
      return { cancelled: true };
    },
    {
      validator: () => {
        const why = finished ? 'status=final' : track.view.cancelRefusal;
        if (why) {
          throw ApplicationFailure.create({
            type: 'CANCELLATION_NOT_ALLOWED',
            nonRetryable: true,
            message: 'The job can no longer be cancelled.',
            details: [why],
          });
        }
      },
    },
  );

  // The same decision for a cancel the API accepted without an answer (202): refused ones are dropped and the job finishes.
  setHandler(cancelRequestSignal, () => {
    if (finished || track.view.cancelRefusal || cancelRequested) return;
    void cancelOrStop();
  });

  let providerCalledBack = false;
  setHandler(providerCallbackSignal, () => {
    providerCalledBack = true;
  });

  /** AI transcription: measure, price, then recognise (pieces in parallel, or the cloud provider). */
  async function transcribe(plan: JobPlan): Promise<{ transcriptId: string; charge: number; billingKind: 'ai_transcription' }> {
    if (plan.platform === 'hls') return transcribeLive(plan, null);
    // A videosite video on air is followed as a live stream: its platform's HLS manifest. A player answer that
    // cannot tell is no answer: the audio's download below meets the same trouble and reports it as usual.
    if (plan.platform === 'videosite' && patched('videosite-live')) {
      const live = await source.findLiveStream.executeWithOptions({ summary: `is ${plan.mediaId} on air?` }, [plan]).catch(() => null);
      if (live) return transcribeLive(plan, live.manifestUrl);
    }
    await enterStage('acquire_audio');
    track.move('processing', 'acquire_audio', `acquiring the audio of ${plan.platform} ${plan.mediaId}.`);
    const embedded = plan.recognizer !== 'cloud' && plan.spec.align_text_chars === null;
    // A growing transcript: each piece's segments published as soon as it and every piece before it are done.
    const growing = embedded && patched('growing-transcripts') ? publishInPieceOrder(plan) : null;
    const acquiring = media.acquireAudio.executeWithOptions({ summary: `audio of ${plan.platform} ${plan.mediaId}` }, [plan]);
    // Awaited below; marked handled now, so a failure while the leading piece is cut is not an unhandled rejection.
    acquiring.catch(() => undefined);
    // A long upload's first piece goes to a recognizer while the whole recording is still being converted.
    const early = embedded && plan.platform === 'upload' && patched('leading-piece') ? await startLeadingPiece(plan, growing) : null;
    const audio = await acquiring;
    // Priced by the measured length. With a leading piece the job was priced already, by the same probe of the same
    // file: this asks for the same amount, and a hold is only ever raised.
    const { cost } = await state.reserveTranscriptionCredits(plan, audio.durationMs);
    // The audio goes to a recognizer next: from now on the job finishes.
    track.refuseCancel('stage=submit_asr');
    await state.markAsrStarted(jobId);
    const seconds = Math.round(audio.durationMs / 1000);
    let transcriptId: string;
    if (plan.spec.align_text_chars !== null) {
      // A given text: aligned to the audio instead of recognised.
      const { requestKey } = await media.prepareTextAlignment(plan);
      await enterStage('wait_asr');
      track.move('processing', 'wait_asr', `aligning the given text to ${seconds} s of audio on task queue ${recognitionQueue(plan)}.`);
      const alignmentKey = await align(plan, audio.audioKey, requestKey, `align the given text to ${seconds} s of audio`);
      ({ transcriptId } = await media.storeTextAlignment(plan, alignmentKey, audio.durationMs));
    } else if (plan.recognizer === 'cloud') {
      track.move('processing', 'submit_asr', `sending ${seconds} s of audio to the cloud recognizer.`);
      const providerJobId = await media.submitToProvider.executeWithOptions(
        { summary: `submit ${seconds} s of audio to the cloud recognizer` },
        [plan, audio.audioKey],
      );
      // Wait for the callback; poll now and then in case it is lost, give up after the deadline.
      const deadline = Date.now() + DEFAULT_PROVIDER_TIMEOUT_MS;
      track.move(
        'awaiting_provider',
        'wait_asr',
        `waiting for the recognition provider's callback on ${providerJobId} (checking every ${DEFAULT_PROVIDER_POLL_MS / 1000} s; giving up at ${new Date(deadline).toISOString()}).`,
      );
      for (let check = 1; ; check++) {
        await condition(() => providerCalledBack, DEFAULT_PROVIDER_POLL_MS);
        providerCalledBack = false;
        const r = await media.fetchProviderResult.executeWithOptions({ summary: `provider result of ${providerJobId} (check ${check})` }, [
          plan,
          providerJobId,
          audio.durationMs,
        ]);
        if (r !== 'pending') {
          transcriptId = r.transcriptId;
          break;
        }
        if (Date.now() > deadline) {
          throw ApplicationFailure.create({
            type: 'PROVIDER_UNAVAILABLE',
            nonRetryable: true,
            message: 'The recognition provider did not finish in time.',
            details: ['provider_timeout'],
          });
        }
      }
    } else {
      track.move('processing', 'submit_asr', `cutting ${seconds} s of audio into pieces at pauses.`);
      const { pieces, keys, firstPieceSha256 } = await media.cutAudio(plan, audio.audioKey, audio.durationMs);
      await enterStage('wait_asr');
      track.move(
        'processing',
        'wait_asr',
        `waiting for speech recognition of ${keys.length} piece(s) on task queue ${recognitionQueue(plan)}.`,
      );
      growing?.onPublished((published, endMs) =>
        track.note(
          `waiting for speech recognition of ${keys.length} piece(s) on task queue ${recognitionQueue(plan)}: ${published} recognised and published, the first ${Math.round(endMs / 1000)} s of ${seconds} s.`,
        ),
      );
      const recognize = recognition(plan);
      const recognizePiece = (key: string, i: number) =>
        recognize.recognizePiece.executeWithOptions({ summary: `piece ${i + 1} of ${keys.length}` }, [plan, key, i]);
      // The leading piece's result stands for piece 0 only when cutAudio's piece 0 has the very same samples;
      // otherwise piece 0 is recognised again, after it (both write piece 0's result file).
      const leadMatches =
        early !== null && pieces.length > 1 && early.piece.endMs === pieces[0]!.endMs && early.sha256 === firstPieceSha256;
      const results = await Promise.all(
        keys.map((key, i) =>
          (i === 0 && early
            ? early.result.then((lead) => (lead !== null && leadMatches ? lead : recognizePiece(key, 0)))
            : recognizePiece(key, i)
          ).then((resultKey) => {
            growing?.recognized(i, resultKey, pieces[i]!);
            return resultKey;
          }),
        ),
      ).catch((err: unknown) => {
        throw noWorkerInTime(err, RECOGNIZER_LATE, 'recognizer_queue_timeout') ?? err;
      });
      await growing?.published();
      // Speaker labels: the voices of all pieces clustered at once, so a voice is one speaker across pieces.
      const speakersKey = plan.spec.speaker_labels
        ? await recognize.labelSpeakers.executeWithOptions({ summary: `speakers of ${keys.length} piece(s)` }, [
            plan,
            results,
            pieces.map((p) => p.startMs / 1000),
          ])
        : null;
      ({ transcriptId } = await media.storeRecognition(plan, results, pieces, audio.durationMs, speakersKey));
    }
    return { transcriptId, charge: cost, billingKind: 'ai_transcription' };
  }

  /**
   * A live stream (an HLS playlist link, or a videosite video on air: `manifestUrl`): followed by a child workflow
   * (workflows/live.ts) that publishes each piece's segments as it is recognised and holds the credits minute by
   * minute; a cancel meanwhile stops it, and what was heard becomes the transcript, charged for the started minutes
   * it spans. A stop before anything was heard cancels the job (nothing charged).
   */
  async function transcribeLive(
    plan: JobPlan,
    manifestUrl: string | null,
  ): Promise<{ transcriptId: string; charge: number; billingKind: 'ai_transcription' }> {
    await state.markAsrStarted(jobId);
    await enterStage('wait_asr');
    const stream = manifestUrl ? `of ${plan.platform} ${plan.mediaId}` : plan.sourceUrl;
    track.move('processing', 'wait_asr', `following the live stream ${stream} (its details: workflow ${workflowIds.liveStream(jobId)}).`);
    const follower = await startChild(liveStreamWorkflow, {
      workflowId: workflowIds.liveStream(jobId),
      // A platform's stream starts at its manifest; a playlist link at the link.
      args: [{ plan, cursor: { ...FIRST_LIVE_CURSOR, playlistUrl: manifestUrl }, pieces: [], stop: false }],
    });
    let stopAsked = false;
    stopLive = async () => {
      if (stopAsked) return;
      stopAsked = true;
      track.note('stopping the live stream: what was heard so far becomes the transcript.');
      // By id alone: the signal reaches the follower's current run, however often it continued as new.
      await getExternalWorkflowHandle(follower.workflowId).signal(stopLiveSignal);
    };
    const followed = await follower.result();
    stopLive = null;
    track.refuseCancel('stage=finalize');
    const { pieces } = followed;
    if (pieces.length === 0 && followed.ended === 'stopped') {
      // Nothing was heard: the stop is a cancel, which ends the pipeline here (the job is cancelled, nothing charged).
      cancelRequested = true;
      pipeline.cancel();
      await CancellationScope.current().cancelRequested;
    }
    const durationMs = pieces.at(-1)?.endMs ?? 0;
    const { cost } = await state.reserveTranscriptionCredits(plan, durationMs);
    const resultKeys = pieces.map((p) => p.resultKey);
    const spans = pieces.map((p) => ({ startMs: p.startMs, endMs: p.endMs }));
    track.move(
      'processing',
      'finalize',
      `the live stream ${followed.ended}: writing the transcript of ${Math.round(durationMs / 1000)} s.`,
    );
    const speakersKey =
      plan.spec.speaker_labels && pieces.length > 0
        ? await recognition(plan).labelSpeakers.executeWithOptions({ summary: `speakers of ${pieces.length} live piece(s)` }, [
            plan,
            resultKeys,
            spans.map((p) => p.startMs / 1000),
          ])
        : null;
    const { transcriptId } = await media.storeRecognition(plan, resultKeys, spans, durationMs, speakersKey);
    return { transcriptId, charge: cost, billingKind: 'ai_transcription' };
  }

  /**
   * Publishes recognised pieces' segments in time order, one piece after another: piece i goes out once pieces 0..i
   * are all recognised, however the recognizers' answers interleave, and once only. The view is best effort: a
   * publish that fails (after its retries) stops the growing view, never the job, whose transcript is written from
   * the pieces' results.
   */
  function publishInPieceOrder(plan: JobPlan) {
    const done: Array<{ resultKey: string; piece: { startMs: number; endMs: number } } | undefined> = [];
    let next = 0;
    let broken = false;
    let chain: Promise<void> = Promise.resolve();
    const publishReady = async () => {
      while (!broken && done[next] !== undefined) {
        const i = next;
        const { resultKey, piece } = done[i]!;
        await source.publishPieceSegments
          .executeWithOptions({ summary: `segments of piece ${i + 1}` }, [plan, i, resultKey, piece])
          .then(() => published?.(i + 1, piece.endMs))
          .catch(() => {
            broken = true;
          });
        next = i + 1;
      }
    };
    let published: ((count: number, endMs: number) => void) | undefined;
    return {
      /** Told after each piece is published (the operator's view of how far the job got). */
      onPublished(tell: (count: number, endMs: number) => void) {
        published = tell;
      },
      recognized(index: number, resultKey: string, piece: { startMs: number; endMs: number }) {
        done[index] ??= { resultKey, piece };
        chain = chain.then(publishReady);
      },
      published: () => chain,
    };
  }

  /**
   * Cuts a long upload's first piece from the start of the file (cutLeadingPiece), prices the job by the length
   * it measured, closes the cancel window and sends the piece to a recognizer, all while acquireAudio converts the
   * whole recording. Null when the upload is one piece or the cut failed (then nothing changes: the job goes on
   * as without it). The recognition's result (null if it failed: piece 0 is then recognised as usual) is
   * published as piece 0 of the growing transcript as soon as it is there.
   */
  async function startLeadingPiece(plan: JobPlan, growing: ReturnType<typeof publishInPieceOrder> | null) {
    const cut = await media.cutLeadingPiece
      .executeWithOptions({ summary: `the first piece of ${plan.platform} ${plan.mediaId}` }, [plan])
      .catch(() => null);
    if (!cut?.lead) return null;
    const { lead } = cut;
    await state.reserveTranscriptionCredits(plan, cut.durationMs);
    track.refuseCancel('stage=submit_asr');
    await state.markAsrStarted(jobId);
    const result = recognition(plan)
      .recognizePiece.executeWithOptions({ summary: 'piece 1 (cut from the start of the upload)' }, [plan, lead.key, 0])
      .then((resultKey) => {
        growing?.recognized(0, resultKey, lead.piece);
        return resultKey;
      })
      .catch(() => null);
    return { piece: lead.piece, sha256: lead.sha256, result };
  }

  const recognitionQueue = (plan: JobPlan) => plan.recognitionTaskQueue ?? workflowInfo().taskQueue;

  /** Forced alignment on the recognition queue (a queue no worker serves fails the job like recognition does). */
  async function align(plan: JobPlan, audioKey: string, requestKey: string, summary: string): Promise<string> {
    return recognition(plan)
      .alignAudio.executeWithOptions({ summary }, [plan, audioKey, requestKey])
      .catch((err: unknown) => {
        throw noWorkerInTime(err, RECOGNIZER_LATE, 'recognizer_queue_timeout') ?? err;
      });
  }

  /**
   * word_timing: the caption transcript's words timed against the audio. Returns the price (the caption
   * credit plus the audio's minutes), or null when the track cannot be aligned (a language the recognizer
   * does not know, no text): then no audio is fetched and the captions are priced as captions.
   */
  async function timeCaptionWords(plan: JobPlan, transcriptId: string): Promise<number | null> {
    const prepared = await media.prepareCaptionAlignment(plan, transcriptId);
    if (!prepared) {
      track.move(
        'processing',
        'captions',
        'the caption track cannot be aligned (no text, or a language the recognizer does not know): kept as timed by the platform.',
      );
      return null;
    }
    await enterStage('acquire_audio');
    track.move('processing', 'acquire_audio', `acquiring the audio of ${plan.platform} ${plan.mediaId} to time the captions' words.`);
    const audio = await media.acquireAudio.executeWithOptions({ summary: `audio of ${plan.platform} ${plan.mediaId}` }, [plan]);
    const { cost } = await state.reserveTranscriptionCredits(plan, audio.durationMs, { wordTimedCaptions: true });
    // The audio goes to a recognizer next: from now on the job finishes.
    track.refuseCancel('stage=submit_asr');
    await state.markAsrStarted(jobId);
    await enterStage('wait_asr');
    const seconds = Math.round(audio.durationMs / 1000);
    track.move('processing', 'wait_asr', `aligning the captions to ${seconds} s of audio on task queue ${recognitionQueue(plan)}.`);
    const alignmentKey = await align(plan, audio.audioKey, prepared.requestKey, `align the captions to ${seconds} s of audio`);
    await media.storeCaptionAlignment(plan, transcriptId, alignmentKey);
    return cost;
  }

  let plan: JobPlan | null;
  // The stage the job's row shows; a stage is written only when it changes (startJob writes the first).
  let rowStage: JobStage | null = null;
  const enterStage = async (stage: JobStage) => {
    if (rowStage === stage) return;
    await state.setStage(jobId, stage);
    rowStage = stage;
  };
  try {
    // A history recorded before the spec holds the plan's older shape: read either.
    const started = (await state.startJob(jobId)) as JobPlan | PlanBeforeSpec | null;
    plan = started && planWithSpec(started);
  } catch (err) {
    // Only a job whose accepting transaction never committed ends quietly:
    // nothing was held, nothing to do. Everything else is retried above.
    if (failureCode(err) !== JOB_NOT_COMMITTED) throw err;
    finished = true;
    track.finish('failed', null, 'The job was never committed (its accepting transaction rolled back): nothing to do.');
    return { status: 'failed' };
  }
  if (!plan || plan.status !== 'processing') {
    finished = true;
    const status = (plan?.status as JobOutcome['status']) ?? 'failed';
    track.finish(status, null, `The job was already ${status}: nothing to do.`);
    return { status };
  }
  rowStage = plan.stage;
  const shareLink = plan.mediaId.startsWith('share:');
  track.move('processing', 'resolve', shareLink ? 'resolving the share link.' : 'starting.', [
    { key: sa.workspaceId, value: plan.workspaceId },
    { key: sa.jobId, value: jobId },
    { key: sa.platform, value: plan.platform },
    { key: sa.mediaId, value: plan.mediaId },
    { key: sa.jobMode, value: plan.spec.mode },
  ]);

  let outcome: JobOutcome;
  let error: ErrorObject | null = null;
  try {
    outcome = await pipeline.run(async () => {
      // Only share links need the resolve step's network call.
      const { mediaId } = shareLink
        ? await source.resolveSource.executeWithOptions({ summary: `resolve ${plan.platform} ${plan.mediaId}` }, [plan])
        : { mediaId: plan.mediaId };
      if (mediaId !== plan.mediaId) track.move('processing', 'resolve', `resolved to ${mediaId}.`, [{ key: sa.mediaId, value: mediaId }]);
      let result: { transcriptId: string; charge: number; billingKind: 'captions' | 'ai_transcription' };
      if (plan.spec.mode === 'transcribe') {
        result = await transcribe(plan);
      } else {
        await enterStage('captions');
        const languages = `${plan.spec.caption_languages.join(', ') || 'any language'}, ${plan.spec.caption_preference}`;
        track.move('processing', 'captions', `fetching captions (${languages}) from ${plan.platform} ${mediaId}.`);
        let captions: { transcriptId: string; charge: number } | null = null;
        try {
          captions = await source.fetchCaptions.executeWithOptions({ summary: `${plan.platform} captions of ${mediaId} (${languages})` }, [
            plan,
            mediaId,
          ]);
        } catch (err) {
          if (plan.spec.mode !== 'auto' || !CAPTIONS_MISSING.has(failureCode(err) ?? '')) throw err;
        }
        if (captions) {
          const charge = plan.spec.word_timing
            ? ((await timeCaptionWords(plan, captions.transcriptId)) ?? captions.charge)
            : captions.charge;
          result = { transcriptId: captions.transcriptId, charge, billingKind: 'captions' };
        } else {
          result = await transcribe(plan);
        }
      }
      // Search: the transcript's moments, written before it is published, so a published transcript is findable.
      // Behind a patch: the histories of jobs started before it have no such step.
      if (patched('search-index')) await state.indexTranscriptForSearch(result.transcriptId);
      if (plan.spec.redacted_audio) {
        track.move('processing', 'finalize', 'writing the audio with a tone over the redacted words.');
        const copy = await media.writeRedactedAudio.executeWithOptions({ summary: 'redacted copy of the audio' }, [
          plan,
          result.transcriptId,
        ]);
        track.move('processing', 'finalize', `redacted audio written (${copy.toneSpans} stretch(es) under the tone).`);
      }
      if (plan.spec.chapters) {
        track.move('processing', 'finalize', 'finding the chapters of the transcript.');
        const found = await embedding(plan)
          .writeTranscriptChapters.executeWithOptions({ summary: 'chapters of the transcript' }, [result.transcriptId])
          .catch((err: unknown) => {
            throw noWorkerInTime(err, 'No embedding worker took the chapters in time.', 'embedding_queue_timeout') ?? err;
          });
        track.move('processing', 'finalize', `${found.chapters} chapter(s) (${found.origin ?? 'none'}).`);
      }
      if (plan.spec.translate_to) {
        track.move('processing', 'finalize', `translating the transcript into ${plan.spec.translate_to}.`);
        // Media work's proxy: a provider's batches or a platform's track may take longer than a source call.
        const step = await media.translateTranscript.executeWithOptions({ summary: `translation into ${plan.spec.translate_to}` }, [
          plan,
          result.transcriptId,
        ]);
        if (step.requestKey) {
          // The machine model runs in the recognition workers, beside the recognizer.
          const resultKey = await recognition(plan)
            .translateTexts.executeWithOptions({ summary: `machine translation into ${plan.spec.translate_to}` }, [plan, step.requestKey])
            .catch((err: unknown) => {
              throw noWorkerInTime(err, 'No recognition worker took the translation in time.', 'recognizer_queue_timeout') ?? err;
            });
          await media.saveMachineTranslation(plan, result.transcriptId, resultKey);
        }
        track.move('processing', 'finalize', `translated into ${plan.spec.translate_to} (${step.origin}).`);
      }
      // Last: the summary reads the transcript as stored (redacted, cleaned up) and its chapters.
      if (plan.spec.summarize) {
        track.move('processing', 'finalize', 'summarizing the transcript.');
        const written = await summaries(plan)
          .writeTranscriptSummary.executeWithOptions({ summary: 'summary of the transcript' }, [result.transcriptId])
          .catch((err: unknown) => {
            throw noWorkerInTime(err, 'No summary worker took the summary in time.', 'summary_queue_timeout') ?? err;
          });
        track.move(
          'processing',
          'finalize',
          `summary written (${written.keyPoints} key point(s), ${written.dropped} sentence(s) dropped).`,
        );
      }
      // The row is at finalize already: storing the draft transcript (or its alignment) moved it (domain/jobs/state.ts).
      track.refuseCancel('stage=finalize');
      track.move('processing', 'finalize', 'committing the result (charging the hold, publishing the transcript).');
      return CancellationScope.nonCancellable(() => state.completeJob(jobId, result));
    });
  } catch (err) {
    error = cancelRequested && isCancellation(err) ? null : errorFromFailure(err);
    outcome = await CancellationScope.nonCancellable(() => (error ? state.failJob(jobId, error) : state.cancelJob(jobId)));
  }
  finished = true;
  track.finish(outcome.status, outcome.status === 'failed' ? error : null);
  if (outcome.eventId) {
    const batchId = workflowInfo().typedSearchAttributes.get(sa.batchId) ?? null;
    await deliverEvent(outcome.eventId, { workspaceId: plan.workspaceId, type: `job.${outcome.status}`, jobId, batchId });
  }
  return outcome;
}

const RECOGNIZER_LATE = 'No speech recognition worker took the audio in time.';

/** Work that waited out its queue's schedule-to-start timeout: no worker is serving the queue. */
function noWorkerInTime(err: unknown, message: string, detail: string): ApplicationFailure | null {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof TimeoutFailure) || err.cause.timeoutType !== 'SCHEDULE_TO_START')
    return null;
  return ApplicationFailure.create({ type: 'PROVIDER_UNAVAILABLE', nonRetryable: true, message, details: [detail] });
}
