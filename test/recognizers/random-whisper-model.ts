import { closeSync, openSync, writeSync } from 'node:fs';

// A whisper.cpp ggml model file with the real `tiny` architecture (the
// shapes of ggml-tiny.bin: 4+4 layers, 384 wide, 6 heads, 80 mels, the
// 51,865-token multilingual vocabulary) and RANDOM weights, written at test
// time because no real whisper weights can be had on these machines. It
// proves that our loading and decoding path works end to end (file format,
// native addon, token and timestamp mapping); its "transcripts" are noise and
// say nothing about accuracy.

export const TINY = {
  nVocab: 51865,
  nAudioCtx: 1500,
  nAudioState: 384,
  nAudioHead: 6,
  nAudioLayer: 4,
  nTextCtx: 448,
  nTextState: 384,
  nTextHead: 6,
  nTextLayer: 4,
  nMels: 80,
  ftype: 1, // 16-bit floats for the big matrices, as in ggml-tiny.bin
};

const F32 = 0;
const F16 = 1;

interface TensorSpec {
  name: string;
  /** ggml order: ne[0] is the innermost (fastest-varying) dimension. */
  ne: number[];
  type: typeof F32 | typeof F16;
}

/** Every tensor whisper.cpp's loader expects for these hyper-parameters, with the type it checks. */
export function tinyTensors(h = TINY): TensorSpec[] {
  const s = h.nAudioState;
  const t: TensorSpec[] = [
    { name: 'encoder.positional_embedding', ne: [s, h.nAudioCtx], type: F32 },
    { name: 'encoder.conv1.weight', ne: [3, h.nMels, s], type: F16 },
    { name: 'encoder.conv1.bias', ne: [1, s], type: F32 },
    { name: 'encoder.conv2.weight', ne: [3, s, s], type: F16 },
    { name: 'encoder.conv2.bias', ne: [1, s], type: F32 },
    { name: 'encoder.ln_post.weight', ne: [s], type: F32 },
    { name: 'encoder.ln_post.bias', ne: [s], type: F32 },
    { name: 'decoder.positional_embedding', ne: [s, h.nTextCtx], type: F32 },
    { name: 'decoder.token_embedding.weight', ne: [s, h.nVocab], type: F16 },
    { name: 'decoder.ln.weight', ne: [s], type: F32 },
    { name: 'decoder.ln.bias', ne: [s], type: F32 },
  ];
  const block = (prefix: string, cross: boolean) => {
    const attn = (p: string) =>
      [
        { name: `${p}.query.weight`, ne: [s, s], type: F16 },
        { name: `${p}.query.bias`, ne: [s], type: F32 },
        { name: `${p}.key.weight`, ne: [s, s], type: F16 },
        { name: `${p}.value.weight`, ne: [s, s], type: F16 },
        { name: `${p}.value.bias`, ne: [s], type: F32 },
        { name: `${p}.out.weight`, ne: [s, s], type: F16 },
        { name: `${p}.out.bias`, ne: [s], type: F32 },
      ] as TensorSpec[];
    t.push(
      { name: `${prefix}.mlp_ln.weight`, ne: [s], type: F32 },
      { name: `${prefix}.mlp_ln.bias`, ne: [s], type: F32 },
      { name: `${prefix}.mlp.0.weight`, ne: [s, 4 * s], type: F16 },
      { name: `${prefix}.mlp.0.bias`, ne: [4 * s], type: F32 },
      { name: `${prefix}.mlp.2.weight`, ne: [4 * s, s], type: F16 },
      { name: `${prefix}.mlp.2.bias`, ne: [s], type: F32 },
      { name: `${prefix}.attn_ln.weight`, ne: [s], type: F32 },
      { name: `${prefix}.attn_ln.bias`, ne: [s], type: F32 },
      ...attn(`${prefix}.attn`),
    );
    if (cross) {
      t.push(
        { name: `${prefix}.cross_attn_ln.weight`, ne: [s], type: F32 },
        { name: `${prefix}.cross_attn_ln.bias`, ne: [s], type: F32 },
        ...attn(`${prefix}.cross_attn`),
      );
    }
  };
  for (let i = 0; i < h.nAudioLayer; i++) block(`encoder.blocks.${i}`, false);
  for (let i = 0; i < h.nTextLayer; i++) block(`decoder.blocks.${i}`, true);
  return t;
}

// whisper.cpp looks these up by text (suppress_blank needs " "): they sit at their GPT-2 ids.
const NAMED_TOKENS: Record<number, string> = { 220: ' ', 532: ' -', 705: " '" };

/** Printable ASCII for the first ids (as in byte-level BPE), made-up words after. */
function vocabToken(i: number): string {
  if (NAMED_TOKENS[i] !== undefined) return NAMED_TOKENS[i];
  if (i < 94) return String.fromCharCode(33 + i);
  return i < 256 ? String.fromCharCode(97 + (i % 26)) : ` w${i}`;
}

/** Writes the random-weight tiny model to `path` (about 78 MB); returns its size in bytes. Deterministic for a seed. */
export function writeRandomTinyWhisperModel(path: string, seed = 1): number {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: fast, reproducible noise
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const fd = openSync(path, 'w');
  let size = 0;
  const write = (buf: Buffer | Uint8Array) => {
    writeSync(fd, buf);
    size += buf.byteLength;
  };
  const int32s = (...xs: number[]) => {
    const b = Buffer.alloc(4 * xs.length);
    xs.forEach((x, i) => b.writeInt32LE(x, 4 * i));
    write(b);
  };
  try {
    int32s(
      0x67676d6c,
      TINY.nVocab,
      TINY.nAudioCtx,
      TINY.nAudioState,
      TINY.nAudioHead,
      TINY.nAudioLayer,
      TINY.nTextCtx,
      TINY.nTextState,
      TINY.nTextHead,
      TINY.nTextLayer,
      TINY.nMels,
      TINY.ftype,
    );
    // Mel filter bank: 80 × 201 small positive weights.
    int32s(TINY.nMels, 201);
    const filters = new Float32Array(TINY.nMels * 201).map(() => (next() % 1000) / 50_000);
    write(new Uint8Array(filters.buffer));
    // Vocabulary of the 50,257 text tokens (the loader names the special tokens after them itself).
    const tokens: Buffer[] = [];
    const nText = 50257;
    int32s(nText);
    for (let i = 0; i < nText; i++) {
      const text = Buffer.from(vocabToken(i));
      const len = Buffer.alloc(4);
      len.writeUInt32LE(text.length);
      tokens.push(len, text);
    }
    write(Buffer.concat(tokens));
    for (const t of tinyTensors()) {
      const name = Buffer.from(t.name);
      int32s(t.ne.length, name.length, t.type, ...t.ne);
      write(name);
      const n = t.ne.reduce((a, b) => a * b, 1);
      if (t.type === F16) {
        // Half floats of magnitude 2^-7..2^-5 with random sign: never NaN or infinite.
        const half = new Uint16Array(n);
        for (let i = 0; i < n; i++) {
          const r = next();
          half[i] = (r & 0x8000) | ((8 + (r % 3)) << 10) | ((r >>> 8) & 0x3ff);
        }
        write(new Uint8Array(half.buffer));
      } else {
        const f = new Float32Array(n);
        for (let i = 0; i < n; i++) f[i] = ((next() % 2001) - 1000) / 20_000;
        write(new Uint8Array(f.buffer));
      }
    }
  } finally {
    closeSync(fd);
  }
  return size;
}
