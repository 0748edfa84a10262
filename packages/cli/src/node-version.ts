/**
 * The Node.js check `ccm-kit` makes before it loads anything else: on an older Node its dependencies fail
 * deep inside (`Map.groupBy is not a function`, undici's `reading 'bind'`) instead of saying what is wrong.
 */

/**
 * What is wrong with running on `running` (`process.versions.node`, e.g. `20.20.2`) when `required` is an
 * engines range of the form `>=MAJOR.MINOR[.PATCH]`; `undefined` when it satisfies it.
 * @throws Error when `required` is not of that form.
 */
export function nodeVersionProblem(running: string, required: string): string | undefined {
  const want = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(required.trim());
  if (!want) throw new Error(`engines.node "${required}": expected ">=MAJOR.MINOR"`);
  const have = running.split('.').map(Number);
  const need = [Number(want[1]), Number(want[2]), Number(want[3] ?? 0)];
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > need[i]!) return undefined;
    if ((have[i] ?? 0) < need[i]!)
      return (
        `needs Node.js ${required.trim()}, this is ${running} (${process.execPath}); ` +
        `in a ccm-kit project run it through npm (npm run …, npx ccm-kit), which uses the project's pinned ` +
        `"node" devDependency, or install Node.js ${need[0]}.${need[1]} or later`
      );
  }
  return undefined;
}
