// Tier-A in-process fake cloud "fakebench" for the side-by-side benchmark (bench/compare.ts).
//
// The TypeScript twin is bench/fakebench.ts: same semantics, same counter names, same output line.
// Semantics (deterministic from the object, so the final cluster state can be diffed across runs):
//   - InstancesV2: every Node exists and is running; InstanceMetadata returns providerID
//     "fakebench://<node name>", one InternalIP derived from an FNV-1a hash of the name
//     (10.<h>>16&255>.<h>>8&255>.<h&255>), instance type "fb.standard-4", zone "fakebench-<a|b|c>"
//     (by hash % 3) and region "fakebench-1".
//   - LoadBalancer: keyed by the default LB name; EnsureLoadBalancer keeps the IP of an existing
//     balancer or takes the next one from a counter (198.18.<n>>8&255>.<n&255>); hosts (node names)
//     are stored; UpdateLoadBalancer replaces them; EnsureLoadBalancerDeleted forgets it.
//   - Routes: a map keyed by destination CIDR.
//
// Memory is bounded by the live objects (at most MaxObjects balancers and routes; more is an error),
// every method is safe under concurrency, and every call increments an atomic counter. The optional
// env FAKEBENCH_LATENCY_MS adds a fixed sleep (honouring the context) to every cloud call.
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
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
)

const (
	providerName = "fakebench"
	// MaxObjects bounds each of the balancer and route tables.
	MaxObjects = 100_000
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
	ip    string
	hosts []string
}

// fakeBench implements cloudprovider.Interface, InstancesV2, LoadBalancer and Routes.
type fakeBench struct {
	latency     time.Duration
	calls       [methodCount]atomic.Int64
	firstCallMs atomic.Int64
	nextIP      atomic.Int64

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
	return f, nil
}

// call counts one call, records the time of the first one, and waits the configured latency.
func (f *fakeBench) call(ctx context.Context, m int) error {
	f.calls[m].Add(1)
	f.firstCallMs.CompareAndSwap(0, time.Now().UnixMilli())
	if f.latency <= 0 {
		return nil
	}
	t := time.NewTimer(f.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
	Routes        int              `json:"routes"`
}

func (f *fakeBench) snapshot() counterLine {
	calls := make(map[string]int64, methodCount)
	for i, n := range methodNames {
		calls[n] = f.calls[i].Load()
	}
	f.mu.Lock()
	lbs, routes, hosts := len(f.balancers), len(f.routes), 0
	for _, b := range f.balancers {
		hosts += len(b.hosts)
	}
	f.mu.Unlock()
	return counterLine{Impl: "go", Pid: os.Getpid(), TimeMs: time.Now().UnixMilli(), FirstCallMs: f.firstCallMs.Load(),
		Calls: calls, LoadBalancers: lbs, LBHostsTotal: hosts, Routes: routes}
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

func (f *fakeBench) InstanceExists(ctx context.Context, _ *v1.Node) (bool, error) {
	return true, f.call(ctx, mInstanceExists)
}

func (f *fakeBench) InstanceShutdown(ctx context.Context, _ *v1.Node) (bool, error) {
	return false, f.call(ctx, mInstanceShutdown)
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

func hostNames(nodes []*v1.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	sort.Strings(out)
	return out
}

func statusOf(ip string) *v1.LoadBalancerStatus {
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: ip}}}
}

func (f *fakeBench) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	if err := f.call(ctx, mGetLoadBalancer); err != nil {
		return nil, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.balancers[cloudprovider.DefaultLoadBalancerName(svc)]; ok {
		return statusOf(b.ip), true, nil
	}
	return nil, false, nil
}

func (f *fakeBench) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	f.calls[mGetLoadBalancerName].Add(1)
	return cloudprovider.DefaultLoadBalancerName(svc)
}

func (f *fakeBench) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	if err := f.call(ctx, mEnsureLoadBalancer); err != nil {
		return nil, err
	}
	name := cloudprovider.DefaultLoadBalancerName(svc)
	hosts := hostNames(nodes)
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.balancers[name]; ok {
		b.hosts = hosts
		return statusOf(b.ip), nil
	}
	if len(f.balancers) >= MaxObjects {
		return nil, errors.New("fakebench: too many load balancers")
	}
	n := f.nextIP.Add(1)
	b := &balancer{ip: fmt.Sprintf("198.18.%d.%d", (n>>8)&255, n&255), hosts: hosts}
	f.balancers[name] = b
	return statusOf(b.ip), nil
}

func (f *fakeBench) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) error {
	if err := f.call(ctx, mUpdateLoadBalancer); err != nil {
		return err
	}
	hosts := hostNames(nodes)
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.balancers[cloudprovider.DefaultLoadBalancerName(svc)]
	if !ok {
		return fmt.Errorf("fakebench: load balancer for service %s/%s does not exist", svc.Namespace, svc.Name)
	}
	b.hosts = hosts
	return nil
}

func (f *fakeBench) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) error {
	if err := f.call(ctx, mEnsureLoadBalancerDeleted); err != nil {
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
