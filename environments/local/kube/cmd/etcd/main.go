// etcd server built from go.etcd.io/etcd/server/v3 (the version kube-apiserver is tested against).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
