import { cueText } from './text';
import type { RawCue } from './tidy';

// WebVTT (videosite fmt=vtt, shortvideo subtitles) and SubRip, read line by
// line: a timing line opens a cue, a blank line closes it. Blocks without a
// timing line (header, STYLE, NOTE, the old "Style: ... ##" header) are skipped.
// The videosite's automatic VTT is "rolling": each cue repeats the previous
// line above the new one (and the cues are not always separated by a blank
// line), so repeated leading lines are dropped there.

const TIMING = /^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s+-->\s+((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})/;
const INLINE_TIMESTAMP = /<\d{1,2}:\d{2}(?::\d{2})?[.,]\d{3}>/;

export function parseWebvtt(body: string): { cues: RawCue[]; rolling: boolean } {
  const rolling = INLINE_TIMESTAMP.test(body);
  const blocks: Array<{ start: number; end: number; lines: string[] }> = [];
  let current: (typeof blocks)[number] | null = null;
  for (const line of body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const timing = TIMING.exec(line);
    if (timing) {
      current = { start: timestamp(timing[1]), end: timestamp(timing[2]), lines: [] };
      blocks.push(current);
    } else if (line.trim() === '') {
      current = null;
    } else if (current) {
      const text = cueText(line, true);
      if (text !== '') current.lines.push(text);
    }
  }

  const cues: RawCue[] = [];
  let previousLines: string[] = [];
  for (const block of blocks) {
    let lines = block.lines;
    if (rolling) {
      let skip = 0;
      while (skip < lines.length && previousLines.includes(lines[skip])) skip++;
      previousLines = lines;
      lines = lines.slice(skip);
      if (lines.length === 0) {
        // Nothing new: the line just stays on screen a little longer.
        const last = cues[cues.length - 1];
        if (last && block.start <= last.end + 0.001) last.end = Math.max(last.end, block.end);
        continue;
      }
    }
    cues.push({ start: block.start, end: block.end, text: lines.join('\n') });
  }
  return { cues, rolling };
}

function timestamp(value: string): number {
  const parts = value.replace(',', '.').split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}
