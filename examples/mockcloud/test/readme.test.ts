import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_ANNOTATIONS } from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows the annotation table generated from SERVICE_ANNOTATIONS', () => {
    expect(readme).toContain(SERVICE_ANNOTATIONS.markdownTable());
  });
});
