/**
 * The kinds of personal data `redact_pii_types` names (domain/transcripts/redaction.ts finds them). Here, without
 * zod, so the kernel's job spec and the redaction rules share one list.
 */
export const PII_TYPE_NAMES = ['person', 'email', 'phone', 'card', 'iban', 'address', 'id'] as const;

/** What a personal-data model reads a word as: part of a name, of an address, or of an ID number. */
export type ModelEntity = 'person' | 'building_number' | 'street' | 'secondary_address' | 'city' | 'state' | 'postcode' | 'id';

/** A personal-data model: each word's part of a name, an address or an ID, or null (integrations/pii/rampart.ts). */
export interface EntityTagger {
  /** Name and version of the model. */
  readonly model: string;
  tagWords(words: readonly string[]): Promise<Array<ModelEntity | null>>;
}
