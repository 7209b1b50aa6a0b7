// The timed pieces every part of the service passes around: caption parsers and
// recognizers produce them, the transcript stores them, exports lay them out.
// One declaration, in the kernel (core/): every layer may import it.

/** A caption-sized piece of a transcript: seconds (millisecond precision) and its text. */
export interface Segment {
  start: number;
  end: number;
  text: string;
  /** Who speaks ("A", "B", …) when speaker labels were asked for; absent or null otherwise. */
  speaker?: string | null;
  /** The language spoken (AI transcription detects it per region of speech). */
  language?: string | null;
  /** Aligned transcripts: how surely the audio says the text, 0..1 (the median probability of its words). */
  match?: number | null;
}

/** One recognised word (AI transcription only): seconds, text and the recognizer's confidence, 0..1. */
export interface Word extends Segment {
  confidence: number;
}
