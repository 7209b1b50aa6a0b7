// The billing page's body: plan and subscription, checkout for a plan or a credit pack, the portal, the quote calculator.
import { PLANS, PLAN_IDS, type PlanId } from '../../core/plans';
import { html, type SafeHtml } from './html';
import { csrfField, field, time } from './layout';
import type { Usage } from './views-account';

export interface QuoteView {
  units: number;
  unit_price_usd_per_1000: number;
  discount_percent: number;
  total_usd: number;
}

export function billingBody(
  u: Usage,
  csrf: string,
  quote: { units: number; result: QuoteView | null; error: string | null },
  configured: boolean,
): SafeHtml {
  const plan = PLANS[u.plan];
  const sub = u.subscription;
  const paidPlans = PLAN_IDS.filter((p): p is Exclude<PlanId, 'trial'> => p !== 'trial');
  return html`<h2>Plan</h2>
    <dl class="facts">
      <div>
        <dt>Plan</dt>
        <dd>${plan.name}</dd>
      </div>
      <div>
        <dt>Subscription</dt>
        <dd>
          ${sub ? html`${sub.status}, ${sub.interval}${sub.cancel_at_period_end ? ', ends at period end' : ''} (period ends ${time(sub.current_period_end)})` : 'none'}
        </dd>
      </div>
      <div>
        <dt>Credits remaining</dt>
        <dd>${u.credits_remaining}</dd>
      </div>
      <div>
        <dt>Prepaid credits</dt>
        <dd>${u.prepaid_credits}</dd>
      </div>
    </dl>
    ${configured ? '' : html`<p class="notice" role="status">Payments are not configured on this server yet: checkout and the billing portal answer that they are unavailable.</p>`}
    <h2>Change plan</h2>
    <form method="post" action="/dashboard/billing/checkout" class="inline">
      ${csrfField(csrf)}<input type="hidden" name="kind" value="subscription" />
      ${field(
        'plan',
        'Plan',
        html`<select id="plan" name="plan">
          ${paidPlans.map((p) => html`<option value="${p}" ${p === u.plan ? html` selected` : ''}>${PLANS[p].name}</option>`)}
        </select>`,
      )}
      ${field(
        'interval',
        'Billing interval',
        html`<select id="interval" name="interval">
          <option value="monthly">Monthly</option>
          <option value="yearly">Yearly</option>
        </select>`,
      )}
      <button type="submit">Go to checkout</button>
    </form>
    <h2>Buy credits</h2>
    <form method="get" action="/dashboard/billing" class="inline">
      ${field(
        'units',
        'Credits (multiples of 1000)',
        html`<input
          id="units"
          name="units"
          type="number"
          inputmode="numeric"
          min="1000"
          max="100000"
          step="1000"
          value="${quote.units}"
          required
        />`,
      )}
      <button type="submit">Get a quote</button>
    </form>
    <div id="quote" aria-live="polite">
      ${
        quote.error
          ? html`<p class="error">${quote.error}</p>`
          : quote.result
            ? html`<p>
                  <strong>${quote.result.units}</strong> credits at $${quote.result.unit_price_usd_per_1000.toFixed(2)} per
                  1000${quote.result.discount_percent ? html` (${quote.result.discount_percent} % volume discount)` : ''}:
                  <strong>$${quote.result.total_usd.toFixed(2)}</strong>
                </p>
                <form method="post" action="/dashboard/billing/checkout">
                  ${csrfField(csrf)}<input type="hidden" name="kind" value="credits" /><input
                    type="hidden"
                    name="units"
                    value="${quote.result.units}"
                  /><button type="submit">Buy ${quote.result.units} credits</button>
                </form>`
            : ''
      }
    </div>
    <h2>Invoices and payment method</h2>
    <form method="post" action="/dashboard/billing/portal">${csrfField(csrf)}<button type="submit">Open the billing portal</button></form>`;
}
