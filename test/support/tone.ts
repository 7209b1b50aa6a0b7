import { TONE_HZ } from '../../domain/transcripts/redacted-audio';

/** The share of a stretch's energy at `hz` (Goertzel), 0–1. */
export function toneShare(samples: ArrayLike<number>, rate: number, from: number, to: number, hz = TONE_HZ): number {
  const n = to - from;
  const k = Math.round((n * hz) / rate);
  const w = (2 * Math.PI * k) / n;
  const c = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (let i = from; i < to; i++) {
    const x = samples[i]!;
    const s = x + c * s1 - s2;
    s2 = s1;
    s1 = s;
    energy += x * x;
  }
  const power = s1 * s1 + s2 * s2 - c * s1 * s2;
  return energy === 0 ? 0 : (2 * power) / (n * energy);
}
