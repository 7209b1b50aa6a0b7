import { request } from 'undici';
import { ServiceError } from '../../core/errors';
import { primaryLanguage } from '../recognizers/types';
import type { TextTranslator } from './types';

/**
 * The operator's translation provider: DeepL's REST API as published (developers.deepl.com, "Translate text"):
 * `POST /v2/translate` with `Authorization: DeepL-Auth-Key <key>` and a JSON body `{text: [...], target_lang,
 * source_lang?}`, answered `{translations: [{detected_source_language, text}]}` in the order given. At most 50
 * texts and 128 KiB a request, so a transcript goes in batches. 429 (too many requests), 456 (quota exceeded) and
 * 5xx are the provider's to recover from: PROVIDER_UNAVAILABLE, retried by the workflow.
 */
export interface DeeplSettings {
  apiKey: string;
  /** https://api.deepl.com, or https://api-free.deepl.com for a free key. */
  baseUrl: string;
  /** The test stack: only a loopback address (the local fake) is called. */
  loopbackOnly: boolean;
  timeoutMs?: number;
}

/** DeepL's target languages as its documentation lists them. */
export const DEEPL_TARGET_LANGUAGES = [
  'ar',
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'en-GB',
  'en-US',
  'es',
  'es-419',
  'et',
  'fi',
  'fr',
  'he',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'lt',
  'lv',
  'nb',
  'nl',
  'pl',
  'pt-BR',
  'pt-PT',
  'ro',
  'ru',
  'sk',
  'sl',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh-Hans',
  'zh-Hant',
] as const;

/**
 * DeepL's source languages: the language subtag alone, one for each language it translates into (its list of
 * sources is its list of targets without their regions and scripts). Another source is left to DeepL's detection.
 */
const DEEPL_SOURCE_LANGUAGES = new Set(DEEPL_TARGET_LANGUAGES.map((t) => primaryLanguage(t)));

const MAX_TEXTS = 50;
/** The job error's message when the provider cannot answer now (the catalogue's speaks of recognition). */
const UNAVAILABLE = 'The translation provider is temporarily unavailable; automatic retry.';
/** Under DeepL's 128 KiB a request, with room for the JSON around the texts. */
const MAX_BATCH_BYTES = 100 * 1024;

/**
 * A BCP 47 tag as DeepL's `target_lang`: upper-case, the region or script kept where DeepL lists it. DeepL has
 * deprecated the bare EN and PT targets: a bare `en` goes to EN-US, `pt` to PT-BR (the larger readerships), `zh`
 * to simplified Chinese.
 */
export function deeplTarget(tag: string): string {
  const exact = DEEPL_TARGET_LANGUAGES.find((t) => t.toLowerCase() === tag.toLowerCase());
  if (exact) return exact.toUpperCase();
  const language = primaryLanguage(tag);
  const bare: Record<string, string> = { en: 'EN-US', pt: 'PT-BR', zh: 'ZH-HANS' };
  return bare[language] ?? language.toUpperCase();
}

export function createDeeplTranslator(settings: DeeplSettings): TextTranslator {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const host = new URL(base).hostname;
  if (settings.loopbackOnly && !['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host))
    throw new Error(`DEEPL_API_URL ${base} is not a loopback address (the test stack calls only its local fake)`);

  async function translateBatch(texts: string[], source: string | null, target: string, signal?: AbortSignal): Promise<string[]> {
    const body: Record<string, unknown> = { text: texts, target_lang: deeplTarget(target) };
    const from = source ? primaryLanguage(source) : null;
    if (from && DEEPL_SOURCE_LANGUAGES.has(from)) body.source_lang = from.toUpperCase();
    const timeout = settings.timeoutMs ?? 60_000;
    let res;
    try {
      res = await request(`${base}/v2/translate`, {
        method: 'POST',
        headers: { authorization: `DeepL-Auth-Key ${settings.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ServiceError('PROVIDER_UNAVAILABLE', `deepl POST /v2/translate: no answer (${(err as Error).message})`, {
        cause: err,
        message: UNAVAILABLE,
      });
    }
    const text = await res.body.text().catch(() => '');
    let json: { translations?: Array<{ text?: unknown }>; message?: unknown } | undefined;
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      json = undefined;
    }
    const said = typeof json?.message === 'string' ? `: ${json.message}` : '';
    if (res.statusCode === 429 || res.statusCode === 456 || res.statusCode >= 500) {
      const retryAfter = Number(res.headers['retry-after']);
      throw new ServiceError(
        'PROVIDER_UNAVAILABLE',
        `deepl POST /v2/translate: HTTP ${res.statusCode}${res.statusCode === 456 ? ' (quota exceeded)' : ''}${said}`,
        { message: UNAVAILABLE, ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}) },
      );
    }
    if (res.statusCode >= 400)
      throw new ServiceError('PROVIDER_REJECTED', `deepl POST /v2/translate: HTTP ${res.statusCode}${said}`, {
        message: 'The translation provider refused the request (its key or settings): nothing was translated.',
      });
    const translations = json?.translations;
    if (!Array.isArray(translations) || translations.length !== texts.length || translations.some((t) => typeof t?.text !== 'string'))
      throw new ServiceError('PROVIDER_UNAVAILABLE', `deepl POST /v2/translate: HTTP ${res.statusCode} without one translation per text`, {
        message: UNAVAILABLE,
      });
    return translations.map((t) => t.text as string);
  }

  return {
    name: 'deepl',
    async translate(texts, source, target, signal) {
      const out: string[] = [];
      let batch: string[] = [];
      let bytes = 0;
      for (const t of texts) {
        const size = Buffer.byteLength(t, 'utf8') + 8;
        if (batch.length > 0 && (batch.length === MAX_TEXTS || bytes + size > MAX_BATCH_BYTES)) {
          out.push(...(await translateBatch(batch, source, target, signal)));
          batch = [];
          bytes = 0;
        }
        batch.push(t);
        bytes += size;
      }
      if (batch.length > 0) out.push(...(await translateBatch(batch, source, target, signal)));
      return out;
    },
  };
}
