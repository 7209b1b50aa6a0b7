import { fetch as undiciFetch } from 'undici';
import { pinnedDispatcher } from './pinned-dispatcher';
import { checkUrl, type AddressPolicy } from './url-guard';

// The OAuth server's only outbound requests (Client ID Metadata Documents: a
// client_id that is an https URL is fetched to learn the client) go through
// the service's SSRF guard like direct media links and webhooks: https only,
// every address of the host checked (public only; loopback only on the test
// stack), the connection pinned to the checked addresses, no redirects
// followed, a small body and a short deadline.

export interface ClientMetadataFetchOptions {
  policy: AddressPolicy;
  /** Tests only: CA (PEM) of a self-signed loopback https server. */
  caForTests?: string;
  /** Largest body read (the metadata documents are small JSON). */
  maxBytes?: number;
  timeoutMs?: number;
}

/** A `fetch` for oidc-provider's `fetch` setting: the answer is read here, within the limits, and handed back as a plain Response. */
export function guardedFetch(opts: ClientMetadataFetchOptions) {
  const maxBytes = opts.maxBytes ?? 64 * 1024;
  const timeoutMs = opts.timeoutMs ?? 2500;
  return async (
    url: string | URL,
    init: { method?: string; headers?: Headers | Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> => {
    const checked = await checkUrl(String(url), opts.policy);
    const dispatcher = pinnedDispatcher(checked, opts.policy, {
      connectTimeoutMs: timeoutMs,
      headersTimeoutMs: timeoutMs,
      bodyTimeoutMs: timeoutMs,
      ca: opts.caForTests,
    });
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    try {
      const res = await undiciFetch(checked.url, {
        method: init.method ?? 'GET',
        headers: init.headers instanceof Headers ? Object.fromEntries(init.headers.entries()) : init.headers,
        redirect: 'manual',
        signal,
        dispatcher,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      if (res.body) {
        for await (const chunk of res.body) {
          size += (chunk as Uint8Array).length;
          if (size > maxBytes) throw new Error(`${checked.url.host} sent more than ${maxBytes} bytes`);
          chunks.push(Buffer.from(chunk as Uint8Array));
        }
      }
      const headers = new Headers();
      res.headers.forEach((v, k) => headers.set(k, v));
      return new Response(res.status === 204 || res.status === 304 ? null : Buffer.concat(chunks), { status: res.status, headers });
    } finally {
      void dispatcher.destroy().catch(() => undefined);
    }
  };
}
