/**
 * The kinds of personal data `redact_pii_types` names (domain/transcripts/redaction.ts finds them). Here, without
 * zod, so the kernel's job spec and the redaction rules share one list.
 */
export const PII_TYPE_NAMES = ['person', 'email', 'phone', 'card', 'iban', 'address', 'id'] as const;
