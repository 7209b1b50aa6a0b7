import {
  ActivityFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { LiveCapture } from '../activities/live';
import type { LiveEnd } from '../core/live';
import {
  HEARTBEAT_TIMEOUT,
  LOST_ATTEMPT_RETRY,
  RECOGNITION_QUEUE_TIMEOUT_MS,
  retryPolicy,
  searchAttributes as sa,
  stopLiveSignal,
  type LivePieceDone,
  type LiveStreamInput,
  type LiveStreamOutcome,
} from './definitions';
import { failureCode } from './failures';
import { deliverEvent } from './webhook';

/** Pieces a run follows before it hands its state to a new run: about ten minutes of a stream, a history of a few thousand events. */
const DEFAULT_PIECES_PER_RUN = 100;

/**
 * A live job's stream, followed as it airs (the job's workflow starts it as a child and writes the transcript
 * from its pieces). Each step captures (captureLiveAudio: the playlist read, its new segments fetched once and
 * heard, a piece cut at a pause), holds the credits of the minute the piece reaches, recognises the piece and
 * publishes its segments; pieces are recognised and published in order while the next ones are captured. Every
 * step is idempotent and the state moves only with the steps' recorded answers, so a worker or a recognizer
 * killed mid-stream repeats a step, never skips or doubles one. Ends when the playlist ends, on
 * stopLiveSignal (a cancel), at max_duration_s, or when the next minute is over the budget.
 */
export async function liveStreamWorkflow(input: LiveStreamInput): Promise<LiveStreamOutcome> {
  const { plan } = input;
  const retry = retryPolicy(LOST_ATTEMPT_RETRY);
  const capture = proxyActivities<Activities>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    allowEagerDispatch: false,
    retry,
  });
  const publish = proxyActivities<Activities>({ startToCloseTimeout: '60 seconds', heartbeatTimeout: HEARTBEAT_TIMEOUT, retry });
  const recognition = proxyActivities<Activities>({
    taskQueue: plan.recognitionTaskQueue,
    startToCloseTimeout: '10 minutes',
    scheduleToStartTimeout: RECOGNITION_QUEUE_TIMEOUT_MS,
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry,
  });
  const state = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '100 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });

  let stop = input.stop;
  setHandler(stopLiveSignal, () => {
    stop = true;
  });
  upsertSearchAttributes([
    { key: sa.workspaceId, value: plan.workspaceId },
    { key: sa.jobId, value: plan.jobId },
    { key: sa.platform, value: plan.platform },
    { key: sa.jobStatus, value: 'processing' },
  ]);

  let { cursor } = input;
  const pieces: LivePieceDone[] = [...input.pieces];
  let edgeMs = cursor.pendingStartMs;
  const publishedEnd = () => pieces.at(-1)?.endMs ?? 0;
  const show = (doing: string) => {
    const behind = Math.max(0, edgeMs - publishedEnd()) / 1000;
    setCurrentDetails(
      `Live stream ${plan.platform === 'hls' ? plan.sourceUrl : `of ${plan.platform} ${plan.mediaId}`}: ${pieces.length} piece(s) transcribed, the first ${(publishedEnd() / 1000).toFixed(1)} s; ` +
        `the air is at ${(edgeMs / 1000).toFixed(1)} s, ${behind.toFixed(1)} s behind it` +
        `${cursor.missedMs > 0 ? `; ${(cursor.missedMs / 1000).toFixed(1)} s slid past before it was fetched` : ''}. ${doing}`,
    );
  };

  // The pieces being recognised and published while the next are captured, chained so they publish in order. The
  // capture never waits for them: a stream is read at the air's pace even while recognition runs behind it, or a
  // sliding playlist would slide past segments not yet fetched. A failed piece ends the stream at the next step.
  const captureAhead = patched('live-capture-ahead');
  let inFlight: Promise<void> = Promise.resolve();
  let pieceFailed = false;
  const recognizeAndPublish = (piece: NonNullable<LiveCapture['piece']>) =>
    recognition.recognizePiece
      .executeWithOptions(
        { summary: `live piece ${piece.index + 1} (${(piece.startMs / 1000).toFixed(1)}-${(piece.endMs / 1000).toFixed(1)} s)` },
        [plan, piece.key, piece.index],
      )
      .then(async (resultKey) => {
        const span = { startMs: piece.startMs, endMs: piece.endMs };
        await publish.publishPieceSegments.executeWithOptions({ summary: `segments of live piece ${piece.index + 1}` }, [
          plan,
          piece.index,
          resultKey,
          span,
        ]);
        pieces.push({ ...span, resultKey });
      });

  let ended: LiveEnd | null = null;
  let runPieces = 0;
  while (ended === null) {
    if (pieceFailed) await inFlight;
    if (runPieces >= (input.piecesPerRun ?? DEFAULT_PIECES_PER_RUN) || workflowInfo().continueAsNewSuggested) {
      await inFlight;
      show('Handing over to a new run.');
      return continueAsNew<typeof liveStreamWorkflow>({ ...input, cursor, pieces, stop });
    }
    let step: LiveCapture;
    try {
      step = await capture.captureLiveAudio.executeWithOptions({ summary: stop ? 'the last piece (stopped)' : 'read the playlist' }, [
        plan,
        cursor,
        { stop },
      ]);
    } catch (err) {
      // A stream that cannot be read any more after words were heard ends with them; before, the job fails.
      await inFlight;
      if (pieces.length === 0 || !(err instanceof ActivityFailure)) throw err;
      const last = await capture.captureLiveAudio.executeWithOptions({ summary: 'the last piece (source lost)' }, [
        plan,
        cursor,
        { stop: true },
      ]);
      cursor = last.cursor;
      if (last.piece) await heard(last.piece);
      ended = 'source_lost';
      break;
    }
    cursor = step.cursor;
    edgeMs = Math.max(edgeMs, step.edgeMs);
    // The stream's first piece is cut once in the job's life: its subscriber hears that the stream is being transcribed.
    if (step.piece?.index === 0) {
      const eventId = await publish.recordLiveStarted(plan.jobId);
      if (eventId)
        await deliverEvent(eventId, { workspaceId: plan.workspaceId, type: 'job.live_started', jobId: plan.jobId, batchId: null });
    }
    if (step.piece) {
      if (!(await heard(step.piece))) {
        ended = 'budget';
        break;
      }
      runPieces++;
    }
    ended = step.ended;
    if (ended === null) show('Following.');
    if (ended === null && !step.piece && step.fetched === 0) await condition(() => stop || pieceFailed, step.pollMs);
  }
  await inFlight;
  await capture.discardLiveAudio(cursor);
  show(`Ended (${ended}).`);
  upsertSearchAttributes([{ key: sa.jobStatus, value: 'completed' }]);
  return { pieces, ended, missedMs: cursor.missedMs };

  /**
   * Holds the credits of the started minute `piece` reaches, then sends it to a recognizer (after the piece
   * before it is in). False when that minute is over max_credits or the balance: the piece is not recognised.
   */
  async function heard(piece: NonNullable<LiveCapture['piece']>): Promise<boolean> {
    try {
      await state.reserveTranscriptionCredits(plan, piece.endMs);
    } catch (err) {
      const code = failureCode(err);
      if (code !== 'BUDGET_EXCEEDED' && code !== 'INSUFFICIENT_BALANCE') throw err;
      await inFlight;
      await capture.discardLiveAudio({ ...cursor, pendingKey: piece.key });
      return false;
    }
    if (captureAhead) {
      inFlight = inFlight.then(() => recognizeAndPublish(piece));
    } else {
      await inFlight;
      inFlight = recognizeAndPublish(piece);
    }
    // Marked handled now (it is awaited at the next step and at the end), so a failure is not unhandled meanwhile.
    inFlight.catch(() => {
      pieceFailed = true;
    });
    return true;
  }
}
