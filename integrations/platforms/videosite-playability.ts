import { ServiceError } from '../../core/errors';
import { isObject } from './json-shapes';

// Reads a player response's playabilityStatus the way NewPipe's
// checkPlayabilityStatus and youtube-transcript-api's _assert_playability do
// (PROVENANCE, "playability mapping"), and says whether another innertube
// client could do better: a bot check or an age gate is about this client or
// this address; "private", "not in your country" or "unavailable" is about
// the video and every client will say the same.

export interface Refusal {
  error: ServiceError;
  /** True when the next client may still succeed. */
  clientSpecific: boolean;
}

const KNOWN_STATUSES = new Set([
  'OK',
  'ERROR',
  'UNPLAYABLE',
  'LOGIN_REQUIRED',
  'LIVE_STREAM_OFFLINE',
  'CONTENT_CHECK_REQUIRED',
  'AGE_CHECK_REQUIRED',
  'AGE_VERIFICATION_REQUIRED',
]);

// Checked in order; the first that matches the reason text decides.
const RULES: Array<{ test: RegExp; code: ServiceError['code']; clientSpecific: boolean; what: string }> = [
  { test: /not a bot/, code: 'SOURCE_BLOCKED', clientSpecific: true, what: 'bot check' },
  { test: /try again later|rate.?limit/, code: 'SOURCE_RATE_LIMITED', clientSpecific: false, what: 'throttled' },
  { test: /\bprivate\b/, code: 'SOURCE_PRIVATE', clientSpecific: false, what: 'private video' },
  { test: /country|region|your location/, code: 'SOURCE_REGION_RESTRICTED', clientSpecific: false, what: 'region restriction' },
  {
    test: /\b(members|membership|join this channel|premium|purchase|rent|rental|payment|paid)\b/,
    code: 'SOURCE_AUTH_REQUIRED',
    clientSpecific: false,
    what: 'paid or members-only',
  },
  {
    test: /inappropriate|confirm your age|age.?restrict|\bage\b.*\bverif/,
    code: 'SOURCE_AUTH_REQUIRED',
    clientSpecific: true,
    what: 'age check',
  },
  {
    test: /unavailable|removed|terminated|does not exist|no longer available|\bdeleted\b/,
    code: 'SOURCE_NOT_FOUND',
    clientSpecific: false,
    what: 'unavailable',
  },
];

/** null when the video is playable (status OK). */
export function checkPlayability(playerResponse: unknown): Refusal | null {
  if (!isObject(playerResponse)) return changed('player response is not an object');
  // reel_item_watch's answer for an id that does not exist (and /player's for a malformed one).
  if (Object.keys(playerResponse).length === 0)
    return { error: new ServiceError('SOURCE_NOT_FOUND', 'videosite: empty player response (no such video)'), clientSpecific: false };
  const ps = playerResponse.playabilityStatus;
  if (!isObject(ps) || typeof ps.status !== 'string') return changed('player response without playabilityStatus.status');
  const status = ps.status;
  if (status === 'OK') return null;

  const reason = describeReason(ps);
  const text = reason.toLowerCase().replace(/\u2019/g, "'");
  const detail = `videosite ${status}: ${reason || '(no reason given)'}`;
  for (const rule of RULES) {
    if (rule.test.test(text))
      return { error: new ServiceError(rule.code, `${detail} [${rule.what}]`), clientSpecific: rule.clientSpecific };
  }
  if (status === 'AGE_CHECK_REQUIRED' || status === 'AGE_VERIFICATION_REQUIRED' || status === 'CONTENT_CHECK_REQUIRED') {
    return { error: new ServiceError('SOURCE_AUTH_REQUIRED', detail), clientSpecific: true };
  }
  if (status === 'LOGIN_REQUIRED') return { error: new ServiceError('SOURCE_AUTH_REQUIRED', detail), clientSpecific: true };
  if (status === 'LIVE_STREAM_OFFLINE')
    return { error: new ServiceError('NO_CAPTIONS', `${detail} [live event not started]`), clientSpecific: false };
  // An UNPLAYABLE/ERROR we cannot read, or a status we have never seen: retryable, with the
  // platform's words in the detail so the mapping can be extended.
  return {
    error: new ServiceError('SOURCE_CHANGED', KNOWN_STATUSES.has(status) ? detail : `${detail} [unknown playability status]`),
    clientSpecific: true,
  };
}

/** reason, subreason runs and messages, as one line. */
function describeReason(ps: Record<string, unknown>): string {
  const renderer =
    isObject(ps.errorScreen) && isObject(ps.errorScreen.playerErrorMessageRenderer) ? ps.errorScreen.playerErrorMessageRenderer : {};
  const parts = [
    typeof ps.reason === 'string' ? ps.reason : textOf(renderer.reason),
    textOf(renderer.subreason),
    ...(Array.isArray(ps.messages) ? ps.messages.filter((m): m is string => typeof m === 'string') : []),
  ];
  return parts.filter((p) => p !== '').join(' | ');
}

/** The innertube text shapes: {simpleText} or {runs:[{text}]}. */
export function textOf(value: unknown): string {
  if (!isObject(value)) return '';
  if (typeof value.simpleText === 'string') return value.simpleText;
  if (Array.isArray(value.runs)) return value.runs.map((r) => (isObject(r) && typeof r.text === 'string' ? r.text : '')).join('');
  return '';
}

function changed(detail: string): Refusal {
  return { error: new ServiceError('SOURCE_CHANGED', `videosite: ${detail}`), clientSpecific: true };
}
