/**
 * Work split over a few concurrent workers, as client-go `util/workqueue/parallelizer.go`
 * (`ParallelizeUntil`).
 */

/** Does the work of one piece, `0 ≤ piece < pieces`. */
export type DoWorkPieceFunc = (piece: number) => void | Promise<void>;

/**
 * Runs `doWorkPiece(0 … pieces-1)` over at most `workers` concurrent workers and resolves once every
 * worker has stopped. Workers stop handing out pieces once `signal` aborts (pieces already running
 * finish). As upstream: no more workers than pieces, and none at all — nothing processed — when
 * `workers` ≤ 0 or `pieces` ≤ 0.
 *
 * `doWorkPiece` should handle its own errors. If it throws anyway, no further piece is handed out and the
 * returned promise rejects with the first error once the running pieces have finished (upstream crashes).
 */
export async function parallelizeUntil(
  signal: AbortSignal | undefined,
  workers: number,
  pieces: number,
  doWorkPiece: DoWorkPieceFunc,
): Promise<void> {
  let next = 0;
  let failed = false;
  let failure: unknown;
  const worker = async () => {
    while (!failed && !signal?.aborted && next < pieces) {
      const piece = next++;
      try {
        await doWorkPiece(piece);
      } catch (err) {
        if (!failed) failure = err;
        failed = true;
      }
    }
  };
  const n = Math.max(0, Math.min(Math.floor(workers), pieces));
  await Promise.all(Array.from({ length: n }, worker));
  if (failed) throw failure;
}
