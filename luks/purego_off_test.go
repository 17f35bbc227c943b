//go:build !purego

package luks

// puregoBuild: built with -tags purego (crypto's portable Go code).
const puregoBuild = false
