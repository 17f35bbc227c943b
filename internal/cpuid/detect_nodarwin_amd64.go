//go:build !darwin && !purego

package cpuid

// darwinProbe is only called on darwin.
func darwinProbe() (avx512f bool, release string) { return false, "" }
