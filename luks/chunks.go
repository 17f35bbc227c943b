package luks

import "sync"

// chunkSize is the unit of the reencryption engines' bulk work: whole
// sectors read, transformed and written by one goroutine while they are
// in its cache. A multiple of every sector size; tests change it (with
// the volume layer's ChunkSize) to put chunk edges where they want them.
var chunkSize = 512 << 10

// chunkPool holds chunk-sized buffers (of the chunk size when they were
// made).
var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}
