/** Every facet set a real provider family uses (docs/provider-families.md) scaffolds a project that type-checks. */
import { describe, expect, it } from 'vitest';
import { parseFacets } from '../src/options.js';
import { removeScaffold, typeCheck, writeScaffold } from './scaffold-project.js';

describe('a scaffolded project type-checks', () => {
  it.each([
    'instances,instancesV2,zones,loadBalancer,routes',
    'instancesV2,zones,loadBalancer',
    'instances,zones,loadBalancer',
    'instancesV2,loadBalancer,routes',
    'zones',
  ])(
    'with the facets %s',
    (facets) => {
      const dir = writeScaffold('rancher', parseFacets(facets));
      try {
        const { status, output } = typeCheck(dir);
        expect(output).toBe('');
        expect(status).toBe(0);
      } finally {
        removeScaffold(dir);
      }
    },
    120_000,
  );

  it('a type error in a test file fails the check (tsconfig.test.json covers test/)', () => {
    const dir = writeScaffold('acme', parseFacets('instancesV2'), {
      'test/broken.test.ts': "export const n: number = 'not a number';\n",
    });
    try {
      const { status, output } = typeCheck(dir);
      expect(output).toMatch(/test\/broken\.test\.ts\(1,14\): error TS2322/);
      expect(status).not.toBe(0);
    } finally {
      removeScaffold(dir);
    }
  }, 120_000);
});
