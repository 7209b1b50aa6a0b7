import { request } from 'undici';
import { ServiceError } from '../../core/errors';

/**
 * The one interface summaries use to reach a language model: OpenAI's chat-completions API as published
 * (platform.openai.com, "Create chat completion"): `POST {base}/chat/completions` with a bearer key and
 * `{model, messages, max_tokens, temperature, response_format}`, answered `{choices: [{message: {content}}], usage}`.
 * llama.cpp's server (the embedded default, recognizer/llm_server.py), vLLM, Ollama and the hosted APIs all speak
 * it. 429 and 5xx are the provider's to recover from (PROVIDER_UNAVAILABLE, retried); other refusals are final.
 */
export interface ChatCompletionsSettings {
  /** The part before `/chat/completions`, e.g. http://127.0.0.1:8090/v1 or https://api.openai.com/v1. */
  baseUrl: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
  /** The test stack: only a loopback address is called. */
  loopbackOnly: boolean;
}

export interface ChatRequest {
  system: string;
  user: string;
  maxTokens: number;
  /** Ask for a JSON object (`response_format: {type: "json_object"}`; llama.cpp enforces it with a grammar). */
  json: boolean;
}

export interface ChatAnswer {
  text: string;
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface ChatModel {
  /** The model's name as configured (LLM_MODEL), written beside what it produced. */
  readonly model: string;
  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatAnswer>;
}

const UNAVAILABLE = 'The language model is temporarily unavailable; automatic retry.';

export function createChatCompletions(settings: ChatCompletionsSettings): ChatModel {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const host = new URL(base).hostname;
  if (settings.loopbackOnly && !['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host))
    throw new Error(`LLM_BASE_URL ${base} is not a loopback address (the test stack calls only local servers)`);
  return {
    model: settings.model,
    async complete(req, signal) {
      const body = {
        model: settings.model,
        messages: [
          { role: 'system', content: req.system },
          { role: 'user', content: req.user },
        ],
        max_tokens: req.maxTokens,
        // Deterministic: the same transcript gets the same summary when a step is retried.
        temperature: 0,
        ...(req.json ? { response_format: { type: 'json_object' } } : {}),
      };
      let res;
      try {
        res = await request(`${base}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          signal,
          headersTimeout: settings.timeoutMs,
          bodyTimeout: settings.timeoutMs,
        });
      } catch (err) {
        if (signal?.aborted) throw err;
        throw new ServiceError('PROVIDER_UNAVAILABLE', `llm POST /chat/completions: no answer (${(err as Error).message})`, {
          cause: err,
          message: UNAVAILABLE,
        });
      }
      const raw = await res.body.text().catch(() => '');
      let json:
        | { choices?: Array<{ message?: { content?: unknown } }>; usage?: Record<string, unknown>; error?: { message?: unknown } }
        | undefined;
      try {
        json = JSON.parse(raw) as typeof json;
      } catch {
        json = undefined;
      }
      const said = typeof json?.error?.message === 'string' ? `: ${json.error.message}` : '';
      if (res.statusCode === 429 || res.statusCode >= 500) {
        const retryAfter = Number(res.headers['retry-after']);
        throw new ServiceError('PROVIDER_UNAVAILABLE', `llm POST /chat/completions: HTTP ${res.statusCode}${said}`, {
          message: UNAVAILABLE,
          ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
        });
      }
      if (res.statusCode >= 400)
        throw new ServiceError('PROVIDER_REJECTED', `llm POST /chat/completions: HTTP ${res.statusCode}${said}`, {
          message: 'The language model refused the request (its key, model or limits): no summary was written.',
        });
      const content = json?.choices?.[0]?.message?.content;
      if (typeof content !== 'string')
        throw new ServiceError('PROVIDER_UNAVAILABLE', `llm POST /chat/completions: HTTP ${res.statusCode} without a message`, {
          message: UNAVAILABLE,
        });
      const count = (v: unknown) => (typeof v === 'number' ? v : null);
      return { text: content, promptTokens: count(json?.usage?.prompt_tokens), completionTokens: count(json?.usage?.completion_tokens) };
    },
  };
}
