import { AssemblyAiRecognizer, assemblyAiConfigFromEnv } from './cloud';
import { PocketsphinxRecognizer } from './pocketsphinx';
import type { Recognizer } from './types';
import { WhisperRecognizer } from './whisper';

export type RecognizerName = 'pocketsphinx' | 'whisper' | 'assemblyai';

/**
 * The recognizers chosen by configuration: RECOGNIZER=pocketsphinx (the
 * embedded default), whisper (WHISPER_MODEL_PATH) or assemblyai (the cloud
 * provider with callbacks; ASSEMBLYAI_API_KEY, ASSEMBLYAI_WEBHOOK_SECRET,
 * ASSEMBLYAI_BASE_URL). `local` recognises pieces in the worker; `cloud` is set
 * only for the provider.
 */
export function selectRecognizers(env: NodeJS.ProcessEnv = process.env): {
  name: RecognizerName;
  local: Recognizer;
  cloud: AssemblyAiRecognizer | null;
  active: Recognizer;
} {
  const name = (env.RECOGNIZER ?? 'pocketsphinx') as RecognizerName;
  const local: Recognizer = name === 'whisper' ? new WhisperRecognizer() : new PocketsphinxRecognizer();
  let cloud: AssemblyAiRecognizer | null = null;
  if (name === 'assemblyai') {
    const cfg = assemblyAiConfigFromEnv(env);
    if (!cfg) throw new Error('RECOGNIZER=assemblyai needs ASSEMBLYAI_API_KEY and ASSEMBLYAI_WEBHOOK_SECRET');
    cloud = new AssemblyAiRecognizer(cfg);
  }
  if (!['pocketsphinx', 'whisper', 'assemblyai'].includes(name))
    throw new Error(`RECOGNIZER must be pocketsphinx, whisper or assemblyai, not ${name}`);
  return { name, local, cloud, active: cloud ?? local };
}
