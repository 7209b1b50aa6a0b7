import { ServiceError } from '../../../core/errors';
import type { CaptionFormat, Segment } from '../types';
import { isJson3, parseJson3 } from './json3';
import { parseTimedtextXml, timedtextXmlFormat } from './timedtext-xml';
import { tidyCues, type RawCue } from './tidy';
import { isUtterances, parseUtterances } from './utterances';
import { parseWebvtt } from './webvtt';

// One entry point for every caption body the platforms send. The format is
// decided by content, not by what was asked for: the videosite answers some
// requests in another format than `fmt=` named, and the shortvideo platform's
// `Format` field is not always right about its URLs.

export interface ParsedCaptions {
  format: CaptionFormat;
  segments: Segment[];
}

const SRT_START = /^\d+\s*\r?\n\s*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3}\s+-->/;

/** Parses a non-empty caption body. Unknown formats (including an HTML page) are SOURCE_CHANGED. */
export function parseCaptionBody(body: string): ParsedCaptions {
  const text = body.replace(/^\uFEFF/, '').trimStart();
  let parsed: { format: CaptionFormat; cues: RawCue[]; rolling: boolean };
  if (text.startsWith('WEBVTT')) {
    parsed = { format: 'vtt', ...parseWebvtt(text) };
  } else if (SRT_START.test(text)) {
    parsed = { format: 'srt', ...parseWebvtt(text) };
  } else if (text.startsWith('{') || text.startsWith('[')) {
    parsed = parseJsonCaptions(text);
  } else if (text.startsWith('<')) {
    const xml = timedtextXmlFormat(text);
    if (xml === null) throw new ServiceError('SOURCE_CHANGED', `captions: unknown markup (${describe(text)})`);
    parsed = { format: xml, ...parseTimedtextXml(text, xml) };
  } else {
    throw new ServiceError('SOURCE_CHANGED', `captions: unknown format (${describe(text)})`);
  }
  return { format: parsed.format, segments: tidyCues(parsed.cues, { rolling: parsed.rolling }) };
}

function parseJsonCaptions(text: string): { format: CaptionFormat; cues: RawCue[]; rolling: boolean } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ServiceError('SOURCE_CHANGED', 'captions: body starts like JSON but does not parse');
  }
  if (isJson3(doc)) return { format: 'json3', ...parseJson3(doc) };
  if (isUtterances(doc)) return { format: 'utterances', cues: parseUtterances(doc), rolling: false };
  throw new ServiceError('SOURCE_CHANGED', 'captions: JSON body is neither json3 nor utterances');
}

function describe(text: string): string {
  return JSON.stringify(text.slice(0, 40));
}
