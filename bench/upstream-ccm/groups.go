// fakebench's load-balancer groups (W10 of bench/compare; the TypeScript twin is bench/fakebench-groups.ts, the
// same rule): a Service labelled groupLabel belongs to that group, as on a cloud that puts several Services on one
// load balancer. A load-balancer call (GetLoadBalancer, EnsureLoadBalancer, UpdateLoadBalancer,
// EnsureLoadBalancerDeleted) that arrives while another call on the same group is in flight is answered with a
// conflict (conflictError, HTTP 409) and counted in the counters line as "conflicts"; it holds nothing. A Service
// without the label is in no group and never conflicts.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
)

// groupLabel puts a benchmark Service into a load-balancer group (its value is the group key).
const groupLabel = "bench.ccm-kit.dev/lb-group"

// groupOf is the Service's group label value, or "" (no group).
func groupOf(svc *v1.Service) string { return svc.Labels[groupLabel] }

// conflictError refuses a load-balancer call on a group another call is changing.
type conflictError struct{ method, group string }

func (e *conflictError) Error() string {
	return fmt.Sprintf("fakebench: %s: 409 Conflict (load-balancer group %q is being changed by another call)", e.method, e.group)
}

// groupLocks holds which groups have a call in flight and counts the calls refused for that.
type groupLocks struct {
	mu        sync.Mutex
	busy      map[string]bool
	conflicts atomic.Int64
}

// take takes group for one call: true when it was free (release it after the call); false when another call
// holds it, counted as a conflict.
func (g *groupLocks) take(group string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy[group] {
		g.conflicts.Add(1)
		return false
	}
	if g.busy == nil {
		g.busy = map[string]bool{}
	}
	g.busy[group] = true
	return true
}

// release frees group after the call that took it.
func (g *groupLocks) release(group string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.busy, group)
}
