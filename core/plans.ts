// Plans and their limits, straight from the spec's Limits section. Prices are
// proposed until launch; PRICE_VERSION names this schedule.

export const PLAN_IDS = ['trial', 'starter', 'pro', 'scale'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface PlanLimits {
  name: string;
  paid: boolean;
  monthlyCredits: number;
  priceUsdPerMonth: number;
  /** The yearly variant: 10 × the monthly price (two months free); credits still granted monthly. */
  priceUsdPerYear: number;
  submitsPerMinute: number;
  jobsInProgress: number;
  readsPerMinute: number;
  batchSize: number;
  retentionDays: number;
  /** USD per 1,000 extra credits; null when the plan cannot buy credits. */
  creditPackUsdPer1000: number | null;
}

export const PLANS: Record<PlanId, PlanLimits> = {
  trial: {
    name: 'Trial',
    paid: false,
    monthlyCredits: 50,
    priceUsdPerMonth: 0,
    priceUsdPerYear: 0,
    submitsPerMinute: 10,
    jobsInProgress: 10,
    readsPerMinute: 120,
    batchSize: 1,
    retentionDays: 7,
    creditPackUsdPer1000: null,
  },
  starter: {
    name: 'Starter',
    paid: true,
    monthlyCredits: 2000,
    priceUsdPerMonth: 19,
    priceUsdPerYear: 190,
    submitsPerMinute: 60,
    jobsInProgress: 100,
    readsPerMinute: 120,
    batchSize: 10,
    retentionDays: 30,
    creditPackUsdPer1000: 8,
  },
  pro: {
    name: 'Pro',
    paid: true,
    monthlyCredits: 6000,
    priceUsdPerMonth: 49,
    priceUsdPerYear: 490,
    submitsPerMinute: 120,
    jobsInProgress: 500,
    readsPerMinute: 120,
    batchSize: 25,
    retentionDays: 90,
    creditPackUsdPer1000: 7,
  },
  scale: {
    name: 'Scale',
    paid: true,
    monthlyCredits: 20000,
    priceUsdPerMonth: 149,
    priceUsdPerYear: 1490,
    submitsPerMinute: 300,
    jobsInProgress: 2000,
    readsPerMinute: 120,
    batchSize: 50,
    retentionDays: 90,
    creditPackUsdPer1000: 6,
  },
};

// 2026-11-23: yearly variants added and synced to Stripe prices (domain/billing/catalogue.ts).
export const PRICE_VERSION = '2026-11-23';
export const FREE_CAPTION_CREDITS = 50;
export const CAPTION_CREDITS = 1;
export const TRANSCRIBE_CREDITS_PER_MINUTE = 2;
export const MINIMUM_BILLABLE_SECONDS = 60;
export const MAX_DURATION_MS = 7_200_000;
export const MAX_MEDIA_BYTES = 262_144_000;
export const MAX_BATCH_ITEMS = 50;

/** Credits for AI transcription of `durationMs`: 2 per started minute, minimum 60 s. */
export function transcriptionCredits(durationMs: number): number {
  const billableSeconds = Math.max(MINIMUM_BILLABLE_SECONDS, Math.ceil(durationMs / 1000));
  return Math.ceil(billableSeconds / 60) * TRANSCRIBE_CREDITS_PER_MINUTE;
}

/** A caption transcript with word times (`word_timing`): the caption credit plus the AI transcription price of the audio it is aligned to. */
export function wordTimedCaptionCredits(durationMs: number): number {
  return CAPTION_CREDITS + transcriptionCredits(durationMs);
}

/** Default `max_credits`: enough for two hours of media. */
export const DEFAULT_MAX_CREDITS = transcriptionCredits(MAX_DURATION_MS);
