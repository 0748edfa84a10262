/**
 * client-go's `JitterFactor` (`tools/leaderelection/leaderelection.go`): the acquire retry waits
 * retryPeriod × (1 + rand × 1.2). A module of its own so that flag validation reads it without loading the elector.
 */
export const leaderElectionJitterFactor = 1.2;
