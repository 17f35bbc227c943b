package nbd

import "sync"

// maxRequestsInFlight bounds the requests one connection runs at once.
const maxRequestsInFlight = 64

// reqOverhead is what the memory budget charges every request besides
// its payload: the goroutine that runs it and its bookkeeping.
const reqOverhead = 4 << 10

// maxChunk bounds the payload one request holds at once: a longer READ
// or WRITE moves through a buffer of at most this size (Server.chunk),
// so that its memory does not grow with its length.
const maxChunk = 1 << 20

// memBudget bounds the payload bytes (requests read but not answered,
// replies not yet taken by their clients) that all the connections of a
// server hold at once. Each connection draws on it through a connBudget,
// which also caps what that one connection may hold (its share): a
// client that stops sending a payload or stops reading its replies pins
// at most its share, and the others go on with theirs.
type memBudget struct {
	mu      sync.Mutex
	cond    *sync.Cond
	limit   int64
	used    int64
	stopped bool // a forced shutdown: every wait gives up
}

func newMemBudget(limit int64) *memBudget {
	g := &memBudget{limit: limit}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// stop makes every waiting and later acquire fail.
func (g *memBudget) stop() {
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
	g.cond.Broadcast()
}

// inUse reports the bytes held now.
func (g *memBudget) inUse() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used
}

// connBudget is one connection's part of a memBudget: at most share
// bytes and maxRequestsInFlight requests at once.
type connBudget struct {
	g     *memBudget
	share int64
	used  int64
	reqs  int
	dead  bool // the connection is going away: waits give up
}

func (g *memBudget) conn(share int64) *connBudget {
	return &connBudget{g: g, share: share}
}

// fits reports whether n more bytes (and a request, when newReq) may be
// taken now. The caller holds g.mu.
func (c *connBudget) fits(n int64, newReq bool) bool {
	if newReq && c.reqs >= maxRequestsInFlight {
		return false
	}
	// Whatever is held is released once its request is answered, so
	// waiting only ever waits for requests that run. A connection that
	// holds nothing may take anything its share allows; the server's
	// configuration check makes every single take fit in a share.
	if c.used > 0 && c.used+n > c.share {
		return false
	}
	return c.g.used == 0 || c.g.used+n <= c.g.limit
}

// acquire takes n bytes, and a request slot when newReq, waiting until
// they fit. It reports false, having taken nothing, when the connection
// or the server was stopped.
func (c *connBudget) acquire(n int64, newReq bool) bool {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	for !c.dead && !g.stopped && !c.fits(n, newReq) {
		g.cond.Wait()
	}
	if c.dead || g.stopped {
		return false
	}
	c.used += n
	g.used += n
	if newReq {
		c.reqs++
	}
	return true
}

// release gives back n bytes, and a request slot when endReq.
func (c *connBudget) release(n int64, endReq bool) {
	g := c.g
	g.mu.Lock()
	c.used -= n
	g.used -= n
	if endReq {
		c.reqs--
	}
	g.mu.Unlock()
	g.cond.Broadcast()
}

// stop makes the connection's waiting and later acquires fail.
func (c *connBudget) stop() {
	c.g.mu.Lock()
	c.dead = true
	c.g.mu.Unlock()
	c.g.cond.Broadcast()
}
