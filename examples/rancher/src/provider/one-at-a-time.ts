/**
 * Runs calls for one key one after another (calls for different keys run at once): two syncs of one Service's
 * balancer, or two creations of the shared stack, must not both find nothing and both create.
 */
export class OneAtATime {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier call for `key` settled; resolves or rejects as `fn` does. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
