import { closeSync, openSync, readSync } from 'node:fs';

// The header of a whisper.cpp ggml model file, read before the file is given
// to the native loader: smart-whisper 0.8.1 dereferences a null context when
// whisper.cpp refuses a file (it calls whisper_print_timings on it), which
// kills the whole worker process instead of failing one activity. A file
// that is not a whisper model is therefore refused here, in JavaScript.

export const GGML_MAGIC = 0x67676d6c; // "ggml", little-endian uint32

export interface WhisperHparams {
  nVocab: number;
  nAudioCtx: number;
  nAudioState: number;
  nAudioHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextState: number;
  nTextHead: number;
  nTextLayer: number;
  nMels: number;
  ftype: number;
}

const FIELDS: (keyof WhisperHparams)[] = [
  'nVocab',
  'nAudioCtx',
  'nAudioState',
  'nAudioHead',
  'nAudioLayer',
  'nTextCtx',
  'nTextState',
  'nTextHead',
  'nTextLayer',
  'nMels',
  'ftype',
];

/** Reads and sanity-checks the hyper-parameters; throws an Error saying what is wrong. */
export function readWhisperHparams(path: string): WhisperHparams {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(4 + 4 * FIELDS.length);
  try {
    if (readSync(fd, buf, 0, buf.length, 0) < buf.length) throw new Error(`${path}: too short for a whisper model`);
  } finally {
    closeSync(fd);
  }
  if (buf.readUInt32LE(0) !== GGML_MAGIC)
    throw new Error(`${path}: not a ggml whisper model (bad magic; GGUF and other formats are not supported)`);
  const h = {} as WhisperHparams;
  FIELDS.forEach((f, i) => (h[f] = buf.readInt32LE(4 + 4 * i)));
  const plausible =
    h.nVocab >= 51864 &&
    h.nVocab <= 52000 &&
    [4, 6, 12, 24, 32].includes(h.nAudioLayer) &&
    h.nAudioState === h.nTextState &&
    h.nAudioState > 0 &&
    h.nAudioState % h.nAudioHead === 0 &&
    h.nTextHead > 0 &&
    h.nTextLayer > 0 &&
    h.nAudioCtx > 0 &&
    h.nTextCtx > 0 &&
    (h.nMels === 80 || h.nMels === 128);
  if (!plausible) throw new Error(`${path}: implausible whisper hyper-parameters ${JSON.stringify(h)}`);
  return h;
}

/** English-only whisper models (`*.en`) have one token fewer than the multilingual ones. */
export function isMultilingual(h: WhisperHparams): boolean {
  return h.nVocab >= 51865;
}
