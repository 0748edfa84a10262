/**
 * Which controllers a manager has: the ones `@ccm-kit/controllers` registers (the four built-ins and the
 * off-by-default `service-lb-gc-controller` and `node-ipam-controller`, enabled only by naming them in
 * `--controllers`, as upstream's
 * disabled-by-default controllers), plus the vendor's, as upstream's `DefaultInitFuncConstructors` map that a
 * vendor's `main` extends or overwrites.
 */
import { builtInControllers, type ControllerDescriptor } from '@ccm-kit/controllers';
import { registeredControllers } from '@ccm-kit/controllers/internal';
import { StartupError } from '../errors.js';

/**
 * The built-in controllers, `service-lb-gc-controller`, `node-ipam-controller`, plus the vendor's. A vendor descriptor with a built-in's name **replaces** that
 * built-in (upstream vendors overwrite `DefaultInitFuncConstructors` entries, for example to give the built-ins
 * their own client names); two vendor descriptors with one name are an error.
 * @throws StartupError `controller "<name>" is registered twice`.
 */
export function allControllers(extra: readonly ControllerDescriptor[] = []): ControllerDescriptor[] {
  const all: ControllerDescriptor[] = [...registeredControllers];
  const seen = new Set<string>();
  for (const d of extra) {
    if (seen.has(d.name)) throw new StartupError(`controller ${JSON.stringify(d.name)} is registered twice`);
    seen.add(d.name);
    const i = all.findIndex((b) => b.name === d.name);
    // A replacement without aliases keeps the built-in's (upstream's alias map is separate from the constructors).
    if (i >= 0) all[i] = d.aliases ? d : { ...d, aliases: all[i]!.aliases };
    else all.push(d);
  }
  return all;
}

/**
 * For built-ins a vendor replaced with another client name: descriptor name → `[built-in client name, vendor
 * client name]`. The built-in init functions ask for their default client name; the manager maps it.
 */
export function renamedClients(descriptors: readonly ControllerDescriptor[]): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const b of builtInControllers) {
    const d = descriptors.find((x) => x.name === b.name);
    if (d && d !== b && d.clientName && d.clientName !== b.clientName) out.set(d.name, [b.clientName, d.clientName]);
  }
  return out;
}
