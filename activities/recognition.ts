import type { JobPlan } from '../workflows/definitions';

/**
 * Activities served by the Python recognition worker (recognizer/worker.py),
 * not by this process: the job workflow calls them by name on the plan's
 * recognition task queue. Declared here so the workflow proxies them with
 * types, like every other activity.
 */
export interface RecognitionActivities {
  /**
   * Recognises the piece stored at `pieceKey` (16 kHz mono wav, from cutAudio)
   * in `plan.spec.language`, or detects the language when it is null. Writes the
   * raw result (words with start, end and confidence; language and its
   * probability; the model's name) to `work/<jobId>/result-<index>.json` and
   * returns that key; storeRecognition finishes and stitches the pieces. A
   * piece without speech is an empty result. Fails with LANGUAGE_UNSUPPORTED
   * (asked or detected outside the supported languages), PROVIDER_REJECTED,
   * STORAGE_UNAVAILABLE or NOT_FOUND, as catalogue-coded ApplicationFailures.
   */
  recognizePiece(plan: JobPlan, pieceKey: string, index: number): Promise<string>;
  /**
   * With `plan.spec.speaker_labels`: clusters the voice embeddings every piece's
   * result carries (all pieces at once: one voice is one speaker across
   * pieces; `plan.spec.speakers_expected` fixes the count), writes the speaker of
   * every word ("A", "B", … in order of first appearance; per piece, in the
   * result's word order) to `work/<jobId>/speakers.json` and returns that key.
   * `offsetsSec`: where each piece starts in the recording. Idempotent.
   */
  labelSpeakers(plan: JobPlan, resultKeys: string[], offsetsSec: number[]): Promise<string>;
  /**
   * Forced alignment of the text at `requestKey` (written by prepareCaptionAlignment or
   * prepareTextAlignment: a caption track's cues, or a text with no times) to the job's audio at
   * `audioKey`: words with times and a match score per cue or sentence, written to
   * `work/<jobId>/alignment.json` (recognizer/alignment.py); returns that key. Idempotent.
   */
  alignAudio(plan: JobPlan, audioKey: string, requestKey: string): Promise<string>;
}
