/**
 * The one constructor shape of every ccm-kit controller (docs/concepts.md "How a controller is built"): what
 * upstream's `New…Controller` functions take as separate arguments (informers, client, cloud, recorder settings),
 * as one object, with the controller's settings under `config` named as in `CloudControllerConfig`.
 */
import type { CloudProvider, SharedInformers } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import type { EventRecorder } from '@ccm-kit/runtime/events';

/**
 * `{ cloud, client, informers, recorder, logger?, config }`: the options of every controller's constructor.
 * - `Client`: the API calls the controller makes, a `Pick` of client-node's `CoreV1Api` (the runtime's
 *   `CoreV1Client` fits every one);
 * - `Config`: the controller's settings, named as the `CloudControllerConfig` fields (flags) they come from;
 * - `Informer`: which shared informers it reads (`nodes`, `services`).
 */
export interface ControllerOptions<Client, Config, Informer extends keyof SharedInformers = keyof SharedInformers> {
  /** The provider; each controller checks the facets it needs and throws naming the missing one. */
  readonly cloud: CloudProvider;
  /** The controller's API client (its own user agent: `clients.client(clientName, CoreV1Client)`). */
  readonly client: Client;
  /** The shared informers; the controller registers its event handlers in its constructor. */
  readonly informers: Pick<SharedInformers, Informer>;
  /** Records the controller's Events (source component: the controller's upstream name). */
  readonly recorder: EventRecorder;
  /** Where the controller logs (default: a logger with the controller's name). */
  readonly logger?: Logger;
  /** The controller's settings. */
  readonly config: Config;
}
