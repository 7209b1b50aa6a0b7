import { BILLING_INTERVALS, CREDIT_UNITS_MAX, CREDIT_UNITS_MIN, CREDIT_UNITS_STEP, PAID_PLANS } from '../billing/catalogue';
import { z } from './zod';
import { DateTime, queryInteger } from './common';

const Units = z
  .number()
  .int()
  .min(CREDIT_UNITS_MIN, `units must be at least ${CREDIT_UNITS_MIN}`)
  .max(CREDIT_UNITS_MAX, `units must be at most ${CREDIT_UNITS_MAX}`)
  .multipleOf(CREDIT_UNITS_STEP, `units must be a multiple of ${CREDIT_UNITS_STEP}`);

export const CheckoutRequest = z
  .discriminatedUnion('kind', [
    z
      .strictObject({
        kind: z.literal('subscription'),
        plan: z.enum(PAID_PLANS),
        interval: z.enum(BILLING_INTERVALS).default('monthly'),
      })
      .openapi({
        description: 'Subscribe to a paid plan (the workspace must not have a live subscription: plan changes go through the portal).',
      }),
    z
      .strictObject({
        kind: z.literal('credits'),
        units: Units.openapi({ description: 'Credits to buy: 1,000–100,000 in steps of 1,000.' }),
      })
      .openapi({ description: 'Buy prepaid credits (paid plans only); they never expire.' }),
  ])
  .openapi('CheckoutRequest');

export const CheckoutSessionSchema = z
  .object({
    id: z.string().openapi({ description: "Stripe's Checkout Session id." }),
    url: z.string().openapi({ description: 'Redirect the browser here.' }),
    kind: z.enum(['subscription', 'credits']),
    plan: z.enum(PAID_PLANS).openapi({ description: 'The plan subscribed to, or the plan whose credit price applies.' }),
    interval: z.enum(BILLING_INTERVALS).nullable(),
    units: z.number().int().nullable(),
    amount_usd: z.number().openapi({ description: 'What the customer pays now: the plan price per interval, or the credit quote.' }),
    currency: z.literal('usd'),
    price_version: z.string(),
    expires_at: DateTime,
  })
  .openapi('CheckoutSession');

export const PortalSessionSchema = z
  .object({ id: z.string(), url: z.string().openapi({ description: 'Redirect the browser here.' }), return_url: z.string() })
  .openapi('PortalSession');

export const QuoteQuery = z.strictObject({
  units: queryInteger(Units).openapi({
    type: 'integer',
    minimum: CREDIT_UNITS_MIN,
    maximum: CREDIT_UNITS_MAX,
    multipleOf: CREDIT_UNITS_STEP,
  }),
});

export const QuoteSchema = z
  .object({
    plan: z.enum(PAID_PLANS),
    units: z.number().int(),
    unit_price_usd_per_1000: z.number().openapi({ description: 'List price of 1,000 credits on this plan.' }),
    discount_percent: z.number().int().openapi({ description: '0; 10 from 10,000 credits; 20 from 50,000.' }),
    discounted_usd_per_1000: z.number(),
    total_usd: z.number(),
    total_cents: z.number().int(),
    currency: z.literal('usd'),
    price_version: z.string(),
  })
  .openapi('CreditQuote');

export const StripeEventAckSchema = z.object({
  received: z.literal(true),
  event_id: z.string(),
  type: z.string(),
  duplicate: z.boolean(),
  ignored: z.boolean(),
});
