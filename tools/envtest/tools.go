//go:build tools

// Package tools pins the Kubernetes control-plane binaries that ccm-kit's
// integration tests run. Nothing here is compiled into ccm-kit; build.sh
// builds these main packages into a cache directory outside the repository.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
