package main

import (
	"strings"
	"testing"
	"time"
)

func TestTokenBucketBurstThenRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b, err := newTokenBucket(10, 10, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if !b.take(t0) {
			t.Fatalf("call %d of the burst refused", i+1)
		}
	}
	if b.take(t0) {
		t.Fatal("the 11th call at once was allowed")
	}
	// 10 a second: one token after 100 ms, not before; a refused call takes none.
	if b.take(t0.Add(99 * time.Millisecond)) {
		t.Fatal("allowed after 99 ms")
	}
	if !b.take(t0.Add(100 * time.Millisecond)) {
		t.Fatal("refused after 100 ms")
	}
	// Never more than the burst, however long it was idle.
	later := t0.Add(time.Hour)
	n := 0
	for b.take(later) {
		n++
	}
	if n != 10 {
		t.Fatalf("after an hour idle %d calls allowed, want 10", n)
	}
	// A clock going back adds nothing.
	if b.take(t0) {
		t.Fatal("allowed on an earlier clock")
	}
}

func TestTokenBucketCountsANearlyWholeToken(t *testing.T) {
	// The sequence of bench/test/fakebench-quota.test.ts: the refills' floating-point sum leaves 0.9999999999999993
	// tokens at 782 ms, exactly three tokens' time after the first call at 482 ms.
	ms := func(n int64) time.Time { return time.UnixMilli(1_000_000 + n) }
	b, err := newTokenBucket(10, 10, ms(470))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{482, 572, 589, 590, 594, 597, 598, 600, 601, 604, 606, 683} {
		if !b.take(ms(n)) {
			t.Fatalf("refused at %d ms", n)
		}
	}
	if b.take(ms(781)) {
		t.Fatal("allowed at 781 ms")
	}
	if !b.take(ms(782)) {
		t.Fatal("refused at 782 ms")
	}
}

func TestTokenBucketRejectsBadRates(t *testing.T) {
	if _, err := newTokenBucket(0, 10, time.Now()); err == nil {
		t.Fatal("rate 0 accepted")
	}
	if _, err := newTokenBucket(10, 0, time.Now()); err == nil {
		t.Fatal("burst 0 accepted")
	}
}

func TestParseRps(t *testing.T) {
	for v, want := range map[string]int{"": 0, "0": 0, "10": 10} {
		if got, err := parseRps(v); err != nil || got != want {
			t.Fatalf("parseRps(%q) = %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"-1", "1.5", "ten"} {
		if _, err := parseRps(v); err == nil || !strings.Contains(err.Error(), "FAKEBENCH_RPS") {
			t.Fatalf("parseRps(%q) error %v, want one naming FAKEBENCH_RPS", v, err)
		}
	}
}

func TestFakeBenchThrottlesBeyondTheQuota(t *testing.T) {
	t.Setenv("FAKEBENCH_RPS", "3")
	t.Setenv("FAKEBENCH_RPS_FROM", "signal")
	f, err := newFakeBench()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for i := 0; i < 5; i++ {
		if err := f.call(ctx, mInstanceMetadata); err != nil {
			t.Fatalf("call %d refused before the quota started: %v", i+1, err)
		}
	}
	f.startQuota(time.Now())
	var refused error
	for i := 0; i < 4; i++ {
		refused = f.call(ctx, mUpdateLoadBalancer)
	}
	var te *throttledError
	if refused == nil || !strings.Contains(refused.Error(), "429") {
		t.Fatalf("the 4th call within the second got %v, want a 429", refused)
	}
	if te = refused.(*throttledError); te.StatusCode() != 429 || te.RetryAfter() != time.Second {
		t.Fatalf("429 error carries %d, %v", te.StatusCode(), te.RetryAfter())
	}
	s := f.snapshot()
	if s.Throttled != 1 || s.Calls["UpdateLoadBalancer"] != 4 || s.Calls["InstanceMetadata"] != 5 {
		t.Fatalf("counters %+v, want 1 throttled of 4 UpdateLoadBalancer and 5 InstanceMetadata", s)
	}
}
