import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { annotationTableMarkdown } from '../src/annotations.js';
import { parseConfig } from '../src/config.js';
import { parseInventory } from '../src/inventory.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** A Markdown table's rows as trimmed cells (the formatter pads columns; separators become `---`). */
function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => (/^\s*-+\s*$/.test(cell) ? '---' : cell.trim())),
    );
}

describe('README', () => {
  it('shows the annotation table generated from LOCAL_ANNOTATIONS', () => {
    const generated = tableRows(annotationTableMarkdown());
    const readmeRows = tableRows(readme);
    const start = readmeRows.findIndex((r) => r[0] === 'Annotation');
    expect(start).toBeGreaterThanOrEqual(0);
    expect(readmeRows.slice(start, start + generated.length)).toEqual(generated);
    expect(generated).toHaveLength(11);
  });

  it('has valid configuration and inventory examples', () => {
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(blocks).toHaveLength(2);
    expect(parseConfig(blocks[0]).pools).toHaveLength(2);
    expect(parseInventory(blocks[1] as string).machines).toHaveLength(1);
  });

  it('ships a valid demo configuration and inventory', () => {
    const config = parseConfig(readFileSync(new URL('../demo/cloud-config.yaml', import.meta.url), 'utf8'));
    expect(config.inventory).toBe('examples/local/demo/inventory.yaml');
    const inventory = parseInventory(readFileSync(new URL('../demo/inventory.yaml', import.meta.url), 'utf8'));
    expect(inventory.machines.map((m) => m.name)).toEqual(['kind-control-plane', 'kind-worker']);
  });
});
