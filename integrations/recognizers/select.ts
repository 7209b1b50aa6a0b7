import { AssemblyAiRecognizer, type AssemblyAiConfig } from './cloud';
import { PocketsphinxRecognizer } from './pocketsphinx';
import type { Recognizer } from './types';
import { WhisperRecognizer } from './whisper';

export type RecognizerName = 'pocketsphinx' | 'whisper' | 'assemblyai';

/** From domain/config.ts (recognizerSettings). */
export interface RecognizerSettings {
  recognizer: RecognizerName;
  assemblyAi: AssemblyAiConfig | null;
}

/**
 * The recognizers chosen by configuration: RECOGNIZER=pocketsphinx (the
 * embedded default), whisper (WHISPER_MODEL_PATH) or assemblyai (the cloud
 * provider with callbacks; ASSEMBLYAI_API_KEY, ASSEMBLYAI_WEBHOOK_SECRET,
 * ASSEMBLYAI_BASE_URL). `local` recognises pieces in the worker; `cloud` is set
 * only for the provider.
 */
export function selectRecognizers(settings: RecognizerSettings): {
  name: RecognizerName;
  local: Recognizer;
  cloud: AssemblyAiRecognizer | null;
  active: Recognizer;
} {
  const name = settings.recognizer;
  const local: Recognizer = name === 'whisper' ? new WhisperRecognizer() : new PocketsphinxRecognizer();
  let cloud: AssemblyAiRecognizer | null = null;
  if (name === 'assemblyai') {
    if (!settings.assemblyAi) throw new Error('RECOGNIZER=assemblyai needs ASSEMBLYAI_API_KEY and ASSEMBLYAI_WEBHOOK_SECRET');
    cloud = new AssemblyAiRecognizer(settings.assemblyAi);
  }
  if (!['pocketsphinx', 'whisper', 'assemblyai'].includes(name))
    throw new Error(`RECOGNIZER must be pocketsphinx, whisper or assemblyai, not ${name}`);
  return { name, local, cloud, active: cloud ?? local };
}
