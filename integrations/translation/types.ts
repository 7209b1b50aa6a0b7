/** A translation service behind the port the translation activities use (the operator's provider). */
export interface TextTranslator {
  readonly name: string;
  /** The texts in `target`, one for each, in order; `source` null leaves the language to the provider. */
  translate(texts: string[], source: string | null, target: string, signal?: AbortSignal): Promise<string[]>;
}
