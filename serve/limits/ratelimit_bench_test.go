package limits

import (
	"net/netip"
	"runtime"
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

// BenchmarkRateLimiterMemory feeds 1 000 000 distinct client addresses
// through a limiter that remembers at most 100 000, and reports the live
// heap it holds after the first 100 000 and after all of them: memory is
// bounded when the two are about equal.
func BenchmarkRateLimiterMemory(b *testing.B) {
	const clients, maxClients = 1_000_000, 100_000
	var at100k, at1M float64
	var tracked int
	b.ReportAllocs()
	for b.Loop() {
		base := liveHeap()
		l := NewRateLimiter(30, time.Minute, maxClients, time.Now)
		for i := range clients {
			l.Allow(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}))
			if i+1 == maxClients {
				at100k = float64(liveHeap()-base) / (1 << 20)
			}
		}
		at1M = float64(liveHeap()-base) / (1 << 20)
		tracked = l.Len()
		runtime.KeepAlive(l)
	}
	if tracked > maxClients {
		b.Fatalf("%d clients tracked, more than %d", tracked, maxClients)
	}
	b.ReportMetric(at100k, "heapMB@100k")
	b.ReportMetric(at1M, "heapMB@1M")
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
