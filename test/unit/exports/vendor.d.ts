// Types for the untyped test-only parsers.

declare module 'webvtt-parser' {
  export interface VttNode {
    type: string;
    name?: string;
    value?: unknown;
    children?: VttNode[];
  }
  export interface VttCue {
    id: string;
    startTime: number;
    endTime: number;
    text: string;
    tree: { children: VttNode[] };
  }
  export interface VttParseResult {
    cues: VttCue[];
    errors: { message: string; line: number; col?: number }[];
  }
  export class WebVTTParser {
    constructor(entities?: Record<string, string>);
    parse(input: string, mode?: 'metadata' | 'chapters'): VttParseResult;
  }
}

declare module 'content-disposition' {
  export function parse(header: string): { type: string; parameters: Record<string, string> };
}
