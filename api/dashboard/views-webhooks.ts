// The webhooks page's body: the endpoints (a new one's secret shown once), the delivery log with resend.
import type { listDeliveries, listWebhookEndpoints } from '../../domain/webhooks/endpoints';
import { html, type SafeHtml } from './html';
import { csrfField, dataTable, field, time } from './layout';
import { secretOnce } from './views-account';

type Endpoint = Awaited<ReturnType<typeof listWebhookEndpoints>>[number];
type Delivery = Awaited<ReturnType<typeof listDeliveries>>[number];

export function webhooksBody(
  endpoints: Endpoint[],
  deliveries: Delivery[],
  csrf: string,
  created?: Endpoint & { secret: string },
  values: { url?: string; description?: string } = {},
): SafeHtml {
  return html`${created ? secretOnce('Endpoint registered', 'webhook-secret', created.secret, `The signing secret of ${created.url}. It is shown only this once: store it where your receiver verifies signatures.`) : ''}
    <h2>Register an endpoint</h2>
    <form method="post" action="/dashboard/webhooks">
      ${csrfField(csrf)}
      ${field(
        'url',
        'HTTPS URL',
        html`<input
          id="url"
          name="url"
          type="url"
          required
          maxlength="2048"
          placeholder="https://example.com/hooks/transcripts"
          value="${values.url ?? ''}"
        />`,
      )}
      ${field(
        'description',
        'Description (optional)',
        html`<input id="description" name="description" maxlength="500" value="${values.description ?? ''}" />`,
      )}
      <button type="submit">Register endpoint</button>
    </form>
    <h2>Endpoints</h2>
    ${dataTable({
      caption: 'Webhook endpoints, newest first',
      columns: ['URL', 'Description', 'Created', 'State'],
      rows: endpoints,
      row: (e) =>
        html`<tr>
          <td class="break">${e.url}</td>
          <td>${e.description ?? ''}</td>
          <td>${time(e.created_at)}</td>
          <td>
            ${
              e.enabled
                ? html`<form
                    method="post"
                    action="/dashboard/webhooks/${e.id}/disable"
                    data-confirm="Disable this endpoint? It receives nothing more."
                  >
                    ${csrfField(csrf)}<button type="submit" class="danger" aria-label="Disable ${e.url}">Disable</button>
                  </form>`
                : html`disabled ${time(e.disabled_at)}`
            }
          </td>
        </tr>`,
      empty: html`<p>No endpoints yet.</p>`,
    })}
    <h2>Delivery log</h2>
    ${dataTable({
      caption: 'Delivery attempts, newest first',
      columns: ['Event', 'Endpoint', 'Attempt', 'Result', 'When', html`<span class="sr-only">Action</span>`],
      rows: deliveries,
      row: (d) =>
        html`<tr>
          <td>${d.event_type}<br /><code class="small">${d.event_id}</code></td>
          <td class="break">${d.url}</td>
          <td>${d.attempt}</td>
          <td>
            ${d.succeeded ? html`<span class="badge s-succeeded">delivered</span>` : html`<span class="badge s-failed">failed</span>`}
            ${d.status_code ?? ''} ${d.error ?? ''}
          </td>
          <td>${time(d.created_at)}</td>
          <td>
            <form method="post" action="/dashboard/webhooks/deliveries/${d.id}/resend">
              ${csrfField(csrf)}<button type="submit" aria-label="Resend event ${d.event_id}">Resend</button>
            </form>
          </td>
        </tr>`,
      empty: html`<p>No deliveries yet.</p>`,
    })}`;
}
