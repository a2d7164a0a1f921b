// The real node's pause image (environments/local/bin/node-lib.sh): no registry is reachable, so the
// pod sandbox image is built here. No dependencies beyond the standard library.
module io.vigil/local/node/pause

go 1.23.0
