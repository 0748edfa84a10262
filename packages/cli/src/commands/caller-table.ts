/**
 * The caller table of a bundle file (`<file>.callers.json`, written by `ccm-kit build` next to each `.mjs`):
 * for every generated line, where each run of code from one original source line starts, so that the runtime's
 * logger can name the source file and line of a log call in its klog header (`controller.ts:212]`) instead of
 * the bundle's (`main.mjs:9]`) without parsing the source map (decision 0415).
 *
 * Shape: `{ "sources": [path, …], "lines": [[genColumn, sourceIndex, originalLine, …], …] }` — one flat
 * array of triples per generated line (0-based columns, 1-based original lines), columns ascending.
 */
import { decode } from '@jridgewell/sourcemap-codec';

/** A caller table as written to disk. */
export interface CallerTable {
  sources: string[];
  lines: number[][];
}

/** The caller table of a source map (its `sources` and `mappings`). */
export function callerTable(map: { sources: (string | null)[]; mappings: string }): CallerTable {
  const lines = decode(map.mappings).map((segments) => {
    const out: number[] = [];
    let last = -1;
    let lastLine = -1;
    for (const s of segments) {
      if (s.length < 4) continue;
      const [col, src, line] = [s[0], s[1]!, s[2]!];
      // Keep a segment only where the original source line changes: a log call maps to its statement's line.
      if (src === last && line === lastLine) continue;
      out.push(col, src, line + 1);
      [last, lastLine] = [src, line];
    }
    return out;
  });
  return { sources: map.sources.map((s) => s ?? ''), lines };
}
