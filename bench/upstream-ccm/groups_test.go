package main

import (
	"context"
	"errors"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func groupedService(name, group string) *v1.Service {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: name, UID: "uid-" + types.UID(name)}}
	if group != "" {
		svc.Labels = map[string]string{groupLabel: group}
	}
	return svc
}

// The same cases as bench/test/fakebench-groups.test.ts: an overlapping call on one group is refused with a
// conflict and counted; other groups and ungrouped Services are not; the group is free again afterwards.
func TestGroupConflicts(t *testing.T) {
	f := &fakeBench{balancers: map[string]*balancer{}, latency: 50 * time.Millisecond}
	ctx := context.Background()
	a, b, other, none := groupedService("a", "g1"), groupedService("b", "g1"), groupedService("c", "g2"), groupedService("d", "")
	done := make(chan error, 1)
	go func() { _, err := f.EnsureLoadBalancer(ctx, "", a, nil); done <- err }()
	time.Sleep(10 * time.Millisecond)
	var conflict *conflictError
	if _, err := f.EnsureLoadBalancer(ctx, "", b, nil); !errors.As(err, &conflict) {
		t.Fatalf("overlapping call on g1: got %v, want a conflictError", err)
	}
	if _, err := f.EnsureLoadBalancer(ctx, "", other, nil); err != nil {
		t.Fatalf("call on g2: %v", err)
	}
	if _, err := f.EnsureLoadBalancer(ctx, "", none, nil); err != nil {
		t.Fatalf("ungrouped call: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("first call on g1: %v", err)
	}
	if _, err := f.EnsureLoadBalancer(ctx, "", b, nil); err != nil {
		t.Fatalf("g1 after the first call: %v", err)
	}
	if got := f.snapshot().Conflicts; got != 1 {
		t.Fatalf("conflicts = %d, want 1", got)
	}
}
