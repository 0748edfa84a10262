/**
 * The versions a new project depends on: ccm-kit's own packages at this package's version, and the
 * versions ccm-kit is built and tested with (test/versions.test.ts keeps them equal to the repository's).
 */
import { readFileSync } from 'node:fs';

const self = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** `^<version>` of @ccm-kit/* for the new project. */
export const CCM_KIT_RANGE = `^${self.version}`;

export const THIRD_PARTY = {
  '@kubernetes/client-node': '^2.0.1',
  yaml: '^2.9.1',
  '@types/node': '^24.19.2',
  typescript: '^6.0.3',
  vitest: '^5.1.1',
  node: '^24.21.0',
} as const;

/**
 * The Node.js major the image and CI of a new project use: the one ccm-kit pins for itself (root `node`
 * devDependency), as the project's own `node` devDependency does.
 */
export const NODE_MAJOR = Number(/\d+/.exec(THIRD_PARTY.node)![0]);
