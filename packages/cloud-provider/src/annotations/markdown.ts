/**
 * The Markdown reference table of a set of annotation declarations, for a vendor's docs: one row per
 * annotation with its expected value (the same words parse errors use), its default and its description.
 */
import type { AnnotationSpec } from './spec.js';
import { expectedForm, formatValue } from './values.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Renders `| Annotation | Value | Default | Description |` with one row per declaration, in order. */
export function renderAnnotationTable(specs: readonly AnnotationSpec[]): string {
  const rows = specs.map((s) => {
    const dflt = s.defaultText ?? (s.default === undefined ? 'unset' : `\`${formatValue(s, s.default)}\``);
    return `| \`${s.name}\` | ${cell(expectedForm(s))} | ${cell(dflt)} | ${cell(s.description)} |`;
  });
  return ['| Annotation | Value | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}
