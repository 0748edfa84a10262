// The cloud API quota of fakebench (the W9 workload of bench/compare.ts): a token bucket of rps tokens a
// second holding at most rps (burst = rps), and the error a throttled call returns, as a cloud SDK returns
// an HTTP 429 with "Retry-After: 1": a plain error, surfaced by the provider as it surfaces every other cloud
// error (not a cloudprovider.RetryError). The TypeScript twin is bench/fakebench-quota.ts, with the same
// arithmetic. A refused call takes no token (a cloud refuses it before doing any work).
package main

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// retryAfter is the Retry-After fakebench answers with a 429.
const retryAfter = time.Second

// throttledError is a call refused because the quota was spent: HTTP 429 with Retry-After: 1.
type throttledError struct{ method string }

func (e *throttledError) Error() string {
	return fmt.Sprintf("fakebench: %s: 429 Too Many Requests (Retry-After: 1)", e.method)
}

// StatusCode is the HTTP status, as SDK errors carry it.
func (e *throttledError) StatusCode() int { return 429 }

// RetryAfter is the Retry-After header.
func (e *throttledError) RetryAfter() time.Duration { return retryAfter }

// tokenBucket holds rate tokens a second, at most burst, full at creation. Safe under concurrency.
type tokenBucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func newTokenBucket(rate, burst float64, now time.Time) (*tokenBucket, error) {
	if rate <= 0 || burst <= 0 {
		return nil, fmt.Errorf("token bucket: rate and burst must be positive, got %v and %v", rate, burst)
	}
	return &tokenBucket{rate: rate, burst: burst, tokens: burst, last: now}, nil
}

// take takes one token at now; false when none is left. A now earlier than the last call's adds nothing.
func (b *tokenBucket) take(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed.Seconds()*b.rate)
		b.last = now
	}
	// A token within 1e-9 of whole counts: sums of elapsed×rate fall short of a whole by about 1e-15 (as
	// WHOLE_TOKEN, which bench/fakebench-quota.ts takes from @ccm-kit/runtime).
	if b.tokens < 1-1e-9 {
		return false
	}
	b.tokens--
	return true
}

// parseRps reads FAKEBENCH_RPS: calls a second (a positive integer), or 0 for none (unset, empty or 0).
func parseRps(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("FAKEBENCH_RPS must be a non-negative integer (cloud calls a second; 0 or unset: no quota), got %q", v)
	}
	return n, nil
}
