//go:build !purego

package xts

// puregoBuild: built with -tags purego (no assembly here or in crypto/aes).
const puregoBuild = false
