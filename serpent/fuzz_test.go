// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
)

// FuzzRoundTrip checks Decrypt(Encrypt(x)) == x and Encrypt(Decrypt(x)) ==
// x for every key size, in place and out of place, and that keys of other
// sizes are refused (blocktest.Fuzz).
func FuzzRoundTrip(f *testing.F) { blocktest.Fuzz(f, spec) }
