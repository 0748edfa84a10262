/**
 * Keeps the inventory in step with its file: `fs.watch` on the file's directory (so editors that save by
 * renaming a new file over the old one are seen) plus a periodic `stat` as a fallback for file systems where
 * watching does not work. A change is read, parsed and swapped in; a bad edit (invalid YAML, an invalid
 * machine, a deleted file) keeps the last good inventory and logs the error, so a typo never makes machines
 * "disappear" (which would delete their Nodes).
 */
import { type FSWatcher, watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { type Inventory, parseInventory } from './inventory.js';

/** Options of {@link InventoryWatcher.open}. Durations in milliseconds. */
export interface InventoryWatcherOptions {
  /** Period of the `stat` fallback (default 2000). */
  pollIntervalMs?: number;
  /** Delay that coalesces bursts of watch events into one read (default 50). */
  debounceMs?: number;
  /** Use `fs.watch` (default true); false leaves only the `stat` poll (tests use this). */
  useFsWatch?: boolean;
  /** Where reloads and errors are logged (default logger `local-inventory`). */
  logger?: Logger;
}

interface FileStamp {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
}

function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs &&
    a.size === b.size &&
    a.ino === b.ino
  );
}

export class InventoryWatcher {
  readonly path: string;
  #inventory: Inventory;
  #text: string;
  #stamp: FileStamp | undefined;
  #generation = 0;
  #lastError: Error | undefined;
  #lastLoggedError = '';
  readonly #pollIntervalMs: number;
  readonly #debounceMs: number;
  readonly #useFsWatch: boolean;
  readonly #logger: Logger;
  readonly #listeners = new Set<(inventory: Inventory) => void>();
  #watcher: FSWatcher | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  #debounceTimer: NodeJS.Timeout | undefined;
  #reloading: Promise<boolean> | undefined;
  #again = false;
  #stopped = true;

  private constructor(
    path: string,
    text: string,
    inventory: Inventory,
    stamp: FileStamp,
    options: InventoryWatcherOptions,
  ) {
    this.path = path;
    this.#text = text;
    this.#inventory = inventory;
    this.#stamp = stamp;
    this.#pollIntervalMs = options.pollIntervalMs ?? 2_000;
    this.#debounceMs = options.debounceMs ?? 50;
    this.#useFsWatch = options.useFsWatch ?? true;
    this.#logger = options.logger ?? createLogger('local-inventory');
  }

  /**
   * Reads the inventory at `path` (resolved from the working directory) and returns a watcher holding it;
   * call {@link start} to follow changes.
   * @throws Error when the file cannot be read, or InventoryError when it is invalid: at start-up there is
   *   no last good inventory to fall back on.
   */
  static async open(path: string, options: InventoryWatcherOptions = {}): Promise<InventoryWatcher> {
    const full = resolve(path);
    let text: string;
    let stamp: FileStamp;
    try {
      stamp = await stat(full);
      text = await readFile(full, 'utf8');
    } catch (err) {
      throw new Error(`local: cannot read the inventory file ${full}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    return new InventoryWatcher(full, text, parseInventory(text), stamp, options);
  }

  /** The last good inventory. */
  current(): Inventory {
    return this.#inventory;
  }

  /** Number of successful reloads that changed the inventory since {@link open}. */
  get generation(): number {
    return this.#generation;
  }

  /** The error of the last reload attempt, or `undefined` when it succeeded (or none failed yet). */
  get lastError(): Error | undefined {
    return this.#lastError;
  }

  /** Calls `listener` after every reload that changed the inventory; returns a function that removes it. */
  onChange(listener: (inventory: Inventory) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts following the file. Idempotent. Timers and the watch do not keep the process alive. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    if (this.#useFsWatch) {
      const name = basename(this.path);
      try {
        this.#watcher = watch(dirname(this.path), { persistent: false }, (_event, file) => {
          if (file === null || file === name) this.#schedule();
        });
        this.#watcher.on('error', (err) => {
          this.#logger.error(err, 'Watching the inventory directory failed; relying on the periodic check', {
            path: this.path,
          });
          this.#watcher?.close();
          this.#watcher = undefined;
        });
      } catch (err) {
        this.#logger.error(err, 'Cannot watch the inventory directory; relying on the periodic check', {
          path: this.path,
        });
      }
    }
    this.#pollTimer = setInterval(() => void this.#poll(), this.#pollIntervalMs);
    this.#pollTimer.unref();
  }

  /** Stops following the file. Idempotent. */
  stop(): void {
    this.#stopped = true;
    this.#watcher?.close();
    this.#watcher = undefined;
    clearInterval(this.#pollTimer);
    clearTimeout(this.#debounceTimer);
  }

  /**
   * Reads the file now. Resolves true when a new inventory was swapped in, false when the file was
   * unchanged or invalid (the last good inventory stays; the error is logged and kept in {@link lastError}).
   * Concurrent calls share one read, followed by one more when a call arrived during it.
   */
  reload(): Promise<boolean> {
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = this.#read().finally(() => {
      this.#reloading = undefined;
      if (this.#again) {
        this.#again = false;
        void this.reload();
      }
    });
    return this.#reloading;
  }

  #schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#debounceTimer);
    this.#debounceTimer = setTimeout(() => void this.reload(), this.#debounceMs);
    this.#debounceTimer.unref();
  }

  async #poll(): Promise<void> {
    let stamp: FileStamp | undefined;
    try {
      stamp = await stat(this.path);
    } catch {
      stamp = undefined;
    }
    // A missing file is reported by reload() (once); a changed stamp means the file changed.
    if (!sameStamp(stamp, this.#stamp)) await this.reload();
  }

  async #read(): Promise<boolean> {
    let text: string;
    let stamp: FileStamp;
    try {
      stamp = await stat(this.path);
      text = await readFile(this.path, 'utf8');
      // A file still being written in place changes under the read: read it again once it settles.
      const after = await stat(this.path);
      if (!sameStamp(stamp, after)) {
        this.#schedule();
        return false;
      }
    } catch (err) {
      this.#stamp = undefined;
      this.#fail(new Error(`cannot read the inventory file: ${(err as Error).message}`, { cause: err }));
      return false;
    }
    this.#stamp = stamp;
    if (text === this.#text && this.#lastError === undefined) return false;
    let inventory: Inventory;
    try {
      inventory = parseInventory(text);
    } catch (err) {
      this.#fail(err as Error);
      return false;
    }
    const recovered = this.#lastError !== undefined;
    this.#lastError = undefined;
    this.#lastLoggedError = '';
    if (text === this.#text) {
      if (recovered) this.#logger.info('Inventory file is valid again; unchanged', { path: this.path });
      return false;
    }
    this.#text = text;
    this.#inventory = inventory;
    this.#generation++;
    this.#logger.info('Inventory reloaded', {
      path: this.path,
      machines: inventory.machines.length,
      generation: this.#generation,
    });
    for (const listener of this.#listeners) {
      try {
        listener(inventory);
      } catch (err) {
        this.#logger.error(err, 'Inventory change listener failed');
      }
    }
    return true;
  }

  #fail(err: Error): void {
    this.#lastError = err;
    // Log each distinct error once, not on every poll.
    if (err.message === this.#lastLoggedError) return;
    this.#lastLoggedError = err.message;
    this.#logger.error(err, 'Inventory reload failed; keeping the last good inventory', {
      path: this.path,
      machines: this.#inventory.machines.length,
    });
  }
}
