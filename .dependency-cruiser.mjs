/**
 * `npm run lint` runs dependency-cruiser over every package's src with this one rule: no import circle. Type-only
 * imports count too (a circle of types is still a circle a reader walks). Imports are resolved as TypeScript
 * resolves them (`./x.js` → `./x.ts`).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: split out the piece both sides need, so imports run one way.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Only the sources: an import of another workspace package resolves to its built dist/, which stays out.
    includeOnly: '^(packages|examples)/[^/]+/src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
  },
};
