//go:build tools

// Package tools pins Kubernetes v1.33.13 and etcd v3.5.21 for
// tools/envtest/build.sh 1.33. Nothing here is compiled into ccm-kit.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
