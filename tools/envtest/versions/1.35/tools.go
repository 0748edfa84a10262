//go:build tools

// Package tools pins Kubernetes v1.35.8 and etcd v3.6.5 for
// tools/envtest/build.sh 1.35. Nothing here is compiled into ccm-kit.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
