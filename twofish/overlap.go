// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package twofish

import "unsafe"

// checkBlock panics, as crypto/aes does, if src or dst is shorter than a
// block or if the two blocks partly overlap (the same block is fine).
func checkBlock(dst, src []byte) {
	if len(src) < BlockSize {
		panic("twofish: input not full block")
	}
	if len(dst) < BlockSize {
		panic("twofish: output not full block")
	}
	d := uintptr(unsafe.Pointer(&dst[0]))
	s := uintptr(unsafe.Pointer(&src[0]))
	if d != s && d < s+BlockSize && s < d+BlockSize {
		panic("twofish: invalid buffer overlap")
	}
}
