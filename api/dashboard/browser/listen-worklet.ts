// The microphone's audio as GET /v1/listen takes it (api/dashboard/browser/listen.ts loads this module into the
// page's AudioWorklet): mono 16 kHz 16-bit little-endian PCM, posted to the page in 0.1 s chunks. It runs on the
// audio thread, so it only converts and batches; the page sends.

// The AudioWorklet scope's globals (TypeScript's DOM library does not describe them).
declare const sampleRate: number;
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessorLike): void;
declare class AudioWorkletProcessorLike {
  readonly port: MessagePort;
  process(inputs: Float32Array[][], outputs: Float32Array[][], parameters: Record<string, Float32Array>): boolean;
}
declare const AudioWorkletProcessor: typeof AudioWorkletProcessorLike;

export {}; // a module: these declarations stay in this file

const TARGET_RATE = 16_000;
const CHUNK_SAMPLES = TARGET_RATE / 10;

class PcmCapture extends AudioWorkletProcessor {
  private readonly step = sampleRate / TARGET_RATE;
  /** Where the next output sample falls in the input, in samples from the start of the current block. */
  private at = 0;
  private previous = 0;
  private chunk = new Int16Array(CHUNK_SAMPLES);
  private filled = 0;

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (!input) return true;
    // The page asks its AudioContext for 16 kHz, and browsers that honour that resample the microphone well
    // themselves: then this is a copy. Elsewhere, linear interpolation from the context's rate (the sample
    // before this block is position -1), which is rough above 4 kHz but keeps speech recognisable.
    while (this.at <= input.length - 1) {
      const i = Math.floor(this.at);
      const lo = i < 0 ? this.previous : input[i]!;
      const hi = i + 1 < input.length ? input[i + 1]! : lo;
      this.push(lo + (hi - lo) * (this.at - i));
      this.at += this.step;
    }
    this.at -= input.length;
    this.previous = input[input.length - 1]!;
    return true;
  }

  private push(sample: number): void {
    const clipped = Math.max(-1, Math.min(1, sample));
    this.chunk[this.filled++] = clipped < 0 ? clipped * 0x8000 : clipped * 0x7fff;
    if (this.filled === CHUNK_SAMPLES) {
      this.port.postMessage(this.chunk.buffer, [this.chunk.buffer]);
      this.chunk = new Int16Array(CHUNK_SAMPLES);
      this.filled = 0;
    }
  }
}

registerProcessor('pcm-capture', PcmCapture);
