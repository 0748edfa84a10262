/** Retries `fn` every 100 ms until it stops throwing (an assertion that holds); rethrows its error after `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
