/**
 * What every built-in descriptor's `init` needs once it decided to start its controller: the typed client class
 * and the event recorder set-up. Loaded by a dynamic import on the first `init`, so that a process that only
 * reads the descriptors (the app's `--help`, its flag checks) does not load the API client and its HTTP stack.
 */
export async function loadControllerStart(): Promise<{
  CoreV1Client: typeof import('@ccm-kit/runtime/client').CoreV1Client;
  startWithEventRecorder: typeof import('./event-recording.js').startWithEventRecorder;
}> {
  const [{ CoreV1Client }, { startWithEventRecorder }] = await Promise.all([
    import('@ccm-kit/runtime/client'),
    import('./event-recording.js'),
  ]);
  return { CoreV1Client, startWithEventRecorder };
}
