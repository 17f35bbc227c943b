// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package serpent_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
)

func BenchmarkEncrypt(b *testing.B) { blocktest.BenchEncrypt(b, spec) }

func BenchmarkDecrypt(b *testing.B) { blocktest.BenchDecrypt(b, spec) }

func BenchmarkNewCipher(b *testing.B) { blocktest.BenchNewCipher(b, spec) }

// BenchmarkXTS is Serpent-256-XTS over one 4 KiB sector.
func BenchmarkXTS(b *testing.B) { blocktest.BenchXTS(b, spec) }
