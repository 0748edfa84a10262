// upstream-ccm: the upstream Go cloud-controller-manager (k8s.io/cloud-provider's app package, as
// published on the Go module proxy) with the "fakebench" in-process fake cloud registered, for the
// side-by-side benchmark in bench/compare.ts. It follows the shape of the sample main upstream ships
// (options -> command with the default controllers and aliases -> run), with the benchmark's additions:
//
//   - FAKEBENCH_COUNTERS_FILE: where the fake writes its counters as one JSON line, every
//     FAKEBENCH_COUNTERS_INTERVAL_MS (default 1000) and at exit (SIGTERM/SIGINT write the final line,
//     save FAKEBENCH_STATE_FILE, then exit 0).
//   - FAKEBENCH_LATENCY_MS, FAKEBENCH_STALE_ROUTES, FAKEBENCH_STATE_FILE, FAKEBENCH_RPS: see fakebench.go;
//     SIGUSR2 starts the quota when FAKEBENCH_RPS_FROM=signal (the harness sends it, W9).
//
// Build with build.sh (outputs go to ~/.cache/ccm-kit/bench/<version>/upstream-ccm, never the repo).
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	ccmconfig "k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/klog/v2"
)

func main() {
	fake, err := newFakeBench()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cloudprovider.RegisterCloudProvider(providerName, func(io.Reader) (cloudprovider.Interface, error) {
		return fake, nil
	})
	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	go func() {
		for range usr2 {
			fake.startQuota(time.Now())
		}
	}()
	finish := func() {}
	if path := os.Getenv("FAKEBENCH_COUNTERS_FILE"); path != "" {
		finish = startCounterWriter(fake, path)
	}

	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("unable to initialize command options: %v", err)
	}
	cmd := app.NewCloudControllerManagerCommand(opts, initializeCloud, app.DefaultInitFuncConstructors,
		names.CCMControllerAliases(), cliflag.NamedFlagSets{}, wait.NeverStop)
	code := cli.Run(cmd)
	// The app stops on SIGTERM too and may return here before the signal goroutine below is done.
	finish()
	os.Exit(code)
}

// startCounterWriter writes the counters every interval and once more on SIGTERM/SIGINT, saves the state
// (FAKEBENCH_STATE_FILE), then exits. It returns that final step (run once) for main to call when the app
// returns first.
func startCounterWriter(f *fakeBench, path string) func() {
	write := func() {
		if err := f.writeCounters(path); err != nil {
			klog.ErrorS(err, "fakebench: cannot write the counters", "path", path)
		}
	}
	write()
	interval := time.Second
	if v := os.Getenv("FAKEBENCH_COUNTERS_INTERVAL_MS"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			interval = time.Duration(ms) * time.Millisecond
		}
	}
	go func() {
		for range time.Tick(interval) {
			write()
		}
	}()
	var once sync.Once
	finish := func() {
		once.Do(func() {
			write()
			if state := os.Getenv("FAKEBENCH_STATE_FILE"); state != "" {
				if err := f.saveState(state); err != nil {
					klog.ErrorS(err, "fakebench: cannot save the state", "path", state)
				}
			}
			klog.Flush()
		})
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sigs
		finish()
		os.Exit(0)
	}()
	return finish
}

// initializeCloud resolves the provider named by --cloud-provider through the registry, as a vendor's
// main does; any failure is fatal.
func initializeCloud(c *ccmconfig.CompletedConfig) cloudprovider.Interface {
	cp := c.ComponentConfig.KubeCloudShared.CloudProvider
	cloud, err := cloudprovider.InitCloudProvider(cp.Name, cp.CloudConfigFile)
	if err != nil {
		klog.Fatalf("Cloud provider could not be initialized: %v", err)
	}
	if cloud == nil {
		klog.Fatalf("Cloud provider is nil (--cloud-provider=%q)", cp.Name)
	}
	if !cloud.HasClusterID() && !c.ComponentConfig.KubeCloudShared.AllowUntaggedCloud {
		klog.Fatalf("no ClusterID found; set --allow-untagged-cloud to bypass the check")
	}
	return cloud
}
