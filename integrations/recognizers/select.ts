import { AssemblyAiRecognizer, type AssemblyAiConfig } from './cloud';
import type { Recognizer } from './types';
import { WhisperRecognizer } from './whisper';

export type RecognizerName = 'whisper' | 'assemblyai';

/** From domain/config.ts (recognizerSettings). */
export interface RecognizerSettings {
  recognizer: RecognizerName;
  /** The model the recognition workers run (whisperModelName of WHISPER_MODEL_DIR; default whisper-base). */
  whisperModel: string;
  assemblyAi: AssemblyAiConfig | null;
}

/**
 * The recognizers chosen by configuration: RECOGNIZER=whisper (the embedded
 * default: the Python recognition worker, recognizer/) or assemblyai (the
 * cloud provider with callbacks; ASSEMBLYAI_API_KEY, ASSEMBLYAI_WEBHOOK_SECRET,
 * ASSEMBLYAI_BASE_URL). `local` describes the embedded one; `cloud` is set only
 * for the provider; `active` is the one jobs use.
 */
export function selectRecognizers(settings: RecognizerSettings): {
  name: RecognizerName;
  local: WhisperRecognizer;
  cloud: AssemblyAiRecognizer | null;
  active: Recognizer;
} {
  const name = settings.recognizer;
  if (!['whisper', 'assemblyai'].includes(name)) throw new Error(`RECOGNIZER must be whisper or assemblyai, not ${name}`);
  const local = new WhisperRecognizer(settings.whisperModel);
  let cloud: AssemblyAiRecognizer | null = null;
  if (name === 'assemblyai') {
    if (!settings.assemblyAi) throw new Error('RECOGNIZER=assemblyai needs ASSEMBLYAI_API_KEY and ASSEMBLYAI_WEBHOOK_SECRET');
    cloud = new AssemblyAiRecognizer(settings.assemblyAi);
  }
  return { name, local, cloud, active: cloud ?? local };
}
