//go:build tools

// Package tools pins Kubernetes v1.34.5 and etcd v3.6.4 for
// tools/envtest/build.sh 1.34. Nothing here is compiled into ccm-kit.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
