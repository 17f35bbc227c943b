// Package cpuid describes the processor for package xts and its tools: the
// x86 feature bits the dispatch policy reads (X86, from CPUID and XCR0),
// and the report that `xts info` and internal/peak print (Info, Detect).
//
// It is internal because these are details of how xts chooses an
// implementation, not part of its API: users ask xts.Implementations()
// what runs here and why.
package cpuid
