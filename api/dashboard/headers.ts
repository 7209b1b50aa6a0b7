/**
 * Content-Security-Policy of every page: scripts and styles only from this
 * origin (no inline script, no inline handler, no inline style), forms only
 * to this origin and the payment provider's hosted pages (checkout and portal
 * redirects), never framed.
 */
export const DASHBOARD_CSP = cspWith({});

function cspWith(extra: { connect?: string }): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // The transcript page plays an upload's media from this origin (GET /dashboard/transcripts/{id}/media).
    "media-src 'self'",
    `connect-src 'self'${extra.connect ? ` ${extra.connect}` : ''}`,
    "form-action 'self' https://checkout.stripe.com https://billing.stripe.com",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Sent with every page (and the e-mail verification page of api/routes/account.ts). */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/**
 * The playground page's headers: it PUTs a file to the object store's signed URL from the browser, so
 * connect-src also names the store's origin when it is not this one (S3 or MinIO behind S3_PUBLIC_ENDPOINT).
 */
export function playgroundHeaders(uploadOrigin: string, pageOrigin: string): Record<string, string> {
  if (uploadOrigin === pageOrigin) return PAGE_HEADERS;
  return { ...PAGE_HEADERS, 'Content-Security-Policy': cspWith({ connect: uploadOrigin }) };
}
