import { cueText, decodeEntities } from './text';
import type { RawCue } from './tidy';

// The videosite's XML caption formats:
// - srv3 `<timedtext format="3"><body><p t="ms" d="ms">text or <s> spans</p>`
// - srv2 `<timedtext><text t="ms" d="ms">`
// - srv1 `<transcript><text start="s" dur="s">` whose text is HTML escaped inside the XML.
// Machine-written and flat, so a small tokenizer is enough; no DTDs, no namespaces.

export type TimedtextXmlFormat = 'srv3' | 'srv2' | 'srv1';

const TOKEN =
  /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<[?!][\s\S]*?>|<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)|</g;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

export function timedtextXmlFormat(body: string): TimedtextXmlFormat | null {
  const head = body.slice(0, 512);
  if (/<transcript[\s>]/.test(head)) return 'srv1';
  if (/<timedtext[^>]*\bformat\s*=\s*["']3["']/.test(head)) return 'srv3';
  if (/<timedtext[\s>]/.test(head)) return 'srv2';
  return null;
}

export function parseTimedtextXml(body: string, format: TimedtextXmlFormat): { cues: RawCue[]; rolling: boolean } {
  const cueTag = format === 'srv3' ? 'p' : 'text';
  const cues: RawCue[] = [];
  let open: { attrs: Record<string, string>; text: string } | null = null;
  // Automatic srv3 tracks time every word (<s t=..>) and mark line breaks with a="1" cues.
  let rolling = false;

  for (const m of body.matchAll(TOKEN)) {
    const [, cdata, slash, name, rawAttrs, selfClosing, text] = m;
    if (text !== undefined || cdata !== undefined) {
      if (open) open.text += cdata ?? decodeEntities(text ?? '');
      continue;
    }
    if (name === undefined) {
      if (m[0] === '<' && open) open.text += '<';
      continue;
    }
    if (slash === '' && name === cueTag) {
      const attrs = parseAttributes(rawAttrs ?? '');
      if (attrs.a === '1') rolling = true;
      open = { attrs, text: '' };
      if (selfClosing === '/') open = finish(open, cues, format);
    } else if (slash === '/' && name === cueTag && open) {
      open = finish(open, cues, format);
    } else if (open && name === 'br') {
      open.text += '\n';
    } else if (open && name === 's' && slash === '' && parseAttributes(rawAttrs ?? '').t !== undefined) {
      rolling = true;
    }
  }
  return { cues, rolling };
}

function finish(open: { attrs: Record<string, string>; text: string }, cues: RawCue[], format: TimedtextXmlFormat): null {
  const { attrs } = open;
  const seconds = format === 'srv1';
  const start = seconds ? Number(attrs.start) : Number(attrs.t) / 1000;
  const length = seconds ? Number(attrs.dur) : Number(attrs.d) / 1000;
  // srv1 text is HTML inside XML: its tags arrive escaped once more.
  cues.push({ start, end: attrs[seconds ? 'dur' : 'd'] === undefined ? NaN : start + length, text: cueText(open.text, format === 'srv1') });
  return null;
}

function parseAttributes(raw: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of raw.matchAll(ATTRIBUTE)) attrs[m[1]] = decodeEntities(m[2] ?? m[3] ?? '');
  return attrs;
}
