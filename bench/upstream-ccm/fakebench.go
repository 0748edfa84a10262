// Tier-A in-process fake cloud "fakebench" for the side-by-side benchmark (bench/compare.ts).
//
// The TypeScript twin is bench/fakebench.ts: same semantics, same counter names, same output line.
// Semantics (deterministic from the object, so the final cluster state can be diffed across runs):
//   - InstancesV2: every Node exists and is running, except by name: a Node whose name contains
//     "-gone-" does not exist (InstanceExists false) and one whose name contains "-shutdown-" is shut
//     down (InstanceShutdown true); InstanceMetadata answers for every name. It returns providerID
//     "fakebench://<node name>", one InternalIP derived from an FNV-1a hash of the name
//     (10.<h>>16&255>.<h>>8&255>.<h&255>), instance type "fb.standard-4", zone "fakebench-<a|b|c>"
//     (by hash % 3) and region "fakebench-1".
//   - LoadBalancer: keyed by the default LB name; EnsureLoadBalancer keeps the IP of an existing
//     balancer or takes the next one from a counter (198.18.<n>>8&255>.<n&255>); of the hosts only
//     their number and an FNV-1a hash of the sorted names joined by "," are kept;
//     UpdateLoadBalancer replaces them; EnsureLoadBalancerDeleted forgets it.
//   - Routes: a map keyed by destination CIDR.
//
// Memory is bounded by the live objects (at most MaxObjects balancers and routes; more is an error),
// every method is safe under concurrency, and every call increments an atomic counter. Optional env:
//   - FAKEBENCH_LATENCY_MS: a fixed sleep (honouring the context) in every cloud call;
//   - FAKEBENCH_STALE_ROUTES: start with this many routes no Node owns
//     (10.<120+i>>8>.<i&255>.0/24 -> bench-stale-<i>, at most MaxStaleRoutes);
//   - FAKEBENCH_STATE_FILE: balancers, routes and the IP counter are loaded from this JSON file at
//     start when it exists, and saved to it at exit (main.go), so a restarted CCM finds the cloud as it was;
//   - FAKEBENCH_RPS: the cloud's API quota, calls a second (token bucket, burst = rps, quota.go); a call
//     beyond it is counted and answered with a 429 error (Retry-After: 1) and counted in "throttled".
//     FAKEBENCH_RPS_FROM=signal holds the quota off until SIGUSR2 (main.go); default "start".
//
// A load-balancer call on a Service's group (its bench.ccm-kit.dev/lb-group label) that another call is changing
// is refused with a 409 and counted in "conflicts" (groups.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
)

const (
	providerName = "fakebench"
	// MaxObjects bounds each of the balancer and route tables.
	MaxObjects = 100_000
	// MaxStaleRoutes bounds FAKEBENCH_STALE_ROUTES (the routes stay inside 10.120.0.0/13).
	MaxStaleRoutes = 2048
)

// Method names, as printed in the counters line (identical on the TypeScript side).
var methodNames = []string{
	"InstanceExists", "InstanceShutdown", "InstanceMetadata",
	"GetLoadBalancer", "GetLoadBalancerName", "EnsureLoadBalancer", "UpdateLoadBalancer", "EnsureLoadBalancerDeleted",
	"ListRoutes", "CreateRoute", "DeleteRoute",
}

const (
	mInstanceExists = iota
	mInstanceShutdown
	mInstanceMetadata
	mGetLoadBalancer
	mGetLoadBalancerName
	mEnsureLoadBalancer
	mUpdateLoadBalancer
	mEnsureLoadBalancerDeleted
	mListRoutes
	mCreateRoute
	mDeleteRoute
	methodCount
)

type balancer struct {
	IP        string `json:"ip"`
	Hosts     int    `json:"hosts"`
	HostsHash uint32 `json:"hostsHash"`
}

// stateRoute is a route as saved in FAKEBENCH_STATE_FILE.
type stateRoute struct {
	Name            string `json:"name"`
	TargetNode      string `json:"targetNode"`
	DestinationCIDR string `json:"destinationCIDR"`
	Blackhole       bool   `json:"blackhole"`
}

// cloudState is what FAKEBENCH_STATE_FILE holds (same shape on the TypeScript side).
type cloudState struct {
	NextIP    int64                `json:"nextIP"`
	Balancers map[string]*balancer `json:"balancers"`
	Routes    []stateRoute         `json:"routes"`
}

func isGone(name string) bool     { return strings.Contains(name, "-gone-") }
func isShutdown(name string) bool { return strings.Contains(name, "-shutdown-") }

func staleRoute(i int) cloudprovider.Route {
	name := fmt.Sprintf("bench-stale-%d", i)
	return cloudprovider.Route{Name: name, TargetNode: types.NodeName(name),
		DestinationCIDR: fmt.Sprintf("10.%d.%d.0/24", 120+(i>>8), i&255)}
}

// fakeBench implements cloudprovider.Interface, InstancesV2, LoadBalancer and Routes.
type fakeBench struct {
	latency     time.Duration
	calls       [methodCount]atomic.Int64
	firstCallMs atomic.Int64
	nextIP      atomic.Int64
	// rps is the quota in calls a second (0: none); quota is its bucket once started.
	rps       int
	quota     atomic.Pointer[tokenBucket]
	throttled atomic.Int64
	groups    groupLocks

	mu        sync.Mutex
	balancers map[string]*balancer
	routes    map[string]cloudprovider.Route
}

func newFakeBench() (*fakeBench, error) {
	f := &fakeBench{balancers: map[string]*balancer{}, routes: map[string]cloudprovider.Route{}}
	if v := os.Getenv("FAKEBENCH_LATENCY_MS"); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("FAKEBENCH_LATENCY_MS must be a non-negative number of milliseconds, got %q", v)
		}
		f.latency = time.Duration(ms * float64(time.Millisecond))
	}
	if v := os.Getenv("FAKEBENCH_STALE_ROUTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxStaleRoutes {
			return nil, fmt.Errorf("FAKEBENCH_STALE_ROUTES must be an integer from 0 to %d, got %q", MaxStaleRoutes, v)
		}
		for i := 0; i < n; i++ {
			r := staleRoute(i)
			f.routes[r.DestinationCIDR] = r
		}
	}
	if path := os.Getenv("FAKEBENCH_STATE_FILE"); path != "" {
		if err := f.loadState(path); err != nil {
			return nil, err
		}
	}
	rps, err := parseRps(os.Getenv("FAKEBENCH_RPS"))
	if err != nil {
		return nil, err
	}
	f.rps = rps
	switch from := os.Getenv("FAKEBENCH_RPS_FROM"); from {
	case "", "start":
		f.startQuota(time.Now())
	case "signal":
	default:
		return nil, fmt.Errorf("FAKEBENCH_RPS_FROM must be start or signal, got %q", from)
	}
	return f, nil
}

// startQuota starts the quota (a full bucket) when one is configured and not yet running.
func (f *fakeBench) startQuota(now time.Time) {
	if f.rps <= 0 || f.quota.Load() != nil {
		return
	}
	b, _ := newTokenBucket(float64(f.rps), float64(f.rps), now)
	f.quota.CompareAndSwap(nil, b)
}

// loadState replaces the balancers, routes and IP counter with the file's, when it exists.
func (f *fakeBench) loadState(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var st cloudState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("FAKEBENCH_STATE_FILE %s: %w", path, err)
	}
	f.nextIP.Store(st.NextIP)
	f.balancers = st.Balancers
	if f.balancers == nil {
		f.balancers = map[string]*balancer{}
	}
	f.routes = map[string]cloudprovider.Route{}
	for _, r := range st.Routes {
		f.routes[r.DestinationCIDR] = cloudprovider.Route{Name: r.Name, TargetNode: types.NodeName(r.TargetNode),
			DestinationCIDR: r.DestinationCIDR, Blackhole: r.Blackhole}
	}
	return nil
}

// saveState writes the balancers, routes and IP counter to path (temporary file, then rename).
func (f *fakeBench) saveState(path string) error {
	f.mu.Lock()
	st := cloudState{NextIP: f.nextIP.Load(), Balancers: f.balancers, Routes: make([]stateRoute, 0, len(f.routes))}
	for _, r := range f.routes {
		st.Routes = append(st.Routes, stateRoute{Name: r.Name, TargetNode: string(r.TargetNode),
			DestinationCIDR: r.DestinationCIDR, Blackhole: r.Blackhole})
	}
	b, err := json.Marshal(st)
	f.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// call counts one call, records the time of the first one, waits the configured latency and, beyond the
// quota, refuses the call with a throttledError.
func (f *fakeBench) call(ctx context.Context, m int) error {
	f.calls[m].Add(1)
	now := time.Now()
	f.firstCallMs.CompareAndSwap(0, now.UnixMilli())
	var refused error
	if q := f.quota.Load(); q != nil && !q.take(now) {
		f.throttled.Add(1)
		refused = &throttledError{method: methodNames[m]}
	}
	if f.latency <= 0 {
		return refused
	}
	t := time.NewTimer(f.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return refused
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lbCall is call for a load-balancer method: on a Service in a group, refused with a conflictError (after the
// latency, as a round trip) while another call on the group is in flight, else the group is held until the
// returned release runs (after the method's body).
func (f *fakeBench) lbCall(ctx context.Context, m int, svc *v1.Service) (release func(), err error) {
	group := groupOf(svc)
	if group == "" {
		return func() {}, f.call(ctx, m)
	}
	if !f.groups.take(group) {
		if err := f.call(ctx, m); err != nil {
			return func() {}, err
		}
		return func() {}, &conflictError{method: methodNames[m], group: group}
	}
	release = func() { f.groups.release(group) }
	if err := f.call(ctx, m); err != nil {
		release()
		return func() {}, err
	}
	return release, nil
}

// counterLine is the JSON line written to FAKEBENCH_COUNTERS_FILE.
type counterLine struct {
	Impl          string           `json:"impl"`
	Pid           int              `json:"pid"`
	TimeMs        int64            `json:"timeMs"`
	FirstCallMs   int64            `json:"firstCallMs"`
	Calls         map[string]int64 `json:"calls"`
	LoadBalancers int              `json:"loadBalancers"`
	LBHostsTotal  int              `json:"lbHostsTotal"`
	LBHostsHash   uint32           `json:"lbHostsHash"`
	Routes        int              `json:"routes"`
	RoutesHash    uint32           `json:"routesHash"`
	Throttled     int64            `json:"throttled"`
	Conflicts     int64            `json:"conflicts"`
}

func (f *fakeBench) snapshot() counterLine {
	calls := make(map[string]int64, methodCount)
	for i, n := range methodNames {
		calls[n] = f.calls[i].Load()
	}
	f.mu.Lock()
	lbs, routes, hosts := len(f.balancers), len(f.routes), 0
	var hostsHash, routesHash uint32
	for _, b := range f.balancers {
		hosts += b.Hosts
		// Not the name: it comes from the Service UID, which differs run to run.
		hostsHash += fnv32(strconv.FormatUint(uint64(b.HostsHash), 10))
	}
	for cidr, r := range f.routes {
		routesHash += fnv32(cidr + ">" + string(r.TargetNode))
	}
	f.mu.Unlock()
	return counterLine{Impl: "go", Pid: os.Getpid(), TimeMs: time.Now().UnixMilli(), FirstCallMs: f.firstCallMs.Load(),
		Calls: calls, LoadBalancers: lbs, LBHostsTotal: hosts, LBHostsHash: hostsHash, Routes: routes, RoutesHash: routesHash,
		Throttled: f.throttled.Load(), Conflicts: f.groups.conflicts.Load()}
}

// writeCounters replaces path with one JSON line (write to a temporary file, then rename).
func (f *fakeBench) writeCounters(path string) error {
	b, err := json.Marshal(f.snapshot())
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// cloudprovider.Interface

func (f *fakeBench) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}
func (f *fakeBench) LoadBalancer() (cloudprovider.LoadBalancer, bool)                  { return f, true }
func (f *fakeBench) Instances() (cloudprovider.Instances, bool)                        { return nil, false }
func (f *fakeBench) InstancesV2() (cloudprovider.InstancesV2, bool)                    { return f, true }
func (f *fakeBench) Zones() (cloudprovider.Zones, bool)                                { return nil, false }
func (f *fakeBench) Clusters() (cloudprovider.Clusters, bool)                          { return nil, false }
func (f *fakeBench) Routes() (cloudprovider.Routes, bool)                              { return f, true }
func (f *fakeBench) ProviderName() string                                              { return providerName }
func (f *fakeBench) HasClusterID() bool                                                { return true }

// InstancesV2

func fnv32(s string) uint32 {
	h := fnv.New32a()
	_, _ = io.WriteString(h, s)
	return h.Sum32()
}

func nodeIP(name string) string {
	h := fnv32(name)
	return fmt.Sprintf("10.%d.%d.%d", (h>>16)&255, (h>>8)&255, h&255)
}

func (f *fakeBench) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	return !isGone(node.Name), f.call(ctx, mInstanceExists)
}

func (f *fakeBench) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	return isShutdown(node.Name), f.call(ctx, mInstanceShutdown)
}

func (f *fakeBench) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	if err := f.call(ctx, mInstanceMetadata); err != nil {
		return nil, err
	}
	zones := [...]string{"a", "b", "c"}
	return &cloudprovider.InstanceMetadata{
		ProviderID:    providerName + "://" + node.Name,
		InstanceType:  "fb.standard-4",
		NodeAddresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: nodeIP(node.Name)}},
		Zone:          "fakebench-" + zones[fnv32(node.Name)%3],
		Region:        "fakebench-1",
	}, nil
}

// LoadBalancer

// hostsOf returns the number of hosts and the FNV-1a hash of their sorted names joined by ",".
func hostsOf(nodes []*v1.Node) (int, uint32) {
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	sort.Strings(names)
	return len(names), fnv32(strings.Join(names, ","))
}

func statusOf(ip string) *v1.LoadBalancerStatus {
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: ip}}}
}

func (f *fakeBench) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	release, err := f.lbCall(ctx, mGetLoadBalancer, svc)
	defer release()
	if err != nil {
		return nil, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.balancers[cloudprovider.DefaultLoadBalancerName(svc)]; ok {
		return statusOf(b.IP), true, nil
	}
	return nil, false, nil
}

func (f *fakeBench) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	f.calls[mGetLoadBalancerName].Add(1)
	return cloudprovider.DefaultLoadBalancerName(svc)
}

func (f *fakeBench) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	release, err := f.lbCall(ctx, mEnsureLoadBalancer, svc)
	defer release()
	if err != nil {
		return nil, err
	}
	name := cloudprovider.DefaultLoadBalancerName(svc)
	hosts, hash := hostsOf(nodes)
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.balancers[name]; ok {
		b.Hosts, b.HostsHash = hosts, hash
		return statusOf(b.IP), nil
	}
	if len(f.balancers) >= MaxObjects {
		return nil, errors.New("fakebench: too many load balancers")
	}
	n := f.nextIP.Add(1)
	b := &balancer{IP: fmt.Sprintf("198.18.%d.%d", (n>>8)&255, n&255), Hosts: hosts, HostsHash: hash}
	f.balancers[name] = b
	return statusOf(b.IP), nil
}

func (f *fakeBench) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) error {
	release, err := f.lbCall(ctx, mUpdateLoadBalancer, svc)
	defer release()
	if err != nil {
		return err
	}
	hosts, hash := hostsOf(nodes)
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.balancers[cloudprovider.DefaultLoadBalancerName(svc)]
	if !ok {
		return fmt.Errorf("fakebench: load balancer for service %s/%s does not exist", svc.Namespace, svc.Name)
	}
	b.Hosts, b.HostsHash = hosts, hash
	return nil
}

func (f *fakeBench) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) error {
	release, err := f.lbCall(ctx, mEnsureLoadBalancerDeleted, svc)
	defer release()
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.balancers, cloudprovider.DefaultLoadBalancerName(svc))
	return nil
}

// Routes

func (f *fakeBench) ListRoutes(ctx context.Context, _ string) ([]*cloudprovider.Route, error) {
	if err := f.call(ctx, mListRoutes); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*cloudprovider.Route, 0, len(f.routes))
	for _, r := range f.routes {
		r := r
		out = append(out, &r)
	}
	return out, nil
}

func (f *fakeBench) CreateRoute(ctx context.Context, _ string, nameHint string, route *cloudprovider.Route) error {
	if err := f.call(ctx, mCreateRoute); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.routes[route.DestinationCIDR]; !ok && len(f.routes) >= MaxObjects {
		return errors.New("fakebench: too many routes")
	}
	r := *route
	r.Name = nameHint
	r.TargetNodeAddresses = nil
	f.routes[route.DestinationCIDR] = r
	return nil
}

func (f *fakeBench) DeleteRoute(ctx context.Context, _ string, route *cloudprovider.Route) error {
	if err := f.call(ctx, mDeleteRoute); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.routes, route.DestinationCIDR)
	return nil
}
