/**
 * The app's start-up error, in a module below every app folder (options, serving, webhooks and manager all
 * throw it; none of them imports another for it).
 */

/** A start-up error that stops the manager (exit status 1 from `runCloudControllerManager`). */
export class StartupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StartupError';
  }
}
