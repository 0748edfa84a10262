/**
 * Loads @peculiar/x509, whose dependency tsyringe refuses to load without a Reflect metadata polyfill:
 * `reflect-metadata` is imported first. Lazy, so processes that never issue certificates never load either.
 */
let x509Module: Promise<typeof import('@peculiar/x509')> | undefined;

/** Loads @peculiar/x509 after the Reflect metadata polyfill it needs. */
export function loadX509(): Promise<typeof import('@peculiar/x509')> {
  x509Module ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return x509Module;
}
