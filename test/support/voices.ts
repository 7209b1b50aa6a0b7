import path from 'node:path';
import { toRecognizerWav } from '../../integrations/media/convert';
import { evalClips } from './asr-eval';
import { concatWithPauses } from './speech';

// Real speech from the evaluation set as the recognizer's WAV, for tests that need a known speaker or two.

const clip = (file: string) => evalClips().find((c) => c.file === file)!.audio;

/** JFK's "ask not" (about 11 s, one speaker) at `file`. */
export const jfkWav = (file: string) => toRecognizerWav(clip('en/jfk_inaugural.flac'), file);

/** Two voices, JFK then a LibriSpeech reader, 0.8 s apart, at `file` (its parts are written beside it). */
export async function twoVoiceWav(file: string): Promise<string> {
  const dir = path.dirname(file);
  const a = await jfkWav(path.join(dir, `${path.basename(file, '.wav')}-a.wav`));
  const b = await toRecognizerWav(
    clip('en/leopard_librispeech_1272-128104-0000.wav'),
    path.join(dir, `${path.basename(file, '.wav')}-b.wav`),
  );
  return concatWithPauses([a, b], file, 0.8);
}
