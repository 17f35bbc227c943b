//go:build !unix

package luks

import "time"

// rusage reports no CPU time where the system does not give it; the
// benchmarks then report zero CPU seconds beside the wall time.
func rusage() (user, sys time.Duration) { return 0, 0 }
