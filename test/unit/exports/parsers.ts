// Reads export output back with independent parsers: webvtt-parser (the W3C
// WebVTT parsing algorithm and validator) and srt-parser-2. Neither is used
// by the code under test.

import SrtParser from 'srt-parser-2';
import { WebVTTParser, VttNode } from 'webvtt-parser';
import HTML_ENTITIES from 'webvtt-parser/html-entities.json';

// The full HTML entity table, as the W3C parser's README asks for
// spec-compliant decoding (its built-in table decodes "&amp;" as "&;").
const ENTITIES: Record<string, string> = HTML_ENTITIES;

export interface ParsedCue {
  id: string;
  start: number; // seconds
  end: number; // seconds
  text: string; // lines joined with "\n", entities decoded
}

export interface ParsedVtt {
  cues: ParsedCue[];
  errors: string[];
  /** Node types other than plain text found in cue trees (tags, timestamps). */
  markup: string[];
}

function flatten(nodes: VttNode[], markup: string[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'text') out += String(n.value);
    else {
      markup.push(n.type + (n.name ? ':' + n.name : ''));
      if (n.children) out += flatten(n.children, markup);
    }
  }
  return out;
}

/** Parsers compute h*3600+m*60+s+ms/1000 in floating point; compare at millisecond precision. */
const ms = (seconds: number) => Math.round(seconds * 1000) / 1000;

export function parseVtt(body: string): ParsedVtt {
  const result = new WebVTTParser(ENTITIES).parse(body, 'metadata');
  const markup: string[] = [];
  return {
    cues: result.cues.map((c) => ({ id: c.id, start: ms(c.startTime), end: ms(c.endTime), text: flatten(c.tree.children, markup) })),
    errors: result.errors.map((e) => `line ${e.line}: ${e.message}`),
    markup,
  };
}

export function parseSrt(body: string): ParsedCue[] {
  return new SrtParser().fromSrt(body).map((c) => ({ id: c.id, start: ms(c.startSeconds), end: ms(c.endSeconds), text: c.text }));
}

const SRT_BLOCK = /^(\d+)\n(\d{2}):(\d{2}):(\d{2}),(\d{3}) --> (\d{2}):(\d{2}):(\d{2}),(\d{3})\n([^\n]+(?:\n[^\n]+)*)$/;

/**
 * Strict SubRip structure check (srt-parser-2 is lenient and reports no
 * errors): blocks separated by exactly one blank line, numbered 1..n,
 * two-digit fields with minutes/seconds < 60, non-empty text, LF endings.
 */
export function srtStructureErrors(body: string): string[] {
  const errors: string[] = [];
  if (body === '') return errors;
  if (body.includes('\r')) errors.push('contains CR');
  if (!body.endsWith('\n') || body.endsWith('\n\n')) errors.push('must end with exactly one newline');
  const blocks = body.replace(/\n$/, '').split('\n\n');
  blocks.forEach((block, i) => {
    const m = SRT_BLOCK.exec(block);
    if (!m) {
      errors.push(`block ${i + 1} malformed: ${JSON.stringify(block.slice(0, 80))}`);
      return;
    }
    if (Number(m[1]) !== i + 1) errors.push(`block ${i + 1} numbered ${m[1]}`);
    for (const f of [m[3], m[4], m[7], m[8]]) if (Number(f) > 59) errors.push(`block ${i + 1} field ${f} > 59`);
    if (m[10].includes('-->')) errors.push(`block ${i + 1} text contains -->`);
  });
  return errors;
}

/** Problems with a parsed cue list: order, overlap, empty or zero-length cues, line count and length. */
export function cueListProblems(cues: ParsedCue[], maxLineLength = 42, maxLines = 2): string[] {
  const problems: string[] = [];
  cues.forEach((c, i) => {
    if (!(c.end > c.start)) problems.push(`cue ${i + 1}: end ${c.end} not after start ${c.start}`);
    if (i > 0 && c.start < cues[i - 1].end) problems.push(`cue ${i + 1}: starts ${c.start} before previous end ${cues[i - 1].end}`);
    const lines = c.text.split('\n');
    if (c.text.trim() === '') problems.push(`cue ${i + 1}: empty`);
    if (lines.length > maxLines) problems.push(`cue ${i + 1}: ${lines.length} lines`);
    for (const l of lines) if (l.trim() === '') problems.push(`cue ${i + 1}: blank line`);
    for (const l of lines)
      if (Array.from(l).length > maxLineLength) problems.push(`cue ${i + 1}: line of ${Array.from(l).length} chars: ${l}`);
  });
  return problems;
}

/** Words of a text, for comparing text before and after wrapping/splitting. */
export function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}
