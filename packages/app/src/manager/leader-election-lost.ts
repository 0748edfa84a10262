/**
 * Leadership was lost while running: upstream exits with status 1 (`leaderelection lost`, or
 * `migration leaderelection lost` for the leader-migration lease).
 */
export class LeaderElectionLostError extends Error {
  constructor(message = 'leaderelection lost') {
    super(message);
    this.name = 'LeaderElectionLostError';
  }
}
