package serve

import (
	"net/netip"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRateLimiterAllow measures Allow under parallel load from many
// distinct clients: ten times more than are tracked, so the benchmark also
// exercises sweeping and eviction.
func BenchmarkRateLimiterAllow(b *testing.B) {
	const maxClients = 100_000
	l := NewRateLimiter(30, time.Minute, maxClients, time.Now)
	var next atomic.Uint32
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		// Each goroutine walks its own stride of a 1M-address space.
		i := next.Add(1) * 7919
		for pb.Next() {
			i++
			l.Allow(netip.AddrFrom4([4]byte{10, byte(i >> 16 & 0x0f), byte(i >> 8), byte(i)}))
		}
	})
}
