// The numbers and dates of a listing as the videosite shows them in English
// (every request asks with hl=en): lengths, view counts, publication texts.

const DURATION = /^(?:(\d+):)?(\d{1,2}):(\d{2})$/;

/** "12:34" → 754, "1:02:03" → 3723, "0:45" → 45; null for anything else ("LIVE", "SHORTS", "UPCOMING", ""). */
export function parseDuration(text: string | null | undefined): number | null {
  if (typeof text !== 'string') return null;
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const hours = match[1] === undefined ? 0 : Number(match[1]);
  const minutes = Number(match[2]);
  const seconds = Number(match[3]);
  if (seconds > 59 || (match[1] !== undefined && minutes > 59)) return null;
  return hours * 3600 + minutes * 60 + seconds;
}

const UNITS: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9, bn: 1e9 };
const VIEWS = /^([\d.,]+)\s*(k|m|bn|b)?\s+views?$/i;

/**
 * The view count of a view text: "1,234,567 views" → 1234567 (exact), "1 view"
 * → 1, "No views" → 0. Abbreviated figures are the shown number times the
 * unit, K/k = 10^3, M/m = 10^6, B/b/bn = 10^9 ("1.2M views" → 1200000,
 * "266m views" → 266000000, "8.84K" → 8840): as precise as the platform's
 * rounding, never more. null for other texts ("1,234 watching" is live
 * viewers, not views).
 */
export function parseViewCount(text: string | null | undefined): number | null {
  if (typeof text !== 'string') return null;
  const value = text.trim();
  if (/^no views$/i.test(value)) return 0;
  const match = VIEWS.exec(value);
  if (!match) return null;
  const unit = match[2]?.toLowerCase();
  if (unit === undefined) {
    // Full figures use "," for thousands; a "." would be a decimal we cannot have.
    if (!/^\d{1,3}(,\d{3})*$|^\d+$/.test(match[1])) return null;
    return Number(match[1].replace(/,/g, ''));
  }
  if (!/^\d+(\.\d+)?$/.test(match[1])) return null;
  // Rounded to whole views: 8.8 × 10^6 is 8800000.000000001 in binary floating point.
  return Math.round(Number(match[1]) * UNITS[unit]);
}

/** A view text, as opposed to a publication or channel text ("390K views", "No views", "1.2K watching"). */
export function isViewText(text: string): boolean {
  return /\b(views?|watching)$/i.test(text.trim());
}

/** A publication text: relative ("3 weeks ago", "Streamed 2 hours ago") or dated ("Premiered Mar 3, 2024"). */
export function isPublishedText(text: string): boolean {
  const value = text.trim();
  return /\bago$/i.test(value) || /^(streamed|premiered|premieres|scheduled for)\b/i.test(value) || absoluteDate(value) !== null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const US_DATE = new RegExp(`^(?:.*\\b(?:on|premiered|streamed)\\s+)?${MONTH}\\s+(\\d{1,2}),?\\s+(\\d{4})$`, 'i');
const EU_DATE = new RegExp(`^(?:.*\\b(?:on|premiered|streamed)\\s+)?(\\d{1,2})\\s+${MONTH}\\s+(\\d{4})$`, 'i');
const ISO_DATE = /^(?:.*\s)?(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The date a publication text states outright, as ISO 8601 at midnight UTC
 * ("Premiered Mar 3, 2024", "Streamed live on 3 Mar 2024", "2024-03-03");
 * null for relative texts ("3 weeks ago") and anything unreadable. Upcoming
 * texts ("Premieres …", "Scheduled for …") are not publication dates.
 */
export function absoluteDate(text: string | null | undefined): string | null {
  if (typeof text !== 'string') return null;
  const value = text.trim();
  if (/^(premieres|scheduled for)\b/i.test(value)) return null;
  let year: number;
  let month: number;
  let day: number;
  let m: RegExpExecArray | null;
  if ((m = US_DATE.exec(value))) [month, day, year] = [MONTHS.indexOf(m[1].toLowerCase()), Number(m[2]), Number(m[3])];
  else if ((m = EU_DATE.exec(value))) [day, month, year] = [Number(m[1]), MONTHS.indexOf(m[2].toLowerCase()), Number(m[3])];
  else if ((m = ISO_DATE.exec(value))) [year, month, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  else return null;
  const date = new Date(Date.UTC(year, month, day));
  // Rejects 31 Feb and the like instead of rolling over into March.
  if (month < 0 || date.getUTCMonth() !== month || date.getUTCDate() !== day || year < 2005) return null;
  return date.toISOString();
}

/** A count that may come as a number or a decimal string (shortvideo statsV2); null when it is neither. */
export function countOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return null;
}

/** The URL of the largest image of a thumbnail list ({url, width, height}[]), made absolute (https). */
export function largestImage(list: unknown): string | null {
  if (!Array.isArray(list)) return null;
  let best: string | null = null;
  let bestArea = -1;
  for (const item of list) {
    if (typeof item !== 'object' || item === null) continue;
    const { url, width, height } = item as { url?: unknown; width?: unknown; height?: unknown };
    if (typeof url !== 'string' || url === '') continue;
    const area = typeof width === 'number' && typeof height === 'number' ? width * height : 0;
    if (area > bestArea) {
      best = url;
      bestArea = area;
    }
  }
  return best === null ? null : best.startsWith('//') ? `https:${best}` : best;
}
